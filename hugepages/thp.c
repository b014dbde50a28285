/* Transparent huge pages: a 2 MiB-aligned mapping the kernel is asked to back with THPs. */
#include "hugepages/backends.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "hugepages/pool.h"

static int thp_probe(const struct mem_env *env, size_t bytes, char *why, size_t why_len)
{
    (void)bytes;
    return thp_mode_check(env, why, why_len);
}

/* mmap only promises base-page alignment: map one huge page more and trim both ends, so that
 * every 2 MiB of the region can be one huge page. */
static int thp_alloc(struct mem_region *r, size_t bytes, char *why, size_t why_len)
{
    size_t len = round_up_to(bytes, PAGE_2M);
    struct mem_region raw;
    if (map_anonymous(&raw, len + PAGE_2M, 0, backend_thp.how, "use a smaller --size", why,
                      why_len) != 0)
        return -1;
    char *start = raw.base;
    char *aligned = (char *)round_up_to((size_t)start, PAGE_2M);
    char *end = start + raw.bytes;
    if (aligned > start) munmap(start, (size_t)(aligned - start));
    if (end > aligned + len) munmap(aligned + len, (size_t)(end - (aligned + len)));
    r->base = aligned;
    r->bytes = len;
    snprintf(r->how, sizeof(r->how), "%s", backend_thp.how);
    r->libhugetlbfs = false;
    if (madvise(r->base, r->bytes, MADV_HUGEPAGE) != 0) {
        snprintf(why, why_len,
                 "madvise(MADV_HUGEPAGE) failed: %s; this kernel cannot give transparent huge "
                 "pages, use --pages 2m",
                 strerror(errno));
        unmap_region(r);
        return -1;
    }
    return 0;
}

const struct mem_backend backend_thp = {
    .name = "thp",
    .how = "2 MiB-aligned anonymous mmap + MADV_HUGEPAGE",
    .kind = BACKING_THP,
    .page_bytes = PAGE_2M,
    .probe = thp_probe,
    .alloc = thp_alloc,
    .release = unmap_region,
};
