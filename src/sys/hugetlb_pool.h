#ifndef MEMBENCH_HUGETLB_POOL_H
#define MEMBENCH_HUGETLB_POOL_H

#include <stdint.h>

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

#endif
