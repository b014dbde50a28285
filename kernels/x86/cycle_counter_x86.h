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

/* 100 dependent adds, one core cycle each on x86-64 cores: the TLB probe's core-clock estimate.
 * Register, not immediate, operands: some cores fold immediate adds at rename. */
#define CORE_CLOCK_ADD_CHAIN 1
static inline uint64_t core_clock_add_chain_100(uint64_t x, uint64_t one)
{
    __asm__ volatile(".rept 100\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
    return x;
}

#endif
