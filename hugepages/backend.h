#ifndef MEMBENCH_BACKEND_H
#define MEMBENCH_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mem_region {
    void *base;
    size_t bytes;
};

/* A page backing for the benchmark arrays. probe() says whether it can serve `bytes` here and,
 * if not, why and what to do; alloc() never falls back silently to another backing. */
struct mem_backend {
    const char *name; /* the --pages value */
    const char *how;  /* how memory is obtained, for the report */
    int (*probe)(size_t bytes, char *why, size_t why_len);
    int (*alloc)(struct mem_region *r, size_t bytes, char *why, size_t why_len);
    void (*release)(struct mem_region *r);
};

/* NULL when the name is not a known backing. */
const struct mem_backend *mem_backend_find(const char *name);

/* What really backs a range after first touch, read from /proc/self/smaps. */
struct backing_info {
    uint64_t page_size_bytes; /* 0 when it could not be verified */
    bool verified;
    double thp_fraction; /* share of resident bytes on transparent huge pages */
    uint64_t rss_bytes, anon_huge_bytes, hugetlb_bytes;
    char how[96];
};

struct smaps_totals {
    bool found;
    uint64_t rss, anon_huge, hugetlb;
    uint64_t kernel_page_size; /* largest KernelPageSize among the overlapping mappings */
};

/* Sums the smaps entries that overlap [start, end). Returns 0, or -1 if unreadable. */
int smaps_scan(const char *path, uintptr_t start, uintptr_t end, struct smaps_totals *out);

/* Fills info from the smaps of [start, end); how is copied from the backend. */
void backing_verify(const char *smaps_path, uintptr_t start, uintptr_t end, const char *how,
                    struct backing_info *info);

#endif
