/* Planning the TLB probe before anything is measured: the threads and where they run, whether
 * it fits the memory budget, and whether (and how far) the 2 MB sweep runs. */
#include "src/tlb/run_tlb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hugepages/backend.h"
#include "src/base/log.h"
#include "src/sys/hugetlb_pool.h"
#include "src/sys/memory_budget.h"
#include "src/base/parse.h"
#include "src/tlb/tlb_cost.h"
#include "src/tlb/tlb_sets.h"
#include "src/tlb/tlb_team.h"

#define HUGE_MAX_PAGES 4096u

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
    if (o->shared->n_binds) spec = o->shared->binds[0]; /* its first thread's PU */
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
             o->shared->n_binds ? "--bind " : "first planned PU",
             o->shared->n_binds ? spec.text : "");
    return EXIT_OK;
}

static int plan_team(const struct tlb_request *o, const struct topology *topo,
                     struct tlb_plan *plan)
{
    char why[300];
    struct bind_spec spec = {.kind = BIND_COMPACT, .text = "compact"};
    if (o->shared->n_binds)
        spec = o->shared->binds[0];
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
    return plan->opts.pages || plan->walk_why[0] ? 0 : 2ull * THROUGHPUT_BYTES;
}

/* The stride probe's pages at once and at most one page-table page for each; 0 when the plan
 * leaves it out. */
static uint64_t sets_bytes(const struct tlb_plan *plan)
{
    if (tlb_sets_unplanned(plan)) return 0;
    return 2 * (uint64_t)tlb_sets_pages_touched(tlb_sets_pages(TLB_SETS_PLAN_L1)) *
           page_base_bytes();
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
    if (o->shared->n_threads > 1 || o->shared->n_binds > 1) {
        log_error("--tlb: give one --threads value and at most one --bind (the probe runs all "
                  "its threads at once)");
        return EXIT_USAGE;
    }
    plan->multi = o->shared->n_threads == 1;
    plan->threads = plan->multi ? (int)o->shared->threads[0] : 1;
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

/* "10% of MemAvailable 23.5 GiB" or "10% of the 1.0 GiB this process's memory cgroup still
 * allows": the default probe's bound. */
static void share_words(const struct tlb_cost *c, char *buf, size_t len)
{
    char basis[32];
    format_bytes(c->basis_bytes, basis, sizeof(basis));
    if (c->by_cgroup)
        snprintf(buf, len, "%.0f%% of the %s this process's memory cgroup still allows",
                 100.0 * c->share, basis);
    else
        snprintf(buf, len, "%.0f%% of MemAvailable %s", 100.0 * c->share, basis);
}

/* Adds a sentence to the header's note ("; " between them). */
__attribute__((format(printf, 2, 3))) static void note_add(struct tlb_cost *c, const char *fmt, ...)
{
    size_t used = strlen(c->note);
    if (used && used + 2 < sizeof(c->note)) used += (size_t)snprintf(c->note + used, 3, "; ");
    if (used >= sizeof(c->note)) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->note + used, sizeof(c->note) - used, fmt, ap);
    va_end(ap);
}

/* The huge sweep's pages: --tlb-max-pages / 8 at most, fewer where memory is short or (by
 * default) beyond the share of it (the reason in plan->huge_why and the header's note). */
static uint64_t huge_pages_that_fit(struct tlb_plan *plan, uint64_t need,
                                    const struct memory_budget *budget)
{
    uint64_t max = plan->max_pages / 8 < HUGE_MAX_PAGES ? plan->max_pages / 8 : HUGE_MAX_PAGES;
    /* its pages live beside the small sweep's, not beside the throughput regions */
    uint64_t base = need - throughput_bytes(plan);
    uint64_t room = budget->usable > base ? (budget->usable - base) / tlb_huge_bytes() : 0;
    const struct tlb_cost *c = &plan->cost;
    uint64_t bound = c->bound_bytes;
    uint64_t share = bound > base ? (bound - base) / tlb_huge_bytes() : 0;
    char why[200];
    if (budget->usable && room < max && (c->explicit_size || !bound || room <= share)) {
        memory_budget_describe(budget, why, sizeof(why));
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "stopped at %llu pages instead of %llu (beside %s): %.140s",
                 (unsigned long long)room, (unsigned long long)max, tlb_sweep_name(false), why);
        return room;
    }
    if (!c->explicit_size && bound && share < max) {
        share_words(c, why, sizeof(why));
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "%s stops at %llu pages, not %llu: the default probe maps at most %.100s; "
                 "--tlb-max-pages N takes it to N/8 pages",
                 tlb_sweep_name(true), (unsigned long long)share, (unsigned long long)max, why);
        if (share >= 8)
            note_add(&plan->cost, "%s", plan->huge_why);
        else
            note_add(&plan->cost,
                     "%s is left out: only %llu pages fit the default's bound (%.100s); "
                     "--tlb-max-pages N runs it to N/8 pages",
                     tlb_sweep_name(true), (unsigned long long)share, why);
        return share;
    }
    return max;
}

