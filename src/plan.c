#include "src/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hugepages/backend.h"
#include "hugepages/heap_env.h"
#include "src/log.h"

#define ARRAY_ALIGN (2u << 20)

int default_threads(const struct topology_facts *topo, unsigned *threads, const char **from,
                    char *why, size_t why_len)
{
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env) {
        char first[32];
        size_t len = strcspn(env, ",");
        snprintf(first, sizeof(first), "%.*s", (int)(len < 31 ? len : 31), env);
        uint64_t v;
        char inner[200];
        if (parse_uint(first, 1, 4096, &v, inner, sizeof(inner)) != 0) {
            snprintf(why, why_len, "OMP_NUM_THREADS='%.40s': %s; set it to a thread count", env,
                     inner);
            return -1;
        }
        *threads = (unsigned)v;
        *from = "OMP_NUM_THREADS";
        return 0;
    }
    *threads = topo->cores > 0 ? (unsigned)topo->cores : 1;
    *from = "physical cores";
    return 0;
}

/* Without --bind, membench binds nothing; OpenMP's own variables, if set, still apply. */
static const char *default_bind(void)
{
    static const char *const vars[] = {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v && strcmp(v, "false") != 0) return "openmp-env";
    }
    return "none";
}

static int resolve_size(const struct options *o, size_t index, const struct topology_facts *topo,
                        struct run_config *r)
{
    size_t es = elem_size(o->type);
    char why[300];
    if (o->n_sizes == 0) {
        if (topo->llc_bytes_total == 0) {
            log_error("the last-level cache size is unknown on this machine (hwloc and sysfs "
                      "report none); give the array size with --size, e.g. --size 1GiB");
            return EXIT_RESOURCE;
        }
        uint64_t n = (uint64_t)(STREAM_LLC_MULTIPLE * (double)topo->llc_bytes_total / (double)es);
        if (n * es < STREAM_LLC_MULTIPLE * topo->llc_bytes_total) n++;
        r->elements = n > STREAM_MIN_ELEMENTS ? n : STREAM_MIN_ELEMENTS;
        snprintf(r->size_label, sizeof(r->size_label), "4xLLC (STREAM rule)");
        return EXIT_OK;
    }
    const struct size_spec *spec = &o->sizes[index];
    if (spec->kind == SIZE_LLC_MULTIPLE && topo->llc_bytes_total == 0) {
        log_error("--size %s: the last-level cache size is unknown on this machine (hwloc and "
                  "sysfs report none); give the size in bytes instead, e.g. --size 1GiB",
                  spec->text);
        return EXIT_RESOURCE;
    }
    if (size_to_elements(spec, topo->llc_bytes_total, es, &r->elements, why, sizeof(why)) != 0) {
        log_error("--size: %s", why);
        return EXIT_USAGE;
    }
    snprintf(r->size_label, sizeof(r->size_label), "%s", spec->text);
    return EXIT_OK;
}

static bool fits_memory(const struct run_config *r, const struct sys_info *sys)
{
    return sys->mem_available_bytes == 0 ||
           (double)r->total_bytes <= MEMORY_MARGIN * (double)sys->mem_available_bytes;
}

static int check_memory(const struct run_config *r, const struct sys_info *sys)
{
    if (sys->mem_available_bytes == 0) {
        log_warn("MemAvailable is unknown; cannot check that %llu bytes of arrays fit",
                 (unsigned long long)r->total_bytes);
        return EXIT_OK;
    }
    if (fits_memory(r, sys)) return EXIT_OK;
    char need[32], avail[32], each[32];
    format_bytes(r->total_bytes, need, sizeof(need));
    format_bytes(sys->mem_available_bytes, avail, sizeof(avail));
    format_bytes(r->array_bytes, each, sizeof(each));
    log_error("the three arrays need %s (3 x %s) but only %s is available (MemAvailable, "
              "%.0f%% usable); choose a smaller --size",
              need, each, avail, MEMORY_MARGIN * 100.0);
    return EXIT_RESOURCE;
}

/* hugetlb pages come from their pool, not from MemAvailable: the pool decides, unless the
 * arrays would not even fit in memory (then reserving pages is no remedy). */
