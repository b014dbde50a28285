#include "hugepages/backends.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "src/base/parse.h"

const struct mem_env mem_env_system = {"/sys", "/proc/meminfo"};

static const struct mem_backend *const backends[] = {
    &backend_default, &backend_4k, &backend_thp, &backend_2m, &backend_1g,
};

const struct mem_backend *mem_backend_find(const char *name)
{
    for (size_t i = 0; mem_backend_at(i); i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

const struct mem_backend *mem_backend_at(size_t i)
{
    if (backend_4k.page_bytes != page_base_bytes()) backend_4k.page_bytes = page_base_bytes();
    if (backend_thp.page_bytes != page_pmd_bytes()) backend_thp_describe();
    return i < sizeof(backends) / sizeof(backends[0]) ? backends[i] : NULL;
}

int map_anonymous(struct mem_region *r, size_t bytes, int flags, const char *how,
                  const char *remedy, char *why, size_t why_len)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    if (p == MAP_FAILED) {
        char size[32];
        format_bytes(bytes, size, sizeof(size));
        snprintf(why, why_len, "mmap of %s (%s) failed: %s; %s", size, how, strerror(errno),
                 remedy);
        return -1;
    }
    r->base = p;
    r->bytes = bytes;
    snprintf(r->how, sizeof(r->how), "%s", how);
    r->libhugetlbfs = false;
    return 0;
}

void unmap_region(struct mem_region *r)
{
    if (r->base) munmap(r->base, r->bytes);
    r->base = NULL;
    r->bytes = 0;
}

int probe_nothing(const struct mem_env *env, size_t bytes, char *why, size_t why_len)
{
    (void)env;
    (void)bytes;
    (void)why;
    (void)why_len;
    return 0;
}
