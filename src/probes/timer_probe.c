#include "src/probes/timer_probe.h"
#include "kernels/cycle_counter.h"
#include "kernels/stop_check.h"
#include "src/sys/sysinfo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double timer_min_interval(double granularity_s, double precision, double op_s, double *reps)
{
    *reps = 0.0;
    if (!(granularity_s > 0.0) || !(precision > 0.0)) return 0.0;
    double interval = granularity_s / precision;
    if (op_s > 0.0) *reps = ceil(interval / op_s * (1.0 - 1e-12));
    return interval;
}

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

static void probe_counter(struct tsc_info *t, const struct cycle_counter_facts *f)
{
    t->available = true;
    t->counter = CYCLE_COUNTER_NAME;
    t->hz_cpuid_15 = CYCLE_COUNTER_HZ_FROM_CPUID ? f->hz_documented : 0.0;
    t->hz_cpuid_16 = f->hz_nominal;
    t->invariant_known = f->invariant_known;
    t->invariant = f->invariant;
    t->hz_calibrated = timer_calibrate_counter(&t->calibration_s);
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
    timer_clock_measure(TCLOCK_RDTSC, &step, &cost);
    set_row(plain, CYCLE_COUNTER_READ_NAME, tick, CYCLE_COUNTER_TICK, tick, step, cost);
    if (stop_asked(stop)) return 1;
    if (f.ordered_available) {
        timer_clock_measure(TCLOCK_RDTSCP, &step, &cost);
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
    timer_clock_measure(TCLOCK_MONOTONIC, &step, &cost);
    set_row(&out->clocks[TCLOCK_MONOTONIC], "CLOCK_MONOTONIC", getres_s(CLOCK_MONOTONIC),
            "clock_getres", 1e-9, step, cost);
    if (stop_asked(stop)) return 1;
    timer_clock_measure(TCLOCK_MONOTONIC_RAW, &step, &cost);
    set_row(&out->clocks[TCLOCK_MONOTONIC_RAW], "CLOCK_MONOTONIC_RAW",
            getres_s(CLOCK_MONOTONIC_RAW), "clock_getres", 1e-9, step, cost);
    if (stop_asked(stop)) return 1;
    timer_clock_measure(TCLOCK_GETTIMEOFDAY, &step, &cost);
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
