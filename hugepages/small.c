/* Base-page backings: the system default, and base pages with THP refused. */
#include "hugepages/backends.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define SMALLER_SIZE "use a smaller --size"

static int default_alloc(struct mem_region *r, size_t bytes, char *why, size_t why_len)
{
    return map_anonymous(r, round_up_to(bytes, page_base_bytes()), 0, backend_default.how,
                         SMALLER_SIZE, why, why_len);
}

static int small_alloc(struct mem_region *r, size_t bytes, char *why, size_t why_len)
{
    if (map_anonymous(r, round_up_to(bytes, page_base_bytes()), 0, backend_4k.how, SMALLER_SIZE,
                      why, why_len) != 0)
        return -1;
    /* EINVAL: a kernel without THP, whose pages are all small anyway */
    if (madvise(r->base, r->bytes, MADV_NOHUGEPAGE) != 0 && errno != EINVAL) {
        snprintf(why, why_len, "madvise(MADV_NOHUGEPAGE) failed: %s", strerror(errno));
        unmap_region(r);
        return -1;
    }
    return 0;
}

const struct mem_backend backend_default = {
    .name = "default",
    .how = "anonymous mmap, no advice (the system's default pages)",
    .kind = BACKING_ANY,
    .page_bytes = 0,
    .probe = probe_nothing,
    .alloc = default_alloc,
    .release = unmap_region,
};

struct mem_backend backend_4k = {
    .name = "4k",
    .how = "anonymous mmap + MADV_NOHUGEPAGE",
    .kind = BACKING_BASE,
    .page_bytes = PAGE_4K, /* until mem_backend_at(): page_base_bytes() */
    .probe = probe_nothing,
    .alloc = small_alloc,
    .release = unmap_region,
};
