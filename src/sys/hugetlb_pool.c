#include "src/sys/hugetlb_pool.h"

#include <stdio.h>
#include <string.h>

static int read_count(const char *dir, const char *name, uint64_t *v)
{
    char path[400];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    unsigned long long x;
    int ok = fscanf(f, "%llu", &x) == 1;
    fclose(f);
    if (ok) *v = x;
    return ok ? 0 : -1;
}

int hugetlb_pool_read(const char *sys_root, uint64_t page_bytes, struct hugetlb_pool *out)
{
    memset(out, 0, sizeof(*out));
    out->page_bytes = page_bytes;
    snprintf(out->dir, sizeof(out->dir), "%s/kernel/mm/hugepages/hugepages-%llukB", sys_root,
             (unsigned long long)(page_bytes / 1024));
    if (read_count(out->dir, "free_hugepages", &out->free) != 0) return -1;
    /* the rest are informative: a pool without them is still a pool */
    read_count(out->dir, "nr_hugepages", &out->total);
    read_count(out->dir, "resv_hugepages", &out->reserved);
    read_count(out->dir, "surplus_hugepages", &out->surplus);
    read_count(out->dir, "nr_overcommit_hugepages", &out->overcommit);
    return 0;
}

uint64_t hugetlb_pool_available(const struct hugetlb_pool *p)
{
    uint64_t free = p->free > p->reserved ? p->free - p->reserved : 0;
    return free + (p->overcommit > p->surplus ? p->overcommit - p->surplus : 0);
}
