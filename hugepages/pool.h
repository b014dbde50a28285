#ifndef MEMBENCH_POOL_H
#define MEMBENCH_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "hugepages/backend.h"
#include "src/sys/hugetlb_pool.h"

/* 0 when the pool of page_bytes can back `bytes` now; else -1 with the numbers and the
 * remedy (how to reserve the missing pages) in why. */
int hugetlb_pool_check(const struct mem_env *env, uint64_t page_bytes, size_t bytes, char *why,
                       size_t why_len);

/* 0 when transparent huge pages can be had with madvise; else -1 with the remedy. */
int thp_mode_check(const struct mem_env *env, char *why, size_t why_len);

#endif
