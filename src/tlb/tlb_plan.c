/* Planning the TLB probe before anything is measured: the threads and where they run, whether
 * it fits the memory budget, and whether (and how far) the 2 MB sweep runs. */
#include "src/tlb/run_tlb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hugepages/backend.h"
#include "src/base/log.h"
#include "src/sys/hugetlb_pool.h"
#include "src/sys/memory_budget.h"
#include "src/base/parse.h"
#include "src/tlb/tlb_team.h"

#define HUGE_MAX_PAGES 4096u
#define HUGE_MEM_SHARE 0.30

/* The page size of a --pages backing; the base page for "default". */
static uint64_t pages_stride(const char *name)
{
    const struct mem_backend *b = mem_backend_find(name);
    return b && b->page_bytes ? b->page_bytes : page_base_bytes();
}

static int plan_single_cpu(const struct tlb_request *o, const struct topology *topo,
                           struct tlb_plan *plan)
{
    char why[300];
    if (o->tlb->cpu_given && o->tlb->cpu < 0) {
        plan->bind_kind = BIND_NONE;
        plan->pus[0] = -1;
        snprintf(plan->bind, sizeof(plan->bind), "none (--cpu -1)");
        return EXIT_OK;
    }
    if (o->tlb->cpu_given) {
        hwloc_const_cpuset_t ok = topo->usable; /* the OS's, and the CPUs launched on */
        if (!hwloc_bitmap_isset(ok, (unsigned)o->tlb->cpu)) {
            char list[128];
            hwloc_bitmap_list_snprintf(list, sizeof(list), ok);
            log_error("--cpu %d: PU %d is not one this process may use (allowed: %s); pick one "
                      "of those, or -1 for unpinned",
                      o->tlb->cpu, o->tlb->cpu, list);
            return EXIT_USAGE;
        }
        plan->bind_kind = BIND_LIST;
        plan->pus[0] = o->tlb->cpu;
        snprintf(plan->bind, sizeof(plan->bind), "PU %d (--cpu)", o->tlb->cpu);
        return EXIT_OK;
    }
    struct bind_spec spec = {.kind = BIND_SCATTER, .text = "scatter"};
    if (o->n_binds) spec = o->binds[0]; /* its first thread's PU */
    if (spec.kind == BIND_NONE || spec.kind == BIND_OPENMP_ENV) {
        plan->bind_kind = BIND_NONE;
        plan->pus[0] = -1;
        snprintf(plan->bind, sizeof(plan->bind), "none (--bind %s)", spec.text);
        return EXIT_OK;
    }
    if (placement_plan(topo, &spec, 1, plan->pus, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_USAGE;
    }
    plan->bind_kind = BIND_LIST;
    snprintf(plan->bind, sizeof(plan->bind), "PU %d (%s%.40s)", plan->pus[0],
             o->n_binds ? "--bind " : "first planned PU", o->n_binds ? spec.text : "");
    return EXIT_OK;
}

static int plan_team(const struct tlb_request *o, const struct topology *topo,
                     struct tlb_plan *plan)
{
    char why[300];
    struct bind_spec spec = {.kind = BIND_COMPACT, .text = "compact"};
    if (o->n_binds)
        spec = o->binds[0];
    else if (plan->threads < topo->facts.cores)
        spec = (struct bind_spec){.kind = BIND_SCATTER, .text = "scatter"};
    if (spec.kind == BIND_OPENMP_ENV) spec.kind = BIND_NONE;
    if (placement_plan(topo, &spec, plan->threads, plan->pus, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_USAGE;
    }
    plan->bind_kind = spec.kind == BIND_NONE ? BIND_NONE : BIND_LIST;
    snprintf(plan->bind, sizeof(plan->bind), "%s", spec.text);
    return EXIT_OK;
}

/* Per page of the sweep: the page itself, its line of the control, its scratch entries (one
 * per element of the reuse chase). */
static uint64_t bytes_per_page(const struct tlb_plan *plan)
{
    return plan->page_bytes + TLB_LINE_BYTES +
           TLB_REUSE_SLOTS * (sizeof(uint32_t) + sizeof(size_t));
}

/* The page-walk throughput phase's two regions (4 KB and 2 MB pages), unless a single point. */
static uint64_t throughput_bytes(const struct tlb_plan *plan)
{
    return plan->opts.pages ? 0 : 2ull * THROUGHPUT_BYTES;
}

/* All the probe's threads together; UINT64_MAX when that does not fit in 64 bits. */
static uint64_t probe_bytes(const struct tlb_plan *plan)
{
    uint64_t n = plan->max_pages, pages, index, bytes, all;
    if (__builtin_mul_overflow(n, plan->page_bytes, &pages) ||
        __builtin_mul_overflow(n, (uint64_t)TLB_REUSE_SLOTS * (sizeof(uint32_t) + sizeof(size_t)),
                               &index) ||
        __builtin_add_overflow(pages, index, &bytes) ||
        __builtin_add_overflow(bytes, (uint64_t)tlb_layout_bytes(TLB_LAYOUT_DENSE, n, 0), &bytes) ||
        __builtin_add_overflow(bytes, throughput_bytes(plan), &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)plan->threads, &all))
        return UINT64_MAX;
    return all;
}

/* What to lower so that the probe fits the budget. */
static void tlb_memory_remedy(const struct tlb_plan *plan, const struct memory_budget *b,
                              const struct tlb_request *o, char *buf, size_t len)
{
    uint64_t per_thread = b->usable / (uint64_t)plan->threads, fixed = throughput_bytes(plan);
    uint64_t fit = per_thread > fixed ? (per_thread - fixed) / bytes_per_page(plan) : 0;
    const char *option = o->tlb->pages ? "--tlb-pages" : "--tlb-max-pages";
    if (fit >= 1)
        snprintf(buf, len, "lower %s to at most %llu%s", option, (unsigned long long)fit,
                 plan->multi ? " or use fewer --threads" : "");
    else if (fixed)
        snprintf(buf, len,
                 "its page-walk throughput phase alone needs %u MiB per thread: measure a single "
                 "point with --tlb-pages%s",
                 (unsigned)(fixed >> 20), plan->multi ? " or use fewer --threads" : "");
    else
        snprintf(buf, len, "use fewer --threads");
}

static int plan_threads(const struct tlb_request *o, const struct topology *topo,
                        struct tlb_plan *plan)
{
    if (o->n_threads > 1 || o->n_binds > 1) {
        log_error("--tlb: give one --threads value and at most one --bind (the probe runs all "
                  "its threads at once)");
        return EXIT_USAGE;
    }
    plan->multi = o->n_threads == 1;
    plan->threads = plan->multi ? (int)o->threads[0] : 1;
    plan->pus = malloc((size_t)plan->threads * sizeof(int));
    if (!plan->pus) {
        log_error("out of memory planning the TLB probe");
        return EXIT_RESOURCE;
    }
    return plan->multi ? plan_team(o, topo, plan) : plan_single_cpu(o, topo, plan);
}

/* hugetlb pages come from their pool, which MemAvailable does not count: the pool must hold
 * the sweep's pages (pool bytes). */
static int check_hugetlb_pool(const struct tlb_request *o, const struct tlb_plan *plan,
                              const struct mem_backend *backend, uint64_t pool)
{
    char why[600];
    if (o->dry_run || backend->probe(&mem_env_system, pool, why, sizeof(why)) == 0) return EXIT_OK;
    struct hugetlb_pool have;
    uint64_t fit = hugetlb_pool_read(mem_env_system.sys_root, plan->page_bytes, &have) == 0
                       ? hugetlb_pool_available(&have) / (uint64_t)plan->threads
                       : 0;
    char lower[80] = "";
    if (fit >= (o->tlb->pages ? 1u : 4u))
        snprintf(lower, sizeof(lower), "; or lower %s to at most %llu",
                 o->tlb->pages ? "--tlb-pages" : "--tlb-max-pages", (unsigned long long)fit);
    log_error("--tlb --pages %s: %s%s", plan->pages_name, why, lower);
    return EXIT_RESOURCE;
}

/* The probe's memory against the budget; *need becomes what it takes beside a hugetlb pool. */
static int check_memory(const struct tlb_request *o, const struct sys_info *sys,
                        const struct tlb_plan *plan, uint64_t *need, struct memory_budget *budget)
{
    *need = probe_bytes(plan);
    if (*need == UINT64_MAX) {
        log_error("the TLB probe's %llu pages of %llu bytes for %d threads do not fit in 64-bit "
                  "byte counts; lower --tlb-max-pages or --threads",
                  (unsigned long long)plan->max_pages, (unsigned long long)plan->page_bytes,
                  plan->threads);
        return EXIT_USAGE;
    }
    const struct mem_backend *backend = mem_backend_find(plan->pages_name);
    if (backend && backend->kind == BACKING_HUGETLB) {
        uint64_t pool = plan->max_pages * plan->page_bytes * (uint64_t)plan->threads;
        int rc = check_hugetlb_pool(o, plan, backend, pool);
        if (rc != EXIT_OK) return rc;
        *need -= pool;
    }
    memory_budget_of(sys, budget);
    if (!memory_budget_fits(budget, *need)) {
        char remedy[200], detail[40];
        tlb_memory_remedy(plan, budget, o, remedy, sizeof(remedy));
        snprintf(detail, sizeof(detail), " for %d thread%s", plan->threads,
                 plan->threads == 1 ? "" : "s");
        return memory_budget_check(budget, *need, "the TLB probe needs", detail, remedy);
    }
    return EXIT_OK;
}

/* The huge sweep's pages: --tlb-max-pages / 8 at most, fewer where memory is short (the
 * reason in plan->huge_why). */
static uint64_t huge_pages_that_fit(const struct sys_info *sys, struct tlb_plan *plan,
                                    uint64_t need, const struct memory_budget *budget)
{
    uint64_t max = plan->max_pages / 8 < HUGE_MAX_PAGES ? plan->max_pages / 8 : HUGE_MAX_PAGES;
    /* its pages live beside the small sweep's, not beside the throughput regions */
    uint64_t base = need - throughput_bytes(plan);
    uint64_t cap = max;
    if (sys->mem_available_bytes)
        cap = (uint64_t)(HUGE_MEM_SHARE * (double)sys->mem_available_bytes / tlb_huge_bytes());
    uint64_t room = budget->usable > base ? (budget->usable - base) / tlb_huge_bytes() : 0;
    if (budget->usable && room < cap && room < max) {
        char why[200];
        memory_budget_describe(budget, why, sizeof(why));
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "stopped at %llu pages instead of %llu (beside %s): %.140s",
                 (unsigned long long)room, (unsigned long long)max, tlb_sweep_name(false), why);
        return room;
    }
    if (cap < max) {
        char avail[32];
        format_bytes(sys->mem_available_bytes, avail, sizeof(avail));
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "stopped at %llu pages instead of %llu: %.0f%% of MemAvailable (%s)",
                 (unsigned long long)cap, (unsigned long long)max, HUGE_MEM_SHARE * 100, avail);
        return cap;
    }
    return max;
}

