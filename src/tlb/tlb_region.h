#ifndef MEMBENCH_TLB_REGION_H
#define MEMBENCH_TLB_REGION_H

#include <stdbool.h>
#include <stddef.h>

#include "hugepages/backend.h"

/* One region of the TLB probe's memory and the backend that mapped it. */
struct tlb_region {
    char *base;
    size_t bytes;
    const struct mem_backend *backend;
    struct mem_region mr;
    const char *how;
};

void tlb_region_release(struct tlb_region *r);
/* Each returns 0, or -1 with the reason in why. */
int tlb_region_alloc_small(struct tlb_region *r, size_t bytes, const char *pages_name, char *why,
                           size_t why_len);
int tlb_region_alloc_huge(struct tlb_region *r, size_t bytes, char *why, size_t why_len);
bool tlb_region_touch(struct tlb_region *r, size_t step);

/* The huge sweep's page: the PMD size (2 MB with 4 KB base pages, 512 MB with 64 KB). */
uint64_t tlb_huge_bytes(void);
/* "the 4 KB sweep" (huge false) or "the 2 MB sweep", in the machine's sizes. */
const char *tlb_sweep_name(bool huge);

#endif