static int check_backing(const struct run_config *r, const struct sys_info *sys)
{
    const struct mem_backend *b = mem_backend_find(r->pages);
    if (!b) {
        log_error("--pages %s: no such page backing", r->pages);
        return EXIT_USAGE;
    }
    if (b->kind != BACKING_HUGETLB) {
        int rc = check_memory(r, sys);
        if (rc != EXIT_OK) return rc;
    }
    char why[600];
    if (b->probe(&mem_env_system, r->region_bytes, why, sizeof(why)) == 0) return EXIT_OK;
    if (!fits_memory(r, sys)) return check_memory(r, sys);
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
static int default_pages(const struct options *o, const struct sys_info *sys, const char **pages,
                         const char **from)
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

int plan_build(const struct options *o, const struct topology_facts *topo,
               const struct sys_info *sys, struct plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    plan->llc_bytes = topo->llc_bytes_total;
    size_t n_threads = o->n_threads ? o->n_threads : 1;
    size_t n_sizes = o->n_sizes ? o->n_sizes : 1;
    size_t n_binds = o->n_binds ? o->n_binds : 1;
    size_t n_pages = o->n_pages ? o->n_pages : 1;
    size_t n_stores = o->n_stores ? o->n_stores : 1;
    size_t total = n_threads * n_sizes * n_binds * n_pages * n_stores;
    if (total > 4096) {
        log_error("the option lists make %zu runs; at most 4096, shorten the lists", total);
        return EXIT_USAGE;
    }
    plan->runs = calloc(total, sizeof(*plan->runs));
    if (!plan->runs) {
        log_error("out of memory planning %zu runs", total);
        return EXIT_RESOURCE;
    }

    const char *env_pages, *env_pages_from;
    int rc_pages = default_pages(o, sys, &env_pages, &env_pages_from);
    if (rc_pages != EXIT_OK) return rc_pages;

    unsigned env_threads = 0;
    const char *env_from = NULL;
    if (o->n_threads == 0) {
        char why[256];
        if (default_threads(topo, &env_threads, &env_from, why, sizeof(why)) != 0) {
            log_error("%s", why);
            return EXIT_USAGE;
        }
    }

    size_t k = 0;
    for (size_t is = 0; is < n_sizes; is++)
        for (size_t ip = 0; ip < n_pages; ip++)
            for (size_t ib = 0; ib < n_binds; ib++)
                for (size_t ist = 0; ist < n_stores; ist++)
                    for (size_t it = 0; it < n_threads; it++) {
                        struct run_config *r = &plan->runs[k++];
                        r->threads = o->n_threads ? o->threads[it] : env_threads;
                        r->threads_from = o->n_threads ? "--threads" : env_from;
                        r->pages = o->n_pages ? o->pages[ip] : env_pages;
                        r->pages_from = o->n_pages ? "--pages" : env_pages_from;
                        r->bind = o->n_binds ? o->binds[ib] : default_bind();
                        /* auto picks normal stores until non-temporal kernels exist */
                        r->stores = "normal";
                        (void)ist;
                        r->type = o->type;
                        r->ntimes = o->ntimes;
                        r->offset = o->offset;
                        r->kernel_mask = o->kernel_mask;
                        int rc = resolve_size(o, is, topo, r);
                        if (rc != EXIT_OK) return rc;
                        size_t es = elem_size(o->type);
                        r->array_bytes = r->elements * es;
                        r->total_bytes = 3 * r->array_bytes + 3 * (uint64_t)o->offset * es;
                        uint64_t stride = (r->elements + 2 * (uint64_t)o->offset) * es;
                        r->stride_bytes = (stride + ARRAY_ALIGN - 1) / ARRAY_ALIGN * ARRAY_ALIGN;
                        r->region_bytes = 3 * r->stride_bytes;
                        rc = check_backing(r, sys);
                        if (rc != EXIT_OK) return rc;
                    }
    plan->n_runs = k;
    return EXIT_OK;
}

void plan_free(struct plan *plan)
{
    free(plan->runs);
    plan->runs = NULL;
    plan->n_runs = 0;
}
