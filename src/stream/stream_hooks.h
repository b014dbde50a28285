#ifndef MEMBENCH_STREAM_HOOKS_H
#define MEMBENCH_STREAM_HOOKS_H

#include "kernels/kernel_table.h"

/* The test hooks (src/base/test_hooks.h) that name kernel types: base cannot include kernels/,
 * so test_hooks points here. Only membench-hooked fills them. */
struct stream_hooks {
    /* the kernel to run instead of the variant the dispatch chose for k */
    kernel_fn (*kernel)(enum kernel_id k, enum elem_type type, kernel_fn chosen);
    /* then the kernel to run instead of k's variant with that store kind (both are built for
     * --stores auto) */
    kernel_fn (*store_variant)(enum kernel_id k, enum store_kind kind, kernel_fn chosen);
    /* report this best rate (MB/s) for kernel k instead of the measured one, its times
     * following; 0 = as measured */
    double rate_fixed[KERNEL_COUNT];
    /* then multiply kernel k's rates by this (its times divided); 0 = as they are */
    double rate_scale[KERNEL_COUNT];
    /* then every kernel's rates of this STREAM run times the factor it returns (called once per
     * run: the Nth run of the process, e.g. of --reference-runs, its own); NULL = none */
    double (*run_scale)(void);
    /* a steady node with one noisy repetition: every timed repetition of every kernel lasts
     * repetition_pad_s (sleeping the rest), repetition slow_repetition (counted from 1, the
     * warm-up; 0 = none) slow_factor times that; 0 = as measured */
    double repetition_pad_s;
    unsigned slow_repetition;
    double slow_factor;
};

#endif
