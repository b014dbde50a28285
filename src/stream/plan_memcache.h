#ifndef MEMBENCH_PLAN_MEMCACHE_H
#define MEMBENCH_PLAN_MEMCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "src/stream/plan.h"

/* The size rule's second bound: each array at least as large as the memory-side caches in
 * front of the nodes its pages land on, so that a cyclic sweep over the three arrays cannot
 * be held by them and the rates are the memory's behind them. */

#define MEMCACHE_RULE_LABEL "memory-side cache (each array at least its size)"

/* A run of the default size: its arrays widened to its memory-side caches' size when the
 * memory budget (and a hugetlb pool) holds them; else left at the LLC rule's size. */
void plan_memcache_widen(struct run_config *r, const struct sys_info *sys);

/* After the run's byte counts are known: sets in_memcache. Under --acceptance (which fixes the
 * size) arrays within the cache are refused: EXIT_RESOURCE after one error line naming the
 * arrays, the cache and the memory budget. */
int plan_memcache_check(struct run_config *r, const struct sys_info *sys, bool acceptance);

/* "arrays (220.0 MiB each) fit in the 384.0 GiB memory-side cache in front of nodes 0-3: the
 * figures are the memory-side cache's, not the memory's" */
void plan_memcache_note(const struct run_config *r, char *buf, size_t len);

#endif
