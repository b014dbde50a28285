#ifndef MEMBENCH_TEST_HOOKS_H
#define MEMBENCH_TEST_HOOKS_H

#include <stdbool.h>

#include "hugepages/backend.h"
#include "kernels/kernel_table.h"

/* Fault injection for the tests. Only membench-hooked (tests/hooks/, built with
 * -DMEMBENCH_TEST_HOOKS=ON and never installed) sets test_hooks, from its MEMBENCH_TEST_*
 * variables; in membench it stays NULL: nothing in the product reads them. */
struct test_hooks {
    bool corrupt_result;                /* flip a bit of a[n/2] after the last kernel */
    const struct mem_backend *judge_as; /* judge every region's pages against this backend */
    const char *sys_root;               /* the fault probe reads ROOT/kernel/mm/..., not /sys */
    /* the kernel to run instead of the variant the dispatch chose for k */
    kernel_fn (*kernel)(enum kernel_id k, enum elem_type type, kernel_fn chosen);
    /* multiply kernel k's measured rates by this (its times divided); 0 = as measured */
    double rate_scale[KERNEL_COUNT];
    /* cluster runs: this rank's host name, and ranks grouped into nodes by it (not by shared
     * memory), so that one machine acts as several nodes */
    const char *hostname;
    bool stop_before_report; /* cluster runs: raise SIGSTOP instead of reporting (a hung node) */
};

extern const struct test_hooks *test_hooks;

#endif
