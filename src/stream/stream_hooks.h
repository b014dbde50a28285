#ifndef MEMBENCH_STREAM_HOOKS_H
#define MEMBENCH_STREAM_HOOKS_H

#include "kernels/kernel_table.h"

/* The test hooks (src/base/test_hooks.h) that name kernel types: base cannot include kernels/,
 * so test_hooks points here. Only membench-hooked fills them. */
struct stream_hooks {
    /* the kernel to run instead of the variant the dispatch chose for k */
    kernel_fn (*kernel)(enum kernel_id k, enum elem_type type, kernel_fn chosen);
    /* multiply kernel k's measured rates by this (its times divided); 0 = as measured */
    double rate_scale[KERNEL_COUNT];
};

#endif
