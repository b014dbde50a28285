#include "src/stream/plan_memory.h"

#include <stdio.h>
#include <string.h>

#include "hugepages/backend.h"
#include "hugepages/heap_env.h"
#include "src/stream/array_layout.h"
#include "src/base/log.h"
#include "src/base/page_sizes.h"
#include "src/sys/memory_budget.h"

#define SMALLER_SIZE "choose a smaller --size"
/* The acceptance profile fixes the size: the remedy is memory, or a run without the profile. */
#define PROFILE_SIZE                                                                               \
    "free memory on the node (the acceptance profile's arrays are 4x the LLC each), or run "       \
    "without --acceptance and choose a smaller --size"

/* The 2m pages' boundary (and x86's THP); a PMD of 512 MB would cost too much padding. */
#define ARRAY_ALIGN PAGE_2M

int plan_lay_out(struct run_config *r)
{
    struct array_layout layout;
    if (array_layout(r->elements, elem_size(r->type), r->offset, ARRAY_ALIGN, &layout) != 0)
        return -1;
    r->array_bytes = layout.array_bytes;
    r->total_bytes = layout.total_bytes;
    r->stride_bytes = layout.stride_bytes;
    r->region_bytes = layout.region_bytes;
    return 0;
}

bool plan_backing_serves(const struct run_config *r, const struct sys_info *sys, char *why,
                         size_t why_len)
{
    struct memory_budget budget;
    memory_budget_of(sys, &budget);
    if (!memory_budget_fits(&budget, r->total_bytes)) {
        memory_budget_describe(&budget, why, why_len);
        return false;
    }
    const struct mem_backend *b = mem_backend_find(r->pages);
    if (!b || b->kind != BACKING_HUGETLB) return true;
    char inner[600];
    if (b->probe(&mem_env_system, r->region_bytes, inner, sizeof(inner)) == 0) return true;
    snprintf(why, why_len, "--pages %s: %.200s", r->pages, inner);
    return false;
}

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

static void join_words(const char *const *words, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", words[i]);
}

/* libhugetlbfs's heap mode (hugectl --heap, HUGETLB_MORECORE) backs malloc through glibc's
 * __morecore hook, gone since glibc 2.34; membench's arrays are mmap'ed and never were malloc'ed.
 * So membench honours the variable itself: it picks the backing when --pages is absent. */
int plan_default_pages(const struct shared_options *o, const struct sys_info *sys,
                       const char **pages, const char **from)
{
    *pages = "default";
    *from = "default";
    const char *morecore = sys->hugetlb_morecore;
    const char *wanted = NULL;
    if (morecore_pages(morecore, sys->default_hugepage_bytes, &wanted) != 0) {
        log_error("HUGETLB_MORECORE='%.40s' is not yes, no, thp or a huge page size such as 2M "
                  "or 1G; fix or unset it",
                  morecore);
        return EXIT_USAGE;
    }
    if (wanted && o->n_pages > 0) {
        char list[256];
        join_words(o->pages, o->n_pages, list, sizeof(list));
        log_note("--pages %s overrides HUGETLB_MORECORE=%s", list, morecore);
    } else if (wanted) {
        *pages = wanted;
        *from = "HUGETLB_MORECORE";
        int major = 0, minor = 0;
        bool no_hook = sscanf(sys->glibc_version, "%d.%d", &major, &minor) == 2 &&
                       (major > 2 || (major == 2 && minor >= 34));
        log_note("HUGETLB_MORECORE=%s: libhugetlbfs cannot back membench's arrays (they are "
                 "mmap'ed, not malloc'ed%s%s%s), so membench maps them with --pages %s itself",
                 morecore, no_hook ? ", and glibc " : "", no_hook ? sys->glibc_version : "",
                 no_hook ? " has no __morecore hook" : "", wanted);
    }
    const char *tunable = sys->glibc_malloc_hugetlb;
    if (*tunable && strcmp(tunable, "0") != 0) {
        const char *like = malloc_hugetlb_pages(tunable, sys->default_hugepage_bytes);
        char hint[64] = "";
        if (like) snprintf(hint, sizeof(hint), "; --pages %s does the same for them", like);
        log_note("GLIBC_TUNABLES glibc.malloc.hugetlb=%s changes only malloc, not membench's "
                 "mmap'ed arrays%s",
                 tunable, hint);
    }
    return EXIT_OK;
}
