/* Transparent huge pages: a PMD-aligned mapping (2 MiB with 4 KiB base pages, 512 MiB with 64 KiB)
 * the kernel is asked to back with THPs. */
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
 * every PMD-sized piece of the region can be one huge page. */
static int thp_alloc(struct mem_region *r, size_t bytes, char *why, size_t why_len)
{
    const size_t pmd = page_pmd_bytes();
    size_t len = round_up_to(bytes, pmd);
    struct mem_region raw;
    if (map_anonymous(&raw, len + pmd, 0, backend_thp.how, "use a smaller --size", why, why_len) !=
        0)
        return -1;
    char *start = raw.base;
    char *aligned = (char *)round_up_to((size_t)start, pmd);
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

static char thp_how[80] = "2 MiB-aligned anonymous mmap + MADV_HUGEPAGE";

void backend_thp_describe(void)
{
    char pmd[PAGE_TEXT_LEN];
    backend_thp.page_bytes = page_pmd_bytes();
    snprintf(thp_how, sizeof(thp_how), "%s-aligned anonymous mmap + MADV_HUGEPAGE",
             page_size_iec(backend_thp.page_bytes, pmd));
}

struct mem_backend backend_thp = {
    .name = "thp",
    .how = thp_how,
    .kind = BACKING_THP,
    .page_bytes = PAGE_2M, /* until mem_backend_at(): page_pmd_bytes() */
    .probe = thp_probe,
    .alloc = thp_alloc,
    .release = unmap_region,
};
