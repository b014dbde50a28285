#ifndef MEMBENCH_CYCLE_COUNTER_H
#define MEMBENCH_CYCLE_COUNTER_H

/* The user-space counter an architecture offers beside clock_gettime (which stays the timer of
 * record): x86's time-stamp counter (kernels/x86), aarch64's generic timer CNTVCT_EL0
 * (kernels/arm), elsewhere none. Neither counts core cycles on a current CPU: an invariant TSC
 * ticks at a nominal rate, the generic timer at CNTFRQ_EL0 (typically 25 MHz to 1 GHz).
 *
 *   cycle_counter_read()          one reading, as cheap as the architecture allows
 *   cycle_counter_read_ordered()  one reading after the earlier instructions completed
 *                                 (rdtscp; isb + mrs)
 *   CYCLE_COUNTER_NAME            the row names of the two reads and the counter's name
 *   CYCLE_COUNTER_COUNTS_CYCLES   1 when the TLB probe may call its ticks cycles (the TSC,
 *                                 "the core clock may differ"); 0 for timer ticks and none
 *   CYCLE_COUNTER_NOT_CYCLES      why there are no cycle figures without a core-clock
 *                                 estimate */

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include "kernels/x86/cycle_counter_x86.h"
#elif defined(__aarch64__)
#include "kernels/arm/cycle_counter_arm.h"
#else
#define CYCLE_COUNTER_AVAILABLE 0
#define CYCLE_COUNTER_NAME "none"
#define CYCLE_COUNTER_READ_NAME "cycle counter"
#define CYCLE_COUNTER_ORDERED_NAME "ordered cycle counter"
#define CYCLE_COUNTER_TICK "1 tick"
#define CYCLE_COUNTER_COUNTS_CYCLES 0
#define CYCLE_COUNTER_HZ_FROM_CPUID 0
#define CYCLE_COUNTER_NOT_CYCLES "no user-space cycle counter on this architecture"
static inline uint64_t cycle_counter_read(void)
{
    return 0;
}
static inline uint64_t cycle_counter_read_ordered(void)
{
    return 0;
}
#endif
#ifndef CORE_CLOCK_ADD_CHAIN
#define CORE_CLOCK_ADD_CHAIN 0 /* no dependent-add chain to estimate the core clock with */
#endif

/* What the architecture documents about its counter (no measurement). */
struct cycle_counter_facts {
    bool available;         /* false: missing says why */
    const char *missing;    /* "unknown: no user-space cycle counter on this architecture" */
    bool ordered_available; /* false: ordered_missing says why */
    const char *ordered_missing;
    double hz_documented;  /* CPUID leaf 0x15 or CNTFRQ_EL0; 0 when not enumerated */
    const char *hz_source; /* "CPUID leaf 0x15", "CNTFRQ_EL0 (generic timer ticks, ...)" */
    double hz_nominal;     /* x86 CPUID 0x16 base frequency; 0 elsewhere */
    bool invariant_known;  /* its rate is documented constant, or not */
    bool invariant;
};

/* kernels/x86/cycle_counter_x86.c, kernels/arm/cycle_counter_arm.c or
 * kernels/cycle_counter_none.c, by architecture. */
void cycle_counter_describe(struct cycle_counter_facts *f);

#endif
