/* hugetlb pages from the reserved pools: 2 MiB (libhugetlbfs or MAP_HUGETLB) and 1 GiB. */
#include "hugepages/backends.h"

#include <stddef.h> /* hugetlbfs.h uses size_t without including it */
#include <hugetlbfs.h>
#include <stdio.h>
#include <sys/mman.h>

#include "hugepages/pool.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#endif

#define POOL_RACE                                                                                  \
    "the hugetlb pool shrank since it was checked (another process?); see `grep Huge "             \
    "/proc/meminfo` and reserve more pages"

static int probe_2m(const struct mem_env *env, size_t bytes, char *why, size_t why_len)
{
    return hugetlb_pool_check(env, PAGE_2M, bytes, why, why_len);
}

static int probe_1g(const struct mem_env *env, size_t bytes, char *why, size_t why_len)
{
    return hugetlb_pool_check(env, PAGE_1G, bytes, why, why_len);
}

/* libhugetlbfs's get_huge_pages() when it knows a hugetlbfs mount for 2 MiB pages and they are
 * its default size (GHP_DEFAULT); MAP_HUGETLB otherwise. Either way: 2 MiB hugetlb pages. */
static int alloc_2m(struct mem_region *r, size_t bytes, char *why, size_t why_len)
{
    size_t len = round_up_to(bytes, PAGE_2M);
    const char *mount = hugetlbfs_find_path_for_size((long)PAGE_2M);
    const char *how = "mmap MAP_HUGETLB|MAP_HUGE_2MB (libhugetlbfs found no hugetlbfs mount)";
    if (mount && gethugepagesize() == (long)PAGE_2M) {
        void *p = get_huge_pages(len, GHP_DEFAULT);
        if (p) {
            r->base = p;
            r->bytes = len;
            r->libhugetlbfs = true;
            snprintf(r->how, sizeof(r->how), "libhugetlbfs get_huge_pages() on hugetlbfs %s",
                     mount);
            return 0;
        }
        how = "mmap MAP_HUGETLB|MAP_HUGE_2MB (libhugetlbfs get_huge_pages() failed)";
    }
    return map_anonymous(r, len, MAP_HUGETLB | MAP_HUGE_2MB, how, POOL_RACE, why, why_len);
}

static int alloc_1g(struct mem_region *r, size_t bytes, char *why, size_t why_len)
{
    return map_anonymous(r, round_up_to(bytes, PAGE_1G), MAP_HUGETLB | MAP_HUGE_1GB, backend_1g.how,
                         POOL_RACE, why, why_len);
}

static void release_hugetlb(struct mem_region *r)
{
    if (r->base && r->libhugetlbfs) {
        free_huge_pages(r->base);
        r->base = NULL;
        r->bytes = 0;
        return;
    }
    unmap_region(r);
}

const struct mem_backend backend_2m = {
    .name = "2m",
    .how = "hugetlb, 2 MiB pages from the reserved pool",
    .kind = BACKING_HUGETLB,
    .page_bytes = PAGE_2M,
    .probe = probe_2m,
    .alloc = alloc_2m,
    .release = release_hugetlb,
};

const struct mem_backend backend_1g = {
    .name = "1g",
    .how = "mmap MAP_HUGETLB|MAP_HUGE_1GB",
    .kind = BACKING_HUGETLB,
    .page_bytes = PAGE_1G,
    .probe = probe_1g,
    .alloc = alloc_1g,
    .release = release_hugetlb,
};
