#ifndef MEMBENCH_POOL_H
#define MEMBENCH_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "hugepages/backend.h"

/* One hugetlb pool as /sys/kernel/mm/hugepages/hugepages-<kB>kB shows it. */
struct hugetlb_pool {
    uint64_t page_bytes;
    uint64_t total, free, reserved, surplus, overcommit;
    char dir[256];
};

/* Reads the pool of one page size. Returns 0, or -1 when this kernel has no such pool. */
int hugetlb_pool_read(const char *sys_root, uint64_t page_bytes, struct hugetlb_pool *out);

/* Pages a new mapping can get now: free minus those promised to other mappings, plus what
 * overcommit may still add. */
uint64_t hugetlb_pool_available(const struct hugetlb_pool *p);

/* 0 when the pool of page_bytes can back `bytes` now; else -1 with the numbers and the
 * remedy (how to reserve the missing pages) in why. */
int hugetlb_pool_check(const struct mem_env *env, uint64_t page_bytes, size_t bytes, char *why,
                       size_t why_len);

/* 0 when transparent huge pages can be had with madvise; else -1 with the remedy. */
int thp_mode_check(const struct mem_env *env, char *why, size_t why_len);

#endif
