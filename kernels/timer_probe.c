#include "kernels/timer_probe.h"
#include "kernels/cycle_counter.h"
#include "kernels/stop_check.h"
#include "src/base/stats.h"
#include "src/sys/sysinfo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define SAMPLES 64
#define CALLS 1000

double timer_min_interval(double granularity_s, double precision, double op_s, double *reps)
{
    *reps = 0.0;
    if (!(granularity_s > 0.0) || !(precision > 0.0)) return 0.0;
    double interval = granularity_s / precision;
    if (op_s > 0.0) *reps = ceil(interval / op_s * (1.0 - 1e-12));
    return interval;
}

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

/* Smallest step between consecutive distinct readings, in the clock's units, and the median
 * cost of one reading in seconds (CALLS readings timed with CLOCK_MONOTONIC). A macro, not a
 * function pointer, so that each loop calls the clock exactly as a user would. */
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

static void set_row(struct timer_clock_row *r, const char *name, double resolution_s,
                    const char *resolution_from, double unit_s, uint64_t step, double cost)
{
    r->name = name;
    r->available = true;
    r->resolution_s = resolution_s;
    r->resolution_from = resolution_from;
    r->granularity_s = step == UINT64_MAX ? NAN : (double)step * unit_s;
    r->call_cost_s = cost;
}

static double getres_s(clockid_t id)
{
    struct timespec res;
    if (clock_getres(id, &res) != 0) return NAN;
    return (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;
}

static void read_clocksource(char *buf, size_t len)
{
    char line[64];
    if (read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", line,
                        sizeof(line)) == 0 &&
        line[0])
        snprintf(buf, len, "%.31s", line);
    else
        snprintf(buf, len, "unknown");
}

/* Counter ticks per second, counted over ~50 ms of CLOCK_MONOTONIC. Each end pairs one
 * reading with the midpoint of two clock readings around it, so the error is a few ns in 50 ms. */
static double calibrate_counter(double *seconds)
{
    uint64_t m0a = ns_of(CLOCK_MONOTONIC), c0 = cycle_counter_read(), m0b = ns_of(CLOCK_MONOTONIC);
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    uint64_t m1a = ns_of(CLOCK_MONOTONIC), c1 = cycle_counter_read(), m1b = ns_of(CLOCK_MONOTONIC);
    double ns = 0.5 * (double)(m1a + m1b) - 0.5 * (double)(m0a + m0b);
    *seconds = 1e-9 * ns;
    return ns > 0 ? (double)(c1 - c0) / (1e-9 * ns) : 0.0;
}

static void probe_counter(struct tsc_info *t, const struct cycle_counter_facts *f)
{
    t->available = true;
    t->counter = CYCLE_COUNTER_NAME;
    t->hz_cpuid_15 = CYCLE_COUNTER_HZ_FROM_CPUID ? f->hz_documented : 0.0;
    t->hz_cpuid_16 = f->hz_nominal;
    t->invariant_known = f->invariant_known;
    t->invariant = f->invariant;
    t->hz_calibrated = calibrate_counter(&t->calibration_s);
    if (f->hz_documented > 0) {
        t->hz = f->hz_documented;
        t->hz_source = f->hz_source;
    } else {
        t->hz = t->hz_calibrated;
        t->hz_source = "calibrated against CLOCK_MONOTONIC";
    }
}

/* The counter's two rows: a plain read and an ordered one. */
static int measure_counter(struct timer_probe_report *out, int (*stop)(void))
{
    struct timer_clock_row *plain = &out->clocks[TCLOCK_RDTSC];
    struct timer_clock_row *ordered = &out->clocks[TCLOCK_RDTSCP];
    plain->name = CYCLE_COUNTER_READ_NAME;
    ordered->name = CYCLE_COUNTER_ORDERED_NAME;
    struct cycle_counter_facts f;
    cycle_counter_describe(&f);
    if (!f.available) {
        snprintf(plain->skipped, sizeof(plain->skipped), "%s", f.missing);
        snprintf(ordered->skipped, sizeof(ordered->skipped), "%s", f.missing);
        return 0;
    }
    uint64_t step;
    double cost;
    if (stop_asked(stop)) return 1;
    probe_counter(&out->tsc, &f);
    double tick = out->tsc.hz > 0 ? 1.0 / out->tsc.hz : NAN;
    if (stop_asked(stop)) return 1;
    MEASURE_CLOCK(cycle_counter_read(), step, cost);
    set_row(plain, CYCLE_COUNTER_READ_NAME, tick, CYCLE_COUNTER_TICK, tick, step, cost);
    if (stop_asked(stop)) return 1;
    if (f.ordered_available) {
        MEASURE_CLOCK(cycle_counter_read_ordered(), step, cost);
        set_row(ordered, CYCLE_COUNTER_ORDERED_NAME, tick, CYCLE_COUNTER_TICK, tick, step, cost);
    } else {
        snprintf(ordered->skipped, sizeof(ordered->skipped), "%s", f.ordered_missing);
    }
    return 0;
}

int timer_probe_run(struct timer_probe_report *out, int (*stop)(void))
{
    memset(out, 0, sizeof(*out));
    out->precision = TIMER_PRECISION;
    out->op_seconds = TIMER_OP_SECONDS;
    read_clocksource(out->clocksource, sizeof(out->clocksource));
    out->n_clocks = TCLOCK_COUNT;
    uint64_t step;
    double cost;

    if (stop_asked(stop)) return 1;
    MEASURE_CLOCK(ns_of(CLOCK_MONOTONIC), step, cost);
    set_row(&out->clocks[TCLOCK_MONOTONIC], "CLOCK_MONOTONIC", getres_s(CLOCK_MONOTONIC),
            "clock_getres", 1e-9, step, cost);
    if (stop_asked(stop)) return 1;
    MEASURE_CLOCK(ns_of(CLOCK_MONOTONIC_RAW), step, cost);
    set_row(&out->clocks[TCLOCK_MONOTONIC_RAW], "CLOCK_MONOTONIC_RAW",
            getres_s(CLOCK_MONOTONIC_RAW), "clock_getres", 1e-9, step, cost);
    if (stop_asked(stop)) return 1;
    MEASURE_CLOCK(read_gettimeofday(), step, cost);
    set_row(&out->clocks[TCLOCK_GETTIMEOFDAY], "gettimeofday", 1e-6, "struct timeval (1 us)", 1e-6,
            step, cost);

    if (measure_counter(out, stop)) return 1;

    for (int i = 0; i < out->n_clocks; i++) {
        struct timer_clock_row *r = &out->clocks[i];
        if (!r->available) continue;
        r->min_interval_s =
            timer_min_interval(r->granularity_s, out->precision, out->op_seconds, &r->reps_for_op);
    }
    return 0;
}
