#ifndef MEMBENCH_TIMER_PROBE_H
#define MEMBENCH_TIMER_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/timer_kernel.h"

/* --timer: how fine and how dear each clock is, and how long a measurement must be to be
 * precise. Measurement only; the writers format the result. */

/* Relative precision the repetition advice aims at (1%). */
#define TIMER_PRECISION 0.01
/* Duration of the operation the repetition advice is given for: one ~1 ns operation, such as
 * an L1-TLB-hit load (seed 000). */
#define TIMER_OP_SECONDS 1e-9

struct timer_clock_row {
    const char *name;            /* "CLOCK_MONOTONIC", "gettimeofday", "rdtsc", "cntvct_el0" */
    bool available;              /* false: skipped says why */
    char skipped[120];           /* empty when measured */
    double resolution_s;         /* what the interface promises */
    const char *resolution_from; /* "clock_getres", "struct timeval (1 us)", "1 TSC tick" */
    double granularity_s;        /* smallest step seen between two consecutive readings */
    double call_cost_s;          /* median cost of one reading */
    double min_interval_s;       /* shortest interval timed to TIMER_PRECISION */
    double reps_for_op;          /* repetitions of a TIMER_OP_SECONDS operation to fill it */
};

/* The architecture's counter (kernels/cycle_counter.h): the TSC on x86, CNTVCT_EL0 on aarch64
 * (generic-timer ticks at CNTFRQ_EL0, not cycles). The JSON keeps the x86 names. */
struct tsc_info {
    bool available;        /* x86 with a TSC, aarch64 */
    const char *counter;   /* "TSC", "CNTVCT_EL0"; NULL = "TSC" (recorded x86 results) */
    double hz;             /* what the rdtsc rows use; 0 when unknown */
    const char *hz_source; /* "CPUID leaf 0x15", "CNTFRQ_EL0 (...)", "calibrated against
                              CLOCK_MONOTONIC" */
    double hz_cpuid_15;    /* crystal ratio from CPUID 0x15; 0 when not enumerated */
    double hz_cpuid_16;    /* nominal base frequency from CPUID 0x16; 0 when not enumerated */
    double hz_calibrated;  /* counted against CLOCK_MONOTONIC */
    double calibration_s;  /* how long the calibration counted */
    bool invariant_known;  /* CPUID 0x80000007 exists; always on aarch64 */
    bool invariant;        /* CPUID 0x80000007 EDX bit 8; aarch64: a fixed-rate counter */
};

struct timer_probe_report {
    char clocksource[32]; /* /sys/devices/system/clocksource/clocksource0/current_clocksource */
    double precision;     /* TIMER_PRECISION */
    double op_seconds;    /* TIMER_OP_SECONDS */
    struct tsc_info tsc;
    int n_clocks;
    struct timer_clock_row clocks[TCLOCK_COUNT];
};

/* Measures every clock. stop (NULL: never) is asked before each clock and the TSC
 * calibration; returns 0, or 1 when it answered non-zero (out is then incomplete: not to be
 * reported). */
int timer_probe_run(struct timer_probe_report *out, int (*stop)(void));

/* The repetition maths. A time read from a clock is uncertain by one granularity step (two
 * consecutive readings can never be closer than one reading's cost, so a measured granularity
 * already includes that cost); to be precise to `precision` an interval must be at least
 * granularity / precision long, and an operation of op_s seconds must be repeated
 * ceil(min_interval / op_s) times to fill it. Returns min_interval; *reps gets the count
 * (0 when an input is not positive). */
double timer_min_interval(double granularity_s, double precision, double op_s, double *reps);

#endif