/* The huge sweep: one thread, a base-page main sweep, THP not off. */
static void plan_huge_sweep(const struct sys_info *sys, struct tlb_plan *plan, uint64_t need,
                            const struct memory_budget *budget)
{
    char size[PAGE_TEXT_LEN];
    if (plan->opts.pages) {
        snprintf(plan->huge_why, sizeof(plan->huge_why), "single point (--tlb-pages)");
        return;
    }
    if (plan->multi) {
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "not with --threads (it needs up to 8 GiB per thread); run without -t for it");
        return;
    }
    if (plan->page_bytes != page_base_bytes()) {
        snprintf(plan->huge_why, sizeof(plan->huge_why), "the sweep itself uses --pages %s",
                 plan->pages_name);
        return;
    }
    if (strcmp(sys->thp_enabled, "never") == 0) {
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "transparent huge pages are off (/sys/kernel/mm/transparent_hugepage/enabled "
                 "is [never]); echo madvise there to measure %s pages",
                 page_size_text(tlb_huge_bytes(), size));
        return;
    }
    uint64_t max = huge_pages_that_fit(sys, plan, need, budget);
    if (max < 8) {
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "only %llu %s pages would fit the sweep (--tlb-max-pages / 8, memory)",
                 (unsigned long long)max, page_size_text(tlb_huge_bytes(), size));
        return;
    }
    plan->huge = true;
    plan->max_huge_pages = max;
}

