#ifndef MEMBENCH_WORK_SHARE_H
#define MEMBENCH_WORK_SHARE_H

#include <stdatomic.h>
#include <stddef.h>

#include "kernels/kernel_table.h"

/* Dynamic work-sharing against the end-of-pass skew: threads that are neighbours in the static
 * split and on the same NUMA node (and --per-domain domain) form a group; each pass, the group's
 * threads take chunks of the group's range in turn until none is left, so a thread slowed by
 * another process leaves its last chunks to the others. Pages stay on the node that
 * first-touched them: no chunk crosses a group. */

#define WORK_SHARE_CHUNK_BYTES (512u << 10)

struct share_group {
    _Alignas(64) atomic_size_t next;
    size_t lo, hi;
};

struct work_share {
    int n_groups;
    struct share_group *groups;
    int *group_of; /* per thread */
    size_t chunk;  /* elements */
};

/* node[t] (and domain[t], NULL without --per-domain) of each of n threads; a negative node
 * (unknown) keeps the thread alone. 0, or -1 out of memory. */
int work_share_init(struct work_share *ws, size_t n, int nthreads, enum elem_type type,
                    const int *node, const int *domain);
void work_share_free(struct work_share *ws);

/* Before a pass, by one thread while no other runs a kernel. */
void work_share_reset(struct work_share *ws);

/* Thread t's share of one pass of fn; returns the sum of its partial sums. */
double work_share_run(struct work_share *ws, int t, kernel_fn fn, void *a, void *b, void *c,
                      double q);

#endif
