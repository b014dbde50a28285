#include "kernels/timer_kernel.h"
#include "kernels/cycle_counter.h"
#include "src/base/stats.h"

#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#define SAMPLES 64
#define CALLS 1000

double tsc_hz_from_leaf15(uint32_t eax, uint32_t ebx, uint32_t ecx)
{
    if (eax == 0 || ebx == 0 || ecx == 0) return 0.0;
    return (double)ecx * (double)ebx / (double)eax;
}

static uint64_t ns_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t read_gettimeofday(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* A macro, not a function pointer, so that each loop calls the clock exactly as a user
 * would. */
#define MEASURE_CLOCK(READ, step_out, cost_out)                                                    \
    do {                                                                                           \
        uint64_t best = UINT64_MAX;                                                                \
        for (int s_ = 0; s_ < SAMPLES; s_++) {                                                     \
            uint64_t t0_ = READ, t1_;                                                              \
            while ((t1_ = READ) == t0_)                                                            \
                ;                                                                                  \
            if (t1_ > t0_ && t1_ - t0_ < best) best = t1_ - t0_;                                   \
        }                                                                                          \
        double costs_[SAMPLES];                                                                    \
        for (int s_ = 0; s_ < SAMPLES; s_++) {                                                     \
            uint64_t sink_ = 0, c0_ = ns_of(CLOCK_MONOTONIC);                                      \
            for (int j_ = 0; j_ < CALLS; j_++)                                                     \
                sink_ += READ;                                                                     \
            uint64_t c1_ = ns_of(CLOCK_MONOTONIC);                                                 \
            __asm__ volatile("" : : "r"(sink_));                                                   \
            costs_[s_] = 1e-9 * (double)(c1_ - c0_) / CALLS;                                       \
        }                                                                                          \
        qsort(costs_, SAMPLES, sizeof(costs_[0]), compare_doubles);                                \
        (step_out) = best;                                                                         \
        (cost_out) = costs_[SAMPLES / 2];                                                          \
    } while (0)

void timer_clock_measure(enum timer_clock clock, uint64_t *step, double *cost_s)
{
    switch (clock) {
    case TCLOCK_MONOTONIC: MEASURE_CLOCK(ns_of(CLOCK_MONOTONIC), *step, *cost_s); break;
    case TCLOCK_MONOTONIC_RAW: MEASURE_CLOCK(ns_of(CLOCK_MONOTONIC_RAW), *step, *cost_s); break;
    case TCLOCK_GETTIMEOFDAY: MEASURE_CLOCK(read_gettimeofday(), *step, *cost_s); break;
    case TCLOCK_RDTSC: MEASURE_CLOCK(cycle_counter_read(), *step, *cost_s); break;
    case TCLOCK_RDTSCP: MEASURE_CLOCK(cycle_counter_read_ordered(), *step, *cost_s); break;
    case TCLOCK_COUNT: break;
    }
}

/* Each end pairs one counter reading with the midpoint of two clock readings around it, so
 * the error is a few ns in 50 ms. */
double timer_calibrate_counter(double *seconds)
{
    uint64_t m0a = ns_of(CLOCK_MONOTONIC), c0 = cycle_counter_read(), m0b = ns_of(CLOCK_MONOTONIC);
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    uint64_t m1a = ns_of(CLOCK_MONOTONIC), c1 = cycle_counter_read(), m1b = ns_of(CLOCK_MONOTONIC);
    double ns = 0.5 * (double)(m1a + m1b) - 0.5 * (double)(m0a + m0b);
    *seconds = 1e-9 * ns;
    return ns > 0 ? (double)(c1 - c0) / (1e-9 * ns) : 0.0;
}
