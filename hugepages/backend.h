#ifndef MEMBENCH_BACKEND_H
#define MEMBENCH_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/base/page_sizes.h"

/* Where the kernel's facts are read from; tests point this at fake trees. */
struct mem_env {
    const char *sys_root; /* "/sys" */
    const char *meminfo;  /* "/proc/meminfo" */
};

extern const struct mem_env mem_env_system;

struct mem_region {
    void *base;
    size_t bytes;      /* mapped length: the request rounded up to the backing's page size */
    char how[128];     /* how this region was obtained, for the report */
    bool libhugetlbfs; /* from get_huge_pages(): released with free_huge_pages() */
};

enum backing_kind {
    BACKING_ANY,     /* whatever the kernel gives; verification only reports it */
    BACKING_BASE,    /* base pages only, no THP */
    BACKING_THP,     /* transparent huge pages, best effort: coverage is reported */
    BACKING_HUGETLB, /* hugetlb pages of page_bytes, all or nothing */
};

/* A page backing for the benchmark arrays (or any other buffer, of any size). probe() says
 * whether it can serve `bytes` here and, if not, why and what to do; alloc() rounds the length
 * up to its page size and never falls back silently to another backing. Both return 0 or -1
 * with a one-line reason in why. */
struct mem_backend {
    const char *name; /* the --pages value */
    const char *how;  /* how memory is obtained, before alloc() says exactly */
    enum backing_kind kind;
    uint64_t page_bytes; /* the page size asked for; 0 for BACKING_ANY */
    int (*probe)(const struct mem_env *env, size_t bytes, char *why, size_t why_len);
    int (*alloc)(struct mem_region *r, size_t bytes, char *why, size_t why_len);
    void (*release)(struct mem_region *r);
};

/* NULL when the name is not a known backing. */
const struct mem_backend *mem_backend_find(const char *name);
/* The i-th backing, in the order --pages lists them; NULL after the last. */
const struct mem_backend *mem_backend_at(size_t i);

/* What really backs a range after first touch, read from /proc/self/smaps. */
struct backing_info {
    uint64_t page_size_bytes; /* as observed; 0 when smaps shows no mapping there */
    bool verified;            /* smaps was read and shows the backing that was asked for */
    double thp_fraction;      /* share of resident bytes on transparent huge pages */
    uint64_t rss_bytes, anon_huge_bytes, hugetlb_bytes;
    char how[128];
    char mismatch[400]; /* why verification failed; empty when it did not fail */
};

struct smaps_totals {
    bool found;
    uint64_t rss, anon_huge, hugetlb;
    uint64_t kernel_page_size;     /* largest KernelPageSize among the overlapping mappings */
    uint64_t kernel_page_size_min; /* smallest */
};

/* Sums the smaps entries that overlap [start, end). Returns 0, or -1 if unreadable. */
int smaps_scan(const char *path, uintptr_t start, uintptr_t end, struct smaps_totals *out);

/* Fills info from the smaps entries of [start, end) and judges them against what backend b
 * promises: verified is false, with the reason in mismatch, when they differ. */
void backing_verify(const char *smaps_path, const struct mem_backend *b, uintptr_t start,
                    uintptr_t end, const char *how, struct backing_info *info);

#endif
