#include "hugepages/backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static int default_probe(size_t bytes, char *why, size_t why_len)
{
    (void)bytes;
    (void)why;
    (void)why_len;
    return 0;
}

static int default_alloc(struct mem_region *r, size_t bytes, char *why, size_t why_len)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(why, why_len, "mmap of %zu bytes failed: %s; use a smaller --size", bytes,
                 strerror(errno));
        return -1;
    }
    r->base = p;
    r->bytes = bytes;
    return 0;
}

static void munmap_release(struct mem_region *r)
{
    if (r->base) munmap(r->base, r->bytes);
    r->base = NULL;
    r->bytes = 0;
}

static const struct mem_backend backends[] = {
    {"default", "anonymous mmap, no advice (the system's default pages)", default_probe,
     default_alloc, munmap_release},
};

const struct mem_backend *mem_backend_find(const char *name)
{
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
        if (strcmp(backends[i].name, name) == 0) return &backends[i];
    return NULL;
}