/* The default plan within its share: the main sweep shortened to what fits (exit 3 when not
 * even TLB_MIN_SWEEP_PAGES pages do), then the throughput phase left out when its regions do
 * not fit beside it. */
static int fit_default_sweep(struct tlb_plan *plan)
{
    struct tlb_cost *c = &plan->cost;
    if (c->explicit_size || !c->bound_bytes) return EXIT_OK;
    /* the stride probe (one thread) runs beside the sweep: its room is kept */
    uint64_t per_thread = c->bound_bytes / (uint64_t)plan->threads;
    per_thread = per_thread > sets_bytes(plan) ? per_thread - sets_bytes(plan) : 0;
    /* the control's lines are packed into whole base pages: one more at most */
    uint64_t fit = per_thread > page_base_bytes()
                       ? (per_thread - page_base_bytes()) / bytes_per_page(plan)
                       : 0;
    char share[120], size[32];
    share_words(c, share, sizeof(share));
    if (fit < TLB_MIN_SWEEP_PAGES) {
        format_bytes(TLB_MIN_SWEEP_PAGES * bytes_per_page(plan), size, sizeof(size));
        log_error("--tlb: its shortest useful sweep (%u pages: %s per thread) does not fit in %s, "
                  "the default probe's bound; free memory%s, give --tlb-max-pages %u to run it "
                  "anyway, or measure one point with --tlb-pages N",
                  TLB_MIN_SWEEP_PAGES, size, share, plan->multi ? ", use fewer --threads" : "",
                  TLB_MIN_SWEEP_PAGES);
        return EXIT_RESOURCE;
    }
    if (fit < plan->max_pages) {
        note_add(c,
                 "%s stops at %llu pages, not %llu: the default probe maps at most %s; "
                 "--tlb-max-pages N goes further",
                 tlb_sweep_name(false), (unsigned long long)fit,
                 (unsigned long long)plan->max_pages, share);
        plan->max_pages = fit;
    }
    uint64_t tp = throughput_bytes(plan);
    if (tp && plan->max_pages * bytes_per_page(plan) + page_base_bytes() + tp > per_thread) {
        format_bytes(tp, size, sizeof(size));
        snprintf(plan->walk_why, sizeof(plan->walk_why),
                 "left out: its %s per thread would pass the default's bound (%.80s); "
                 "--tlb-max-pages N runs it",
                 size, share);
        note_add(c, "the page-walk throughput phase is %s", plan->walk_why);
    }
    return EXIT_OK;
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
    uint64_t max = huge_pages_that_fit(plan, need, budget);
    if (max < 8) {
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "only %llu %s pages would fit the sweep (--tlb-max-pages / 8, memory)",
                 (unsigned long long)max, page_size_text(tlb_huge_bytes(), size));
        return;
    }
    plan->huge = true;
    plan->max_huge_pages = max;
}

/* The default probe's bound: the share of min(MemAvailable, the cgroup's headroom). A size
 * the user gave (--tlb-max-pages, --tlb-pages, or --pages with pages larger than the base page)
 * is stated against it, not cut to it. */
static void cost_basis(const struct tlb_request *o, const struct sys_info *sys,
                       const struct tlb_plan *plan, struct tlb_cost *c)
{
    struct memory_budget b;
    memory_budget_of(sys, &b);
    c->known = true;
    c->share = TLB_MEMORY_SHARE;
    c->basis_bytes = b.basis;
    c->by_cgroup = b.by_cgroup;
    c->bound_bytes = (uint64_t)(TLB_MEMORY_SHARE * (double)b.basis);
    if (b.by_cgroup && !c->bound_bytes) c->bound_bytes = 1; /* known, and nothing left */
    c->explicit_size =
        o->tlb->pages || o->tlb->max_pages_given || plan->page_bytes != page_base_bytes();
    c->single_point = o->tlb->pages != 0;
}

/* Where the 2 MB sweep's pages will come from: the hugetlb pool when it holds them (as
 * tlb_region_alloc_huge tries first), else transparent huge pages. */
