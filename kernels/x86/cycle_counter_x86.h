#ifndef MEMBENCH_CYCLE_COUNTER_X86_H
#define MEMBENCH_CYCLE_COUNTER_X86_H

/* The time-stamp counter (included by kernels/cycle_counter.h only). */
#include <stdint.h>
#include <x86intrin.h>

#define CYCLE_COUNTER_AVAILABLE 1
#define CYCLE_COUNTER_NAME "TSC"
#define CYCLE_COUNTER_READ_NAME "rdtsc"
#define CYCLE_COUNTER_ORDERED_NAME "rdtscp"
#define CYCLE_COUNTER_TICK "1 TSC tick"
#define CYCLE_COUNTER_COUNTS_CYCLES 1
#define CYCLE_COUNTER_HZ_FROM_CPUID 1
#define CYCLE_COUNTER_NOT_CYCLES "no TSC and no core-clock estimate on this CPU"

static inline uint64_t cycle_counter_read(void)
{
    return __rdtsc();
}

static inline uint64_t cycle_counter_read_ordered(void)
{
    unsigned aux;
    return __rdtscp(&aux);
}

#endif
