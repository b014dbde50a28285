#ifndef MEMBENCH_BACKENDS_H
#define MEMBENCH_BACKENDS_H

/* Shared by the backend files; not part of the interface. */

#include "hugepages/backend.h"

extern const struct mem_backend backend_default, backend_2m, backend_1g;
/* Their page sizes are the machine's (the base page, the PMD size): mem_backend_find() and
 * mem_backend_at() fill them in. */
extern struct mem_backend backend_4k, backend_thp;
void backend_thp_describe(void);

static inline size_t round_up_to(size_t v, size_t to)
{
    return (v + to - 1) / to * to;
}

/* Private anonymous mapping of exactly bytes (already rounded) with extra mmap flags; on
 * failure why names the call, errno and the remedy. */
int map_anonymous(struct mem_region *r, size_t bytes, int flags, const char *how,
                  const char *remedy, char *why, size_t why_len);
void unmap_region(struct mem_region *r);
int probe_nothing(const struct mem_env *env, size_t bytes, char *why, size_t why_len);

#endif
