#include "src/base/clock.h"
#include "src/base/stats.h"

#include <stdlib.h>
#include <time.h>

double timer_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sleep_until(double when_s)
{
    if (!(when_s > 0.0)) return;
    double whole = (double)(time_t)when_s;
    struct timespec at = {.tv_sec = (time_t)when_s, .tv_nsec = (long)((when_s - whole) * 1e9)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
}

void timer_probe(struct timer_info *out)
{
    struct timespec res;
    out->clock_name = "CLOCK_MONOTONIC";
    out->resolution_s = clock_getres(CLOCK_MONOTONIC, &res) == 0
                            ? (double)res.tv_sec + 1e-9 * (double)res.tv_nsec
                            : 0.0;

    enum { SAMPLES = 64 };
    double steps[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        double t0 = timer_now(), t1;
        while ((t1 = timer_now()) <= t0)
            ;
        steps[i] = t1 - t0;
    }
    qsort(steps, SAMPLES, sizeof(steps[0]), compare_doubles);
    out->granularity_s = steps[0];

    enum { CALLS = 1000 };
    double costs[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        double t0 = timer_now();
        for (int j = 0; j < CALLS; j++)
            (void)timer_now();
        costs[i] = (timer_now() - t0) / CALLS;
    }
    qsort(costs, SAMPLES, sizeof(costs[0]), compare_doubles);
    out->call_cost_s = costs[SAMPLES / 2];
}