static const char *huge_source(uint64_t bytes)
{
    const struct mem_backend *b = mem_backend_find("2m");
    char why[200];
    return tlb_huge_bytes() == PAGE_2M && b &&
                   b->probe(&mem_env_system, bytes, why, sizeof(why)) == 0
               ? "hugetlb pool"
               : "thp";
}

/* What each part maps and about how long it takes; the note when an explicit size goes past
 * the share. */
static void plan_cost(struct tlb_plan *plan)
{
    struct tlb_cost *c = &plan->cost;
    const unsigned K = plan->opts.repeat;
    const uint64_t threads = (uint64_t)plan->threads, n = plan->max_pages;
    struct tlb_cost_item *s = &c->item[TLB_COST_SMALL], *h = &c->item[TLB_COST_HUGE];
    struct tlb_cost_item *w = &c->item[TLB_COST_THROUGHPUT];
    uint64_t control = tlb_layout_bytes(TLB_LAYOUT_DENSE, n, 0);
    *s = (struct tlb_cost_item){
        true, plan->pages_name, plan->page_bytes,
        n,    plan->threads,    threads * (n * (bytes_per_page(plan) - TLB_LINE_BYTES) + control),
        0};
    s->seconds = plan->opts.pages ? tlb_cost_point_seconds(n, plan->opts.trials, K, s->bytes)
                                  : tlb_cost_sweep_seconds(n, K, false, s->bytes);
    if (plan->huge) {
        uint64_t bytes = plan->max_huge_pages * tlb_huge_bytes();
        *h = (struct tlb_cost_item){
            true, huge_source(bytes), tlb_huge_bytes(), plan->max_huge_pages, 1, bytes, 0};
        h->seconds = tlb_cost_sweep_seconds(plan->max_huge_pages, K, true, bytes);
    }
    if (throughput_bytes(plan)) {
        *w = (struct tlb_cost_item){true,
                                    "4k, thp",
                                    page_base_bytes(),
                                    THROUGHPUT_BYTES / page_base_bytes(),
                                    plan->threads,
                                    threads * throughput_bytes(plan),
                                    0};
        w->seconds = TLB_EST_OVERHEAD * TLB_EST_THROUGHPUT_S * K +
                     (double)w->bytes / TLB_EST_TOUCH_BYTES_PER_S;
    }
    if (sets_bytes(plan)) {
        struct tlb_cost_item *st = &c->item[TLB_COST_SETS];
        uint64_t pages = (uint64_t)tlb_sets_pages_touched(tlb_sets_pages(TLB_SETS_PLAN_L1));
        *st = (struct tlb_cost_item){true, "4k", page_base_bytes(), pages, 1, sets_bytes(plan), 0};
        st->seconds = tlb_cost_sets_seconds(tlb_sets_points(), K, st->bytes);
    }
    tlb_cost_total(c);
    if (c->explicit_size && c->bound_bytes && c->peak_bytes > c->bound_bytes) {
        char basis[32], peak[32];
        format_bytes(c->basis_bytes, basis, sizeof(basis));
        format_bytes(c->peak_bytes, peak, sizeof(peak));
        note_add(c,
                 "%s %llu: the probe maps up to %s, %.0f%% of %s %s, beyond the default plan's "
                 "%.0f%% (as asked)",
                 plan->opts.pages             ? "--tlb-pages"
                 : plan->opts.max_pages_given ? "--tlb-max-pages"
                                              : "--pages with --tlb-max-pages",
                 (unsigned long long)n, peak, tlb_cost_percent(c, c->peak_bytes),
                 c->by_cgroup ? "the memory cgroup's headroom" : "MemAvailable", basis,
                 100.0 * c->share);
    }
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
    if (o->shared->n_pages > 1) {
        log_error("--tlb: give one --pages value (4k or default), not a list");
        return EXIT_USAGE;
    }
    plan->pages_name = o->shared->n_pages ? o->shared->pages[0] : "4k";
    plan->page_bytes = pages_stride(plan->pages_name);
    int rc = plan_threads(o, topo, plan);
    if (rc != EXIT_OK) return rc;
    plan->max_pages = o->tlb->pages ? o->tlb->pages : o->tlb->max_pages;
    cost_basis(o, sys, plan, &plan->cost);
    rc = fit_default_sweep(plan);
    if (rc != EXIT_OK) return rc;
    uint64_t need;
    struct memory_budget budget;
    rc = check_memory(o, sys, plan, &need, &budget);
    if (rc != EXIT_OK) return rc;
    plan_huge_sweep(sys, plan, need, &budget);
    plan_cost(plan);
    return EXIT_OK;
}

void tlb_plan_free(struct tlb_plan *plan)
{
    free(plan->pus);
    plan->pus = NULL;
}
