#ifndef MEMBENCH_TIMER_KERNEL_H
#define MEMBENCH_TIMER_KERNEL_H

/* The timer probe's timed loops: each clock read back to back, for its smallest step and the
 * cost of one reading, and the counter counted against CLOCK_MONOTONIC. No I/O here: the
 * engine (src/probes/timer_probe.c) names the clocks and does the repetition maths. */

#include <stdint.h>

enum timer_clock {
    TCLOCK_MONOTONIC,
    TCLOCK_MONOTONIC_RAW,
    TCLOCK_GETTIMEOFDAY,
    TCLOCK_RDTSC,  /* the counter's plain read: rdtsc, cntvct_el0 */
    TCLOCK_RDTSCP, /* its ordered read: rdtscp, isb+cntvct_el0 */
    TCLOCK_COUNT
};

/* Smallest step between consecutive distinct readings of a clock, in its units (ns, us or
 * counter ticks; UINT64_MAX when none was seen), and the median cost of one reading in
 * seconds, timed with CLOCK_MONOTONIC. */
void timer_clock_measure(enum timer_clock clock, uint64_t *step, double *cost_s);

/* Counter ticks per second, counted over ~50 ms of CLOCK_MONOTONIC; *seconds gets how long. */
double timer_calibrate_counter(double *seconds);

/* The TSC frequency from CPUID leaf 0x15 (EAX denominator, EBX numerator, ECX crystal Hz);
 * 0 when the leaf does not enumerate it. */
double tsc_hz_from_leaf15(uint32_t eax, uint32_t ebx, uint32_t ecx);

#endif