int tlb_plan_build(const struct tlb_request *o, const struct topology *topo,
                   const struct sys_info *sys, struct tlb_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    if (!o->tlb->enabled) return EXIT_OK;
    plan->enabled = true;
    plan->dry_run = o->dry_run;
    plan->opts = *o->tlb;
    if (!topo->facts.this_system && !o->dry_run) {
        log_error("--tlb measures this machine, but %s describes another; unset it, or add "
                  "--dry-run",
                  topo->facts.source);
        return EXIT_USAGE;
    }
    if (o->n_pages > 1) {
        log_error("--tlb: give one --pages value (4k or default), not a list");
        return EXIT_USAGE;
    }
    plan->pages_name = o->n_pages ? o->pages[0] : "4k";
    plan->page_bytes = pages_stride(plan->pages_name);
    int rc = plan_threads(o, topo, plan);
    if (rc != EXIT_OK) return rc;
    plan->max_pages = o->tlb->pages ? o->tlb->pages : o->tlb->max_pages;
    uint64_t need;
    struct memory_budget budget;
    rc = check_memory(o, sys, plan, &need, &budget);
    if (rc != EXIT_OK) return rc;
    plan_huge_sweep(sys, plan, need, &budget);
    return EXIT_OK;
}

void tlb_plan_free(struct tlb_plan *plan)
{
    free(plan->pus);
    plan->pus = NULL;
}
