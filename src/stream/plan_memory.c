#include "src/stream/plan_memory.h"

#include <stdio.h>

#include "hugepages/backend.h"
#include "src/base/log.h"
#include "src/base/page_sizes.h"
#include "src/sys/memory_budget.h"

#define SMALLER_SIZE "choose a smaller --size"
/* The acceptance profile fixes the size: the remedy is memory, or a run without the profile. */
#define PROFILE_SIZE                                                                               \
    "free memory on the node (the acceptance profile's arrays are 4x the LLC each), or run "       \
    "without --acceptance and choose a smaller --size"

static int check_arrays(const struct run_config *r, const struct memory_budget *b, const char *what,
                        const char *remedy)
{
    char size[32], each[48];
    format_bytes(r->array_bytes, size, sizeof(size));
    snprintf(each, sizeof(each), " (3 x %s)", size);
    return memory_budget_check(b, r->total_bytes, what, each, remedy);
}

int plan_recheck_memory(const struct run_config *r, size_t index, size_t n_runs)
{
    const struct mem_backend *b = mem_backend_find(r->pages);
    if (b && b->kind == BACKING_HUGETLB) return EXIT_OK; /* its pool is checked as it maps */
    struct memory_budget budget;
    memory_budget_now(&budget);
    char what[80];
    snprintf(what, sizeof(what), "run %zu of %zu: the three arrays need", index + 1, n_runs);
    return check_arrays(r, &budget, what, SMALLER_SIZE);
}

static int check_memory(const struct run_config *r, const struct sys_info *sys, const char *remedy)
{
    struct memory_budget b;
    memory_budget_of(sys, &b);
    if (b.usable == 0) {
        log_warn("MemAvailable is unknown; cannot check that %llu bytes of arrays fit",
                 (unsigned long long)r->total_bytes);
        return EXIT_OK;
    }
    return check_arrays(r, &b, "the three arrays need", remedy);
}

static bool fits_memory(const struct run_config *r, const struct sys_info *sys)
{
    struct memory_budget b;
    memory_budget_of(sys, &b);
    return memory_budget_fits(&b, r->total_bytes);
}

/* hugetlb pages come from their pool, not from MemAvailable: the pool decides, unless the
 * arrays would not even fit in memory (then reserving pages is no remedy). */
int plan_check_backing(const struct run_config *r, const struct sys_info *sys, bool acceptance)
{
    const char *remedy = acceptance ? PROFILE_SIZE : SMALLER_SIZE;
    const struct mem_backend *b = mem_backend_find(r->pages);
    if (!b) {
        log_error("--pages %s: no such page backing", r->pages);
        return EXIT_USAGE;
    }
    if (b->kind != BACKING_HUGETLB) {
        int rc = check_memory(r, sys, remedy);
        if (rc != EXIT_OK) return rc;
    }
    char why[600];
    if (b->probe(&mem_env_system, r->region_bytes, why, sizeof(why)) == 0) return EXIT_OK;
    if (!fits_memory(r, sys)) return check_memory(r, sys, remedy);
    log_error("--pages %s: %s", r->pages, why);
    return EXIT_RESOURCE;
}
