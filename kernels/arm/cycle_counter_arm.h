#ifndef MEMBENCH_CYCLE_COUNTER_ARM_H
#define MEMBENCH_CYCLE_COUNTER_ARM_H

/* The generic timer's virtual count, CNTVCT_EL0 (included by kernels/cycle_counter.h only).
 * Linux lets EL0 read it (CNTKCTL_EL1.EL0VCTEN); it ticks at CNTFRQ_EL0, not the core clock. */
#include <stdint.h>

#define CYCLE_COUNTER_AVAILABLE 1
#define CYCLE_COUNTER_NAME "CNTVCT_EL0"
#define CYCLE_COUNTER_READ_NAME "cntvct_el0"
#define CYCLE_COUNTER_ORDERED_NAME "isb+cntvct_el0"
#define CYCLE_COUNTER_TICK "1 timer tick"
#define CYCLE_COUNTER_COUNTS_CYCLES 0
#define CYCLE_COUNTER_HZ_FROM_CPUID 0
#define CYCLE_COUNTER_NOT_CYCLES                                                                   \
    "CNTVCT_EL0 counts generic-timer ticks, not core cycles, and there is no core-clock "          \
    "estimate on this CPU; times are in ns"

static inline uint64_t cycle_counter_read(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}

/* isb: the read waits for the instructions before it, as rdtscp does on x86 */
static inline uint64_t cycle_counter_read_ordered(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}

static inline uint64_t cycle_counter_arm_frequency(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
    return v;
}

#endif
