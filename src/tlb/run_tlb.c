/* The TLB probe (--tlb): plans, allocates, measures and analyses; report_tlb.c formats.
 *
 * Every placed thread (one by default) runs the same schedule at once, each on its own pages:
 *   1. the sweep (one access per 4 KB page, 1..max pages) and the control (the same number of
 *      cache lines in 64x fewer pages), point by point, interleaved, in K rounds: a burst of
 *      other work on the machine hits one round of many points, not every repeat of a few;
 *   2. knee detection, then refinement points inside each knee's bracket, K rounds again;
 *   3. (one thread) the 2 MB sweep on transparent huge pages, and a check whether 2 MB pages
 *      are translated whole or in 4 KB pieces;
 *   4. page-walk throughput: random loads, one per 4 KB page of 128 MiB, 4 KB vs 2 MB backing.
 * Each sample is the median of short timed chunks (tlb_sample_run). */
#include "src/tlb/run_tlb.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "affinity/bind.h"
#include "src/cli/cli.h"
#include "hugepages/backend.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/sys/memory_budget.h"
#include "affinity/thread_start.h"
#include "src/tlb/tlb_huge_check.h"
#include "src/base/parse.h"
#include "src/base/stats.h"

#define CHUNK_TARGET_S 0.0005 /* one timed chunk: 0.5 ms, 2 clock readings in it */
#define CHUNKS_PER_SAMPLE 20  /* one sample: 10 ms */
#define WARMUP_S 0.2
#define HUGE_MAX_PAGES 4096u
#define HUGE_MEM_SHARE 0.30
#define THROUGHPUT_BYTES (128u << 20)
#define THROUGHPUT_MIN_S 0.05
#define GRID_MAX 128
#define REFINE_MAX 128
#define SPLINTER_N 512.0
#define SMAPS "/proc/self/smaps"

static void add_warning(struct tlb_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_warning(struct tlb_result *r, const char *fmt, ...)
{
    if (r->n_warnings == TLB_WARNINGS_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->warnings[r->n_warnings++], sizeof(r->warnings[0]), fmt, ap);
    va_end(ap);
}

/* 1, 2, 3, 4, 6, 8, 12 ... max: doubling with the x1.5 points between (seed 000's sweep). */
static size_t sweep_grid(uint64_t max, double *x, size_t cap)
{
    size_t n = 0;
    for (uint64_t v = 1; v <= max && n < cap; v *= 2) {
        x[n++] = (double)v;
        if (v >= 2 && v + v / 2 <= max && n < cap) x[n++] = (double)(v + v / 2);
    }
    if (n && x[n - 1] < (double)max && n < cap) x[n++] = (double)max;
    return n;
}

/* The page size of a --pages backing; the base page for "default". */
static uint64_t pages_stride(const char *name)
{
    const struct mem_backend *b = mem_backend_find(name);
    return b && b->page_bytes ? b->page_bytes : TLB_SMALL_PAGE;
}

/* ---------------------------------------------------------------- planning */

static int plan_single_cpu(const struct options *o, const struct topology *topo,
                           struct tlb_plan *plan)
{
    char why[300];
    if (o->tlb.cpu_given && o->tlb.cpu < 0) {
        plan->bind_kind = BIND_NONE;
        plan->pus[0] = -1;
        snprintf(plan->bind, sizeof(plan->bind), "none (--cpu -1)");
        return EXIT_OK;
    }
    if (o->tlb.cpu_given) {
        hwloc_const_cpuset_t ok = hwloc_topology_get_allowed_cpuset(topo->hw);
        if (!hwloc_bitmap_isset(ok, (unsigned)o->tlb.cpu)) {
            char list[128];
            hwloc_bitmap_list_snprintf(list, sizeof(list), ok);
            log_error("--cpu %d: PU %d is not one this process may use (allowed: %s); pick one "
                      "of those, or -1 for unpinned",
                      o->tlb.cpu, o->tlb.cpu, list);
            return EXIT_USAGE;
        }
        plan->bind_kind = BIND_LIST;
        plan->pus[0] = o->tlb.cpu;
        snprintf(plan->bind, sizeof(plan->bind), "PU %d (--cpu)", o->tlb.cpu);
        return EXIT_OK;
    }
    struct bind_spec spec = {.kind = BIND_SCATTER, .text = "scatter"};
    if (placement_plan(topo, &spec, 1, plan->pus, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_USAGE;
    }
    plan->bind_kind = BIND_LIST;
    snprintf(plan->bind, sizeof(plan->bind), "PU %d (first planned PU)", plan->pus[0]);
    return EXIT_OK;
}

static int plan_team(const struct options *o, const struct topology *topo, struct tlb_plan *plan)
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

/* Per page of the sweep: the page itself, its line of the control, its scratch entries. */
static uint64_t bytes_per_page(const struct tlb_plan *plan)
{
    return plan->page_bytes + TLB_LINE_BYTES + sizeof(uint32_t) + sizeof(size_t);
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
        __builtin_mul_overflow(n, (uint64_t)(sizeof(uint32_t) + sizeof(size_t)), &index) ||
        __builtin_add_overflow(pages, index, &bytes) ||
        __builtin_add_overflow(bytes, (uint64_t)tlb_layout_bytes(TLB_LAYOUT_DENSE, n, 0), &bytes) ||
        __builtin_add_overflow(bytes, throughput_bytes(plan), &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)plan->threads, &all))
        return UINT64_MAX;
    return all;
}

/* What to lower so that the probe fits the budget. */
static void tlb_memory_remedy(const struct tlb_plan *plan, const struct memory_budget *b,
                              const struct options *o, char *buf, size_t len)
{
    uint64_t per_thread = b->usable / (uint64_t)plan->threads, fixed = throughput_bytes(plan);
    uint64_t fit = per_thread > fixed ? (per_thread - fixed) / bytes_per_page(plan) : 0;
    const char *option = o->tlb.pages ? "--tlb-pages" : "--tlb-max-pages";
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

int tlb_plan_build(const struct options *o, const struct topology *topo, const struct sys_info *sys,
                   struct tlb_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    if (!o->tlb.enabled) return EXIT_OK;
    plan->enabled = true;
    plan->dry_run = o->dry_run;
    plan->opts = o->tlb;
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
    int rc = plan->multi ? plan_team(o, topo, plan) : plan_single_cpu(o, topo, plan);
    if (rc != EXIT_OK) return rc;

    plan->max_pages = o->tlb.pages ? o->tlb.pages : o->tlb.max_pages;
    uint64_t need = probe_bytes(plan);
    if (need == UINT64_MAX) {
        log_error("the TLB probe's %llu pages of %llu bytes for %d threads do not fit in 64-bit "
                  "byte counts; lower --tlb-max-pages or --threads",
                  (unsigned long long)plan->max_pages, (unsigned long long)plan->page_bytes,
                  plan->threads);
        return EXIT_USAGE;
    }
    struct memory_budget budget;
    memory_budget_of(sys, &budget);
    if (!memory_budget_fits(&budget, need)) {
        char remedy[200], detail[40];
        tlb_memory_remedy(plan, &budget, o, remedy, sizeof(remedy));
        snprintf(detail, sizeof(detail), " for %d thread%s", plan->threads,
                 plan->threads == 1 ? "" : "s");
        return memory_budget_check(&budget, need, "the TLB probe needs", detail, remedy);
    }

    /* the 2 MB sweep: one thread, a 4 KB main sweep, THP not off */
    if (o->tlb.pages)
        snprintf(plan->huge_why, sizeof(plan->huge_why), "single point (--tlb-pages)");
    else if (plan->multi)
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "not with --threads (it needs up to 8 GiB per thread); run without -t for it");
    else if (plan->page_bytes != TLB_SMALL_PAGE)
        snprintf(plan->huge_why, sizeof(plan->huge_why), "the sweep itself uses --pages %s",
                 plan->pages_name);
    else if (strcmp(sys->thp_enabled, "never") == 0)
        snprintf(plan->huge_why, sizeof(plan->huge_why),
                 "transparent huge pages are off (/sys/kernel/mm/transparent_hugepage/enabled "
                 "is [never]); echo madvise there to measure 2 MB pages");
    else {
        uint64_t max = plan->max_pages / 8 < HUGE_MAX_PAGES ? plan->max_pages / 8 : HUGE_MAX_PAGES;
        /* its pages live beside the 4 KB sweep's, not beside the throughput regions */
        uint64_t base = need - throughput_bytes(plan);
        uint64_t cap = max;
        if (sys->mem_available_bytes)
            cap = (uint64_t)(HUGE_MEM_SHARE * (double)sys->mem_available_bytes / TLB_HUGE_2M);
        uint64_t room = budget.usable > base ? (budget.usable - base) / TLB_HUGE_2M : 0;
        if (budget.usable && room < cap && room < max) {
            char why[200];
            memory_budget_describe(&budget, why, sizeof(why));
            snprintf(plan->huge_why, sizeof(plan->huge_why),
                     "stopped at %llu pages instead of %llu (beside the 4 KB sweep): %.140s",
                     (unsigned long long)room, (unsigned long long)max, why);
            max = room;
        } else if (cap < max) {
            char avail[32];
            format_bytes(sys->mem_available_bytes, avail, sizeof(avail));
            snprintf(plan->huge_why, sizeof(plan->huge_why),
                     "stopped at %llu pages instead of %llu: %.0f%% of MemAvailable (%s)",
                     (unsigned long long)cap, (unsigned long long)max, HUGE_MEM_SHARE * 100, avail);
            max = cap;
        }
        if (max < 8)
            snprintf(plan->huge_why, sizeof(plan->huge_why),
                     "only %llu 2 MB pages would fit the sweep (--tlb-max-pages / 8, memory)",
                     (unsigned long long)max);
        else {
            plan->huge = true;
            plan->max_huge_pages = max;
        }
    }
    return EXIT_OK;
}

void tlb_plan_free(struct tlb_plan *plan)
{
    free(plan->pus);
    plan->pus = NULL;
}

static void fill_config(const struct tlb_plan *plan, struct tlb_result *out)
{
    memset(out, 0, sizeof(*out));
    out->opts = plan->opts;
    out->pages_name = plan->pages_name;
    out->single_point = plan->opts.pages != 0;
    out->multi = plan->multi;
    out->threads = plan->threads;
    snprintf(out->bind, sizeof(out->bind), "%s", plan->bind);
    out->max_pages = plan->max_pages;
    out->max_huge_pages = plan->huge ? plan->max_huge_pages : 0;
    out->chunk_target_s = CHUNK_TARGET_S;
    out->chunks_per_sample = CHUNKS_PER_SAMPLE;
    out->trials = plan->opts.trials;
    out->huge_extends_reach = -1;
    out->splinter.verdict = -1;
    snprintf(out->huge_why, sizeof(out->huge_why), "%s", plan->huge_why);
    for (int i = 0; i < 2; i++)
        out->walk[i].page_bytes = i ? TLB_HUGE_2M : TLB_SMALL_PAGE;
}

static void locate_threads(const struct tlb_plan *plan, const struct topology *topo,
                           struct tlb_result *out)
{
    out->per_thread = calloc((size_t)plan->threads, sizeof(*out->per_thread));
    out->n_threads = out->per_thread ? plan->threads : 0;
    for (int t = 0; t < out->n_threads; t++) {
        struct tlb_thread_result *r = &out->per_thread[t];
        r->thread = t;
        r->planned_pu = r->pu = plan->pus[t];
        r->core = plan->pus[t] >= 0 ? topology_locate_pu(topo, plan->pus[t]).core : -1;
    }
}

void tlb_describe(const struct tlb_plan *plan, const struct topology *topo, struct tlb_result *out)
{
    fill_config(plan, out);
    locate_threads(plan, topo, out);
    cpuid_tlb_read(&out->cpuid);
}

/* ---------------------------------------------------------------- memory */

struct region {
    char *base;
    size_t bytes;
    const struct mem_backend *backend;
    struct mem_region mr;
    const char *how;
};

static void region_release(struct region *r)
{
    if (r->backend) r->backend->release(&r->mr);
    memset(r, 0, sizeof(*r));
}

/* Memory for the 4 KB sweep from the --pages backend ("4k" by default: THP advised off). */
static int region_alloc_small(struct region *r, size_t bytes, const char *pages_name, char *why,
                              size_t why_len)
{
    memset(r, 0, sizeof(*r));
    const struct mem_backend *b = mem_backend_find(pages_name);
    if (!b) {
        snprintf(why, why_len, "--pages %s: no such page backing", pages_name);
        return -1;
    }
    if (b->probe(&mem_env_system, bytes, why, why_len) != 0 ||
        b->alloc(&r->mr, bytes, why, why_len) != 0)
        return -1;
    r->backend = b;
    r->base = r->mr.base;
    r->bytes = bytes;
    r->how = b->how;
    return 0;
}

/* Memory on 2 MB pages: the hugetlb pool ("2m") when it can serve it, else transparent huge
 * pages ("thp", 2 MB-aligned and advised); never silently small pages. */
static int region_alloc_huge(struct region *r, size_t bytes, char *why, size_t why_len)
{
    memset(r, 0, sizeof(*r));
    static const char *const names[] = {"2m", "thp"};
    char reasons[2][200] = {"", ""};
    for (size_t i = 0; i < 2; i++) {
        const struct mem_backend *b = mem_backend_find(names[i]);
        if (b && b->probe(&mem_env_system, bytes, reasons[i], sizeof(reasons[i])) == 0 &&
            b->alloc(&r->mr, bytes, reasons[i], sizeof(reasons[i])) == 0) {
            r->backend = b;
            r->base = r->mr.base;
            r->bytes = bytes;
            r->how = b->how;
            return 0;
        }
    }
    snprintf(why, why_len, "no 2 MB pages: 2m: %.120s; thp: %.120s", reasons[0], reasons[1]);
    return -1;
}

/* Pre-touch: every page written once by the thread that will use it, so demand-zero faults
 * happen before timing (seed 000 pitfall 4). Checks for a signal every 16 MiB; false when one
 * came (a 2 MB sweep's region is gigabytes). */
static bool region_touch(struct region *r, size_t step)
{
    const size_t check = 16u << 20;
    for (size_t off = 0; off < r->bytes; off += step) {
        if (off % check < step && off && interrupt_signal()) return false;
        r->base[off] = 1;
    }
    return true;
}

/* ---------------------------------------------------------------- curves */

static int compare_point(const void *a, const void *b)
{
    return compare_doubles(&((const struct tlb_point *)a)->pages,
                           &((const struct tlb_point *)b)->pages);
}

static int curve_add(struct tlb_curve *c, double x, const double *samples, int k, int disturbed,
                     bool refined)
{
    struct tlb_point *p = realloc(c->pts, (c->n + 1) * sizeof(*p));
    if (!p) return -1;
    c->pts = p;
    double v[1024];
    int m = 0;
    for (int i = 0; i < k && m < 1024; i++)
        if (samples[i] > 0) v[m++] = samples[i];
    qsort(v, (size_t)m, sizeof(v[0]), compare_doubles);
    struct tlb_point *q = &p[c->n++];
    memset(q, 0, sizeof(*q));
    q->pages = x;
    q->samples = m;
    q->disturbed_chunks = disturbed;
    q->refined = refined;
    q->min_ns = m ? v[0] : NAN;
    q->median_ns = m ? (m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2])) : NAN;
    q->ns_per_access = q->min_ns;
    return 0;
}

static void curve_sort(struct tlb_curve *c)
{
    if (c->n) qsort(c->pts, c->n, sizeof(c->pts[0]), compare_point);
}

static double curve_at(const struct tlb_curve *c, double x)
{
    for (size_t i = 0; i < c->n; i++)
        if (fabs(c->pts[i].pages - x) < 0.5) return c->pts[i].ns_per_access;
    return NAN;
}

static int analyse_sweep(struct tlb_sweep *s, const struct tlb_curve *control,
                         const struct knee_params *p)
{
    double *x = malloc(s->main.n * sizeof(double)), *y = malloc(s->main.n * sizeof(double));
    double *cx = malloc((control->n + 1) * sizeof(double)),
           *cy = malloc((control->n + 1) * sizeof(double));
    int rc = -1;
    if (x && y && cx && cy) {
        for (size_t i = 0; i < s->main.n; i++) {
            x[i] = s->main.pts[i].pages;
            y[i] = s->main.pts[i].ns_per_access;
        }
        for (size_t i = 0; i < control->n; i++) {
            cx[i] = control->pts[i].pages;
            cy[i] = control->pts[i].ns_per_access;
        }
        rc = knees_analyse(x, y, s->main.n, cx, cy, control->n, p, &s->analysis);
        s->analysed = rc == 0;
    }
    free(x);
    free(y);
    free(cx);
    free(cy);
    return rc;
}

/* ---------------------------------------------------------------- the team */

struct worker {
    struct region main, control, small_tp, huge_tp;
    uint32_t *order;
    size_t *offsets;
    size_t scratch_n;
    struct tlb_chain chain;
    uint64_t *chunk; /* calibrated chunk per point of the current set (x2: main, control) */
    double *ns;      /* [point][kind][round] */
    int *disturbed;  /* [point][kind] */
    uint64_t sink;
};

struct team {
    const struct tlb_plan *plan;
    const struct topology *topo;
    struct tlb_result *out;
    struct worker *w;
    int error;
    char why[300];
    /* the current set of points */
    double xs[GRID_MAX + REFINE_MAX];
    size_t nx;
    bool refined;
    double tp_t0;
    uint64_t tp_accesses[2];
    bool thp_possible;
    bool stop;         /* a signal came: every thread leaves at the next shared check */
    const char *phase; /* what was under way, for the report */
    double stopped_at; /* the point (pages) under way when it stopped; 0 between points */
};

/* Called by every thread of the team at the same place: true when a signal came, decided once
 * by the master so that all threads leave together (a thread alone would hang the barriers). */
static bool team_should_stop(struct team *tm)
{
#pragma omp barrier
#pragma omp master
    tm->stop = tm->stop || interrupt_signal() != 0;
#pragma omp barrier
    return tm->stop;
}

static void team_fail(struct team *tm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void team_fail(struct team *tm, const char *fmt, ...)
{
#pragma omp critical(tlb_fail)
    {
        if (!tm->error) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(tm->why, sizeof(tm->why), fmt, ap);
            va_end(ap);
            tm->error = EXIT_RESOURCE;
        }
    }
}

static uint64_t point_seed(double x, int kind, int thread)
{
    return (uint64_t)x * 1000003ull + (uint64_t)kind * 7919ull + (uint64_t)thread * 104729ull;
}

/* Which memory a point of a set lives in. */
enum set_kind { SET_SWEEP, SET_HUGE };

static void build_point(const struct team *tm, struct worker *w, int thread, double x, int kind,
                        enum set_kind set)
{
    const struct tlb_options *o = &tm->plan->opts;
    size_t n = (size_t)x;
    if (set == SET_HUGE && kind == 0)
        tlb_chain_build(&w->chain, o->mode, w->huge_tp.base, n, TLB_LAYOUT_SPREAD, TLB_HUGE_2M,
                        o->stagger, o->order, point_seed(x, 2, thread), w->order, w->offsets);
    else if (kind == 0)
        tlb_chain_build(&w->chain, o->mode, w->main.base, n, TLB_LAYOUT_SPREAD,
                        tm->plan->page_bytes, o->stagger, o->order, point_seed(x, 0, thread),
                        w->order, w->offsets);
    else
        tlb_chain_build(&w->chain, o->mode, w->control.base, n, TLB_LAYOUT_DENSE, TLB_SMALL_PAGE,
                        o->stagger, o->order, point_seed(x, 1, thread), w->order, w->offsets);
}

/* Measures the team's current point set: K rounds over all points, main then control at each;
 * with sync every thread samples each point at the same time. */
static void measure_set(struct team *tm, int t, int kinds, enum set_kind set, bool sync)
{
    struct worker *w = &tm->w[t];
    const struct tlb_options *o = &tm->plan->opts;
    unsigned K = o->repeat;
    size_t nx = tm->nx;
    for (unsigned r = 0; r < K; r++) {
        for (size_t i = 0; i < nx; i++) {
            for (int kind = 0; kind < kinds; kind++) {
                size_t slot = i * (size_t)kinds + (size_t)kind;
                build_point(tm, w, t, tm->xs[i], kind, set);
                uint64_t chunk_accesses;
                int chunks = CHUNKS_PER_SAMPLE;
                if (o->trials) { /* seed 000's ./tlb N T: one timed run of T traversals */
                    chunk_accesses = o->trials * (uint64_t)tm->xs[i];
                    chunks = 1;
                } else {
                    if (r == 0) w->chunk[slot] = tlb_calibrate(&w->chain, CHUNK_TARGET_S);
                    chunk_accesses = w->chunk[slot];
                }
                bool stop = sync ? team_should_stop(tm) : (tm->stop |= interrupt_signal() != 0);
                if (stop) {
                    if (t == 0) tm->stopped_at = tm->xs[i];
                    return;
                }
                struct tlb_sample s;
                tlb_sample_run(&w->chain, chunk_accesses, chunks, &s);
                w->sink += w->chain.sink;
                w->ns[slot * K + r] = s.ns_per_access;
                w->disturbed[slot] += s.disturbed;
                if (o->trials && t == 0 && r == 0) tm->out->sample_s = s.seconds;
            }
        }
    }
}

#define SET_POINTS_MAX (GRID_MAX + REFINE_MAX)

/* The per-point buffers hold the largest set, allocated once, so no phase can fail half-way
 * through a team's barriers. */
static int set_buffers(struct worker *w, unsigned K)
{
    size_t slots = (size_t)SET_POINTS_MAX * 2;
    w->chunk = calloc(slots, sizeof(uint64_t));
    w->ns = calloc(slots * K, sizeof(double));
    w->disturbed = calloc(slots, sizeof(int));
    return w->chunk && w->ns && w->disturbed ? 0 : -1;
}

static void set_reset(struct worker *w, unsigned K)
{
    size_t slots = (size_t)SET_POINTS_MAX * 2;
    memset(w->chunk, 0, slots * sizeof(uint64_t));
    memset(w->ns, 0, slots * K * sizeof(double));
    memset(w->disturbed, 0, slots * sizeof(int));
}

/* Moves a measured set into the thread's curves. */
static int set_collect(struct team *tm, int t, struct tlb_curve *main, struct tlb_curve *control)
{
    struct worker *w = &tm->w[t];
    unsigned K = tm->plan->opts.repeat;
    int kinds = control ? 2 : 1;
    for (size_t i = 0; i < tm->nx; i++) {
        size_t slot = i * (size_t)kinds;
        if (!(w->ns[slot * K] > 0)) continue; /* interrupted before its first sample */
        if (curve_add(main, tm->xs[i], &w->ns[slot * K], (int)K, w->disturbed[slot], tm->refined) !=
            0)
            return -1;
        if (control && !isfinite(curve_at(control, tm->xs[i])) &&
            curve_add(control, tm->xs[i], &w->ns[(slot + 1) * K], (int)K, w->disturbed[slot + 1],
                      tm->refined) != 0)
            return -1;
    }
    curve_sort(main);
    if (control) curve_sort(control);
    return 0;
}

/* Measures the current points (tm->xs) once into thread t's curves: the main sweep, and the
 * control too unless control is NULL. Returns 0, or -1 when the curves cannot grow. */
static int measure_into(struct team *tm, int t, enum set_kind set, bool sync,
                        struct tlb_curve *main, struct tlb_curve *control)
{
    set_reset(&tm->w[t], tm->plan->opts.repeat);
    measure_set(tm, t, control ? 2 : 1, set, sync);
    return set_collect(tm, t, main, control);
}

static void knee_params_for(const struct tlb_plan *plan, struct knee_params *p)
{
    knee_params_default(p);
    p->control_random_order = plan->opts.order == TLB_ORDER_RANDOM;
}

/* Refinement points of every thread's analysis, merged. */
static void plan_refinement(struct team *tm)
{
    struct knee_params p;
    knee_params_for(tm->plan, &p);
    double all[REFINE_MAX];
    size_t n_all = 0;
    for (int t = 0; t < tm->out->n_threads; t++) {
        struct tlb_sweep *s = &tm->out->per_thread[t].small;
        if (!s->analysed) continue;
        double x[GRID_MAX + REFINE_MAX], extra[REFINE_MAX];
        for (size_t i = 0; i < s->main.n; i++)
            x[i] = s->main.pts[i].pages;
        size_t m = knees_refine(&s->analysis, &p, x, s->main.n, extra, REFINE_MAX);
        for (size_t i = 0; i < m && n_all < REFINE_MAX; i++) {
            bool dup = false;
            for (size_t j = 0; j < n_all && !dup; j++)
                dup = all[j] == extra[i];
            if (!dup && extra[i] <= (double)tm->plan->max_pages) all[n_all++] = extra[i];
        }
    }
    qsort(all, n_all, sizeof(all[0]), compare_doubles);
    memcpy(tm->xs, all, n_all * sizeof(double));
    tm->nx = n_all;
    tm->refined = true;
}

/* Cache sizes above a PU from hwloc: L1d, L2, L3 (0 when unknown). */
static void pu_caches(const struct topology *topo, int pu, uint64_t *l1, uint64_t *l2, uint64_t *l3)
{
    *l1 = *l2 = *l3 = 0;
    hwloc_obj_t o = pu >= 0 ? hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)pu)
                            : hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PU, 0);
    for (; o; o = o->parent) {
        if (!hwloc_obj_type_is_cache(o->type) || o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
            continue;
        uint64_t size = o->attr->cache.size;
        if (o->attr->cache.depth == 1 && !*l1) *l1 = size;
        if (o->attr->cache.depth == 2 && !*l2) *l2 = size;
        if (o->attr->cache.depth == 3 && !*l3) *l3 = size;
    }
}

static void label_cache_knees(struct tlb_sweep *s, const struct tlb_result *out)
{
    const struct knee_analysis *a = &s->analysis;
    const uint64_t sizes[3] = {out->l1d_bytes, out->l2_bytes, out->l3_bytes};
    static const char *const names[3] = {"L1d", "L2", "L3"};
    s->n_cache_knees = 0;
    for (size_t k = 0; k < a->n_cache_knees && s->n_cache_knees < TLB_CACHE_KNEES_MAX; k++) {
        struct tlb_cache_knee *c = &s->cache_knees[s->n_cache_knees++];
        c->last_low = a->cache_knees[k].last_low;
        c->first_high = a->cache_knees[k].first_high;
        c->step_ns = a->cache_knees[k].step_ns;
        c->label[0] = '\0';
        double lo = c->last_low * TLB_LINE_BYTES, hi = c->first_high * TLB_LINE_BYTES;
        for (int i = 0; i < 3; i++) {
            if (!sizes[i] || !(lo <= 1.1 * (double)sizes[i] && hi >= 0.5 * (double)sizes[i]))
                continue;
            char size[32];
            format_bytes(sizes[i], size, sizeof(size));
            snprintf(c->label, sizeof(c->label), "%s %s = %llu lines", names[i], size,
                     (unsigned long long)(sizes[i] / TLB_LINE_BYTES));
            break;
        }
    }
}

static void document_levels(struct tlb_sweep *s, const struct cpuid_tlb_info *info,
                            unsigned page_bit)
{
    for (size_t i = 0; i < TLB_LEVELS_MAX; i++) {
        s->documented[i] = 0;
        s->agrees[i] = -1;
        s->reach_bytes[i] = NAN;
    }
    for (size_t i = 0; i < s->analysis.n_levels; i++) {
        const struct knee_level *l = &s->analysis.levels[i];
        if (strcmp(l->name, "page walk") == 0) continue;
        s->documented[i] = cpuid_tlb_data_entries(info, (int)i + 1, page_bit);
        if (s->documented[i] && isfinite(l->entries))
            s->agrees[i] = knees_entries_agree(l->entries, l->entries_high, s->documented[i]);
        if (isfinite(l->entries)) s->reach_bytes[i] = l->entries * (double)s->page_bytes;
    }
}

/* Per-thread levels against their peers: entries more than 12.5% apart, or costs more than
 * 25% and 0.5 ns apart, flag a thread. */
static void compare_threads(struct tlb_result *out)
{
    if (out->n_threads < 2) return;
    for (int t = 0; t < out->n_threads; t++) {
        struct tlb_thread_result *me = &out->per_thread[t];
        const struct knee_analysis *a = &me->small.analysis;
        for (size_t l = 0; l < a->n_levels && !me->differs; l++) {
            const struct knee_level *mine = &a->levels[l];
            double entries[256], hit[256], pen[256];
            int m = 0;
            for (int u = 0; u < out->n_threads && m < 256; u++) {
                const struct knee_analysis *b = &out->per_thread[u].small.analysis;
                if (u == t || l >= b->n_levels) continue;
                entries[m] = b->levels[l].entries;
                hit[m] = b->levels[l].hit_ns;
                pen[m++] = b->levels[l].miss_penalty_ns;
            }
            if (m == 0) continue;
            qsort(entries, (size_t)m, sizeof(double), compare_doubles);
            qsort(hit, (size_t)m, sizeof(double), compare_doubles);
            qsort(pen, (size_t)m, sizeof(double), compare_doubles);
            double e = entries[m / 2], h = hit[m / 2], p = pen[m / 2];
            if (isfinite(mine->entries) && isfinite(e) && fabs(mine->entries - e) > 0.125 * e)
                snprintf(me->why_differs, sizeof(me->why_differs),
                         "%s: %.0f entries, its peers %.0f", mine->name, mine->entries, e);
            else if (isfinite(mine->hit_ns) && isfinite(h) && fabs(mine->hit_ns - h) > 0.25 * h &&
                     fabs(mine->hit_ns - h) > 0.5)
                snprintf(me->why_differs, sizeof(me->why_differs),
                         "%s: %.2f ns per access, its peers %.2f", mine->name, mine->hit_ns, h);
            else if (isfinite(mine->miss_penalty_ns) && isfinite(p) &&
                     fabs(mine->miss_penalty_ns - p) > 0.25 * p &&
                     fabs(mine->miss_penalty_ns - p) > 0.5)
                snprintf(me->why_differs, sizeof(me->why_differs),
                         "%s: miss +%.2f ns, its peers +%.2f", mine->name, mine->miss_penalty_ns,
                         p);
            me->differs = me->why_differs[0] != '\0';
        }
        for (int u = 0; u < out->n_threads && !me->differs; u++)
            if (u != t && out->per_thread[u].small.analysis.n_levels != a->n_levels) {
                snprintf(me->why_differs, sizeof(me->why_differs),
                         "%zu levels found, thread %d has %zu", a->n_levels, u,
                         out->per_thread[u].small.analysis.n_levels);
                me->differs = true;
            }
        out->n_differ += me->differs;
    }
}

static void finish_sweep(struct tlb_sweep *s, const struct tlb_curve *control,
                         const struct tlb_plan *plan, struct tlb_result *out, unsigned page_bit,
                         const struct knee_params *p)
{
    /* with --no-stagger the sweep's accesses share one cache set, which the control (its
     * lines spread over its pages) cannot reproduce: no control, so no level is named */
    const struct tlb_curve none = {0};
    if (analyse_sweep(s, plan->opts.stagger ? control : &none, p) != 0) return;
    if (plan->opts.mode == TLB_MODE_INC) {
        /* independent accesses overlap their misses, so a level's knee can vanish (seed 000:
         * the first one does): knees are numbered, never named or compared with CPUID */
        for (size_t i = 0; i < s->analysis.n_levels; i++) {
            struct knee_level *l = &s->analysis.levels[i];
            if (strcmp(l->name, "page walk") == 0)
                snprintf(l->name, sizeof(l->name), "past knee %d", (int)i % 10);
            else
                snprintf(l->name, sizeof(l->name), "TLB knee %d", (int)(i + 1) % 10);
        }
        document_levels(s, &(struct cpuid_tlb_info){0}, page_bit);
        for (size_t i = 0; i < TLB_LEVELS_MAX; i++)
            s->reach_bytes[i] = NAN;
        label_cache_knees(s, out);
        return;
    }
    document_levels(s, &out->cpuid, page_bit);
    label_cache_knees(s, out);
}

/* ---------------------------------------------------------------- phases */

static void warm_up(struct team *tm, int t)
{
    struct worker *w = &tm->w[t];
    double pages = tm->plan->max_pages < 16 ? (double)tm->plan->max_pages : 16.0;
    build_point(tm, w, t, pages, 0, SET_SWEEP);
    double t0 = timer_now();
    while (timer_now() - t0 < WARMUP_S && !interrupt_signal())
        tlb_chain_run(&w->chain, 100000);
    w->sink += w->chain.sink;
}

static void curve_free(struct tlb_curve *c);

/* An interrupted 2 MB sweep: not reported (the 4 KB sweep is). */
static void huge_dropped(struct tlb_result *out, struct worker *w)
{
    curve_free(&out->huge.main);
    out->huge.analysed = false;
    snprintf(out->huge_why, sizeof(out->huge_why), "interrupted before it finished");
    region_release(&w->huge_tp);
}

/* The 2 MB sweep and the splinter check, on thread 0 only. */
static void huge_phase(struct team *tm)
{
    const struct tlb_plan *plan = tm->plan;
    struct tlb_result *out = tm->out;
    struct worker *w = &tm->w[0];
    char why[300];
    size_t n = (size_t)plan->max_huge_pages;
    if (region_alloc_huge(&w->huge_tp, n * TLB_HUGE_2M, why, sizeof(why)) != 0) {
        snprintf(out->huge_why, sizeof(out->huge_why), "%.230s", why);
        return;
    }
    if (!region_touch(&w->huge_tp, TLB_HUGE_2M)) {
        tm->stop = true;
        huge_dropped(out, w);
        return;
    }
    backing_verify(SMAPS, w->huge_tp.backend, (uintptr_t)w->huge_tp.base,
                   (uintptr_t)(w->huge_tp.base + n * TLB_HUGE_2M), w->huge_tp.how,
                   &out->huge_backing);
    if (tlb_huge_confirmed(&out->huge_backing, 0.99, out->huge_why, sizeof(out->huge_why)) != 0) {
        region_release(&w->huge_tp);
        return;
    }
    struct tlb_sweep *s = &out->huge;
    s->page_bytes = TLB_HUGE_2M;
    tm->nx = sweep_grid(n, tm->xs, GRID_MAX);
    tm->refined = false;
    struct knee_params p;
    knee_params_for(plan, &p);
    struct tlb_sweep *small = &out->per_thread[0].small;
    if (small->analysis.n_levels > 0 && isfinite(small->analysis.levels[0].entries)) {
        /* the control lives on 4 KB pages: its own misses follow the 4 KB first level */
        p.control_tlb_entries = small->analysis.levels[0].entries;
        p.control_tlb_high = small->analysis.levels[0].entries_high;
        p.control_tlb_penalty_ns = small->analysis.levels[0].miss_penalty_ns;
    }
    for (int pass = 0; pass < 2 && tm->nx > 0; pass++) {
        /* the grid's points are in the control already; refinement points get theirs */
        if (measure_into(tm, 0, SET_HUGE, false, &s->main, pass == 0 ? NULL : &small->control) != 0)
            return;
        if (tm->stop) { /* a part of a 2 MB sweep is not reported: the 4 KB one is */
            huge_dropped(out, w);
            return;
        }
        finish_sweep(s, &small->control, plan, out, TLB_PAGE_2M, &p);
        if (pass == 0 && s->analysed) {
            double x[GRID_MAX + REFINE_MAX];
            for (size_t i = 0; i < s->main.n; i++)
                x[i] = s->main.pts[i].pages;
            tm->nx = knees_refine(&s->analysis, &p, x, s->main.n, tm->xs, REFINE_MAX);
            tm->refined = true;
        }
    }
    s->control = small->control; /* shared, for the writers */
    s->control_owned = false;
    out->huge_measured = true;
    if (plan->huge_why[0]) snprintf(s->note, sizeof(s->note), "%s", plan->huge_why);

    /* splinter check: 512 distinct 4 KB pieces of one 2 MB page, against 512 separate 4 KB
     * pages and the control, re-measured in the same rounds so that other work on the machine
     * weighs on all three alike */
    double at = 0;
    for (size_t i = 0; i < small->main.n; i++)
        if (small->main.pts[i].pages <= SPLINTER_N && !small->main.pts[i].refined)
            at = small->main.pts[i].pages;
    if (at >= 8) {
        const struct tlb_options *o = &plan->opts;
        double best[3] = {INFINITY, INFINITY, INFINITY};
        for (unsigned r = 0; r < o->repeat && !(tm->stop |= interrupt_signal() != 0); r++) {
            for (int which = 0; which < 3; which++) {
                char *base = which == 0   ? w->huge_tp.base
                             : which == 1 ? w->main.base
                                          : w->control.base;
                tlb_chain_build(&w->chain, o->mode, base, (size_t)at,
                                which == 2 ? TLB_LAYOUT_DENSE : TLB_LAYOUT_SPREAD, TLB_SMALL_PAGE,
                                o->stagger, o->order, point_seed(at, 3 + which, 0), w->order,
                                w->offsets);
                uint64_t chunk = tlb_calibrate(&w->chain, CHUNK_TARGET_S);
                struct tlb_sample smp;
                tlb_sample_run(&w->chain, chunk, CHUNKS_PER_SAMPLE, &smp);
                w->sink += w->chain.sink;
                if (smp.ns_per_access < best[which]) best[which] = smp.ns_per_access;
            }
        }
        struct tlb_splinter *sp = &out->splinter;
        sp->measured = !tm->stop;
        sp->at = at;
        sp->huge_ns = best[0];
        sp->small_ns = best[1];
        sp->control_ns = best[2];
        double gap = sp->small_ns - sp->control_ns;
        double min_gap = fmax(0.15 * sp->small_ns, 0.3);
        double r = gap > min_gap ? (sp->huge_ns - sp->control_ns) / gap : NAN;
        sp->verdict = !isfinite(r) ? -1 : r <= 0.3 ? 1 : r >= 0.7 ? 0 : -1;
    }
    region_release(&w->huge_tp);
}

/* Random independent loads over 128 MiB per thread, one per 4 KB page, on 4 KB and on 2 MB
 * backing, every thread at once: aggregate translations per second. The two backings
 * alternate round by round, so other work on the machine weighs on both alike. */
static void throughput_phase(struct team *tm, int t)
{
    const struct tlb_plan *plan = tm->plan;
    struct tlb_result *out = tm->out;
    struct worker *w = &tm->w[t];
    const size_t pages = THROUGHPUT_BYTES / TLB_SMALL_PAGE;
    unsigned K = plan->opts.repeat;
    if (team_should_stop(tm)) return;
    if (t == 0) tm->phase = "its page-walk throughput phase";
    tlb_shuffle(w->order, pages, 0x7157ull + (uint64_t)t);
    struct region *regions[2] = {&w->small_tp, &w->huge_tp};
    size_t pos[2] = {0, 0};
    for (int which = 0; which < 2; which++) {
        struct tlb_throughput *tp = &out->walk[which];
        struct region *r = regions[which];
        char why[300] = "";
        int failed = 0;
        if (which && !tm->thp_possible)
            failed = 1;
        else if ((which ? region_alloc_huge(r, THROUGHPUT_BYTES, why, sizeof(why))
                        : region_alloc_small(r, THROUGHPUT_BYTES, "4k", why, sizeof(why))) != 0)
            failed = 2;
        struct backing_info b = {0};
        if (!failed) {
            region_touch(r, which ? TLB_HUGE_2M : TLB_SMALL_PAGE);
            backing_verify(SMAPS, r->backend, (uintptr_t)r->base, (uintptr_t)(r->base + r->bytes),
                           r->how, &b);
            if (which && tlb_huge_confirmed(&b, 0.9, why, sizeof(why)) != 0) {
                failed = 3;
            } else if (!which && b.verified && b.anon_huge_bytes > 0) {
                snprintf(why, sizeof(why), "the 4 KB region came back %.0f%% on huge pages",
                         100.0 * b.thp_fraction);
                failed = 3;
            }
        }
#pragma omp critical(tlb_tp)
        {
            if (failed && !tp->why[0])
                snprintf(tp->why, sizeof(tp->why), "%.190s",
                         failed == 1 ? "transparent huge pages are off ([never])" : why);
            if (!failed && (t == 0 || b.thp_fraction < tp->thp_fraction))
                tp->thp_fraction = b.thp_fraction;
        }
    }
#pragma omp barrier
    bool go[2] = {!out->walk[0].why[0], !out->walk[1].why[0]};
    uint64_t accesses[2] = {pages, pages};
    for (int which = 0; which < 2; which++) {
        if (!go[which]) continue;
        w->sink += tlb_walk_loads(regions[which]->base, w->order, pages, &pos[which], pages);
        if (t == 0) { /* thread 0 sizes a round to >= 50 ms */
            double t0 = timer_now();
            w->sink += tlb_walk_loads(regions[which]->base, w->order, pages, &pos[which], pages);
            double dt = timer_now() - t0;
            uint64_t reps = dt > 0 ? (uint64_t)ceil(THROUGHPUT_MIN_S / dt) : 1;
            tm->tp_accesses[which] = pages * (reps < 1 ? 1 : reps);
        }
    }
#pragma omp barrier
    accesses[0] = tm->tp_accesses[0];
    accesses[1] = tm->tp_accesses[1];
    double rates[2][1000];
    for (unsigned k = 0; k < K && !team_should_stop(tm); k++) {
        for (int which = 0; which < 2; which++) {
            if (!go[which]) continue;
#pragma omp barrier
            if (t == 0) tm->tp_t0 = timer_now();
#pragma omp barrier
            w->sink +=
                tlb_walk_loads(regions[which]->base, w->order, pages, &pos[which], accesses[which]);
#pragma omp barrier
            if (t == 0) {
                double dt = timer_now() - tm->tp_t0;
                rates[which][k] = dt > 0 ? (double)accesses[which] * plan->threads / dt : 0.0;
            }
        }
    }
    for (int which = 0; which < 2 && t == 0; which++) {
        if (!go[which]) continue;
        struct tlb_throughput *tp = &out->walk[which];
        if (tm->stop) { /* rounds missing: not reported */
            snprintf(tp->why, sizeof(tp->why), "interrupted before it finished");
            continue;
        }
        qsort(rates[which], K, sizeof(double), compare_doubles);
        tp->measured = true;
        tp->best_accesses_per_s = rates[which][K - 1];
        tp->median_accesses_per_s =
            K % 2 ? rates[which][K / 2] : 0.5 * (rates[which][K / 2 - 1] + rates[which][K / 2]);
        tp->region_bytes = THROUGHPUT_BYTES;
        tp->threads = plan->threads;
    }
#pragma omp barrier
    region_release(regions[0]);
    region_release(regions[1]);
}

static void describe_reach(struct tlb_result *out)
{
    char *s = out->reach_note;
    size_t len = sizeof(out->reach_note), used = 0;
    struct tlb_sweep *small = &out->per_thread[0].small;
    const struct tlb_splinter *sp = &out->splinter;
    if (!out->huge_measured) {
        out->huge_extends_reach = -1;
        return;
    }
    if (sp->verdict == 0) {
        out->huge_extends_reach = 0;
        for (size_t i = 0; i < TLB_LEVELS_MAX; i++) /* entries x 2 MiB would be a fiction */
            out->huge.reach_bytes[i] = NAN;
        used += (size_t)snprintf(
            s + used, len - used,
            "2 MB pages are translated in 4 KB pieces here: %.0f distinct 4 KB pieces of one 2 MB "
            "page cost %.2f ns per access, %s %.0f separate 4 KB pages (%.2f ns) and far more "
            "than the control (%.2f ns)",
            sp->at, sp->huge_ns, sp->huge_ns > 1.15 * sp->small_ns ? "more than" : "as much as",
            sp->at, sp->small_ns, sp->control_ns);
        snprintf(s + used, len - used, "%s; huge pages do not extend the TLB reach",
                 out->cpuid.hypervisor
                     ? " (a VM whose host backs guest memory with 4 KB pages splits them)"
                     : "");
        return;
    }
    const struct tlb_sweep *huge = &out->huge;
    double small_reach = small->analysis.n_levels ? small->reach_bytes[0] : NAN;
    double huge_reach = huge->analysis.n_levels ? huge->reach_bytes[0] : NAN;
    if (sp->verdict == 1 && isfinite(small_reach) && isfinite(huge_reach)) {
        out->huge_extends_reach = huge_reach > small_reach;
        char a[32], b[32];
        format_bytes((uint64_t)small_reach, a, sizeof(a));
        format_bytes((uint64_t)huge_reach, b, sizeof(b));
        snprintf(s, len,
                 "2 MB pages are translated whole (%.0f pieces of one 2 MB page cost %.2f ns, like "
                 "the control's %.2f ns); first-level reach %s with 2 MB pages against %s with "
                 "4 KB pages",
                 sp->at, sp->huge_ns, sp->control_ns, b, a);
        return;
    }
    out->huge_extends_reach = -1;
    if (sp->measured)
        snprintf(s, len,
                 "unclear whether 2 MB pages are translated whole: %.0f pieces of one 2 MB page "
                 "cost %.2f ns, between separate 4 KB pages (%.2f ns) and the control (%.2f ns)",
                 sp->at, sp->huge_ns, sp->small_ns, sp->control_ns);
    else
        snprintf(s, len, "the 4 KB sweep shows no translation cost at %.0f pages to compare with",
                 SPLINTER_N);
}

static int team_setup(struct team *tm, int t)
{
    const struct tlb_plan *plan = tm->plan;
    struct worker *w = &tm->w[t];
    char why[300];
    size_t n = (size_t)plan->max_pages;
    size_t scratch = n;
    if (plan->huge && plan->max_huge_pages > scratch) scratch = (size_t)plan->max_huge_pages;
    if (!plan->opts.pages && THROUGHPUT_BYTES / TLB_SMALL_PAGE > scratch)
        scratch = THROUGHPUT_BYTES / TLB_SMALL_PAGE;
    w->order = malloc(scratch * sizeof(uint32_t));
    w->offsets = malloc(scratch * sizeof(size_t));
    w->scratch_n = scratch;
    if (!w->order || !w->offsets || set_buffers(w, plan->opts.repeat) != 0) {
        team_fail(tm, "out of memory for the TLB probe's bookkeeping");
        return -1;
    }
    if (region_alloc_small(&w->main, n * plan->page_bytes, plan->pages_name, why, sizeof(why)) !=
            0 ||
        region_alloc_small(&w->control, tlb_layout_bytes(TLB_LAYOUT_DENSE, n, 0), "4k", why,
                           sizeof(why)) != 0) {
        team_fail(tm, "%s", why);
        return -1;
    }
    region_touch(&w->main, plan->page_bytes < TLB_SMALL_PAGE ? plan->page_bytes : TLB_SMALL_PAGE);
    region_touch(&w->control, TLB_SMALL_PAGE);
    struct backing_info b;
    backing_verify(SMAPS, w->main.backend, (uintptr_t)w->main.base,
                   (uintptr_t)(w->main.base + w->main.bytes), w->main.how, &b);
    if (t == 0) tm->out->backing = b;
    if (strcmp(plan->pages_name, "4k") == 0 && b.verified &&
        (b.anon_huge_bytes > 0 || b.page_size_bytes != TLB_SMALL_PAGE)) {
        team_fail(tm,
                  "the 4 KB sweep's memory came back %.0f%% on huge pages despite "
                  "MADV_NOHUGEPAGE; check /sys/kernel/mm/transparent_hugepage/enabled",
                  100.0 * b.thp_fraction);
        return -1;
    }
    return 0;
}

static void team_teardown(struct worker *w)
{
    region_release(&w->main);
    region_release(&w->control);
    region_release(&w->small_tp);
    region_release(&w->huge_tp);
    free(w->order);
    free(w->offsets);
    free(w->chunk);
    free(w->ns);
    free(w->disturbed);
}

static void analyse_all(struct team *tm)
{
    struct knee_params p;
    knee_params_for(tm->plan, &p);
    unsigned bit = tm->plan->page_bytes == TLB_SMALL_PAGE ? TLB_PAGE_4K : TLB_PAGE_2M;
    for (int u = 0; u < tm->out->n_threads; u++) {
        struct tlb_sweep *s = &tm->out->per_thread[u].small;
        finish_sweep(s, &s->control, tm->plan, tm->out, bit, &p);
    }
}

static void team_run(struct team *tm)
{
    const struct tlb_plan *plan = tm->plan;
    struct tlb_result *out = tm->out;
#pragma omp parallel num_threads(plan->threads)
    {
        int t = omp_get_thread_num();
        struct tlb_thread_result *res = &out->per_thread[t];
        bool bound = false;
        int pu = bind_this_thread(tm->topo, plan->pus[t] >= 0 ? BIND_LIST : BIND_NONE, plan->pus[t],
                                  &bound);
        res->bound = bound;
        res->pu = pu;
        res->small.page_bytes = plan->page_bytes;
        res->small.control_owned = true;
        team_setup(tm, t);
        if (!team_should_stop(tm) && !tm->error) {
            warm_up(tm, t);
            if (t == 0) {
                out->tsc_ghz = tlb_tsc_ghz();
                out->core_ghz = tlb_core_ghz_estimate();
                tm->phase = plan->opts.pages                     ? "its single point"
                            : plan->page_bytes == TLB_SMALL_PAGE ? "the 4 KB sweep"
                                                                 : "the sweep";
            }
#pragma omp barrier
            struct tlb_curve *control = plan->opts.pages ? NULL : &res->small.control;
            if (measure_into(tm, t, SET_SWEEP, true, &res->small.main, control) != 0)
                team_fail(tm, "out of memory for results");
            if (control) {
#pragma omp barrier
                if (t == 0) {
                    analyse_all(tm); /* interrupted: the points measured so far */
                    if (!tm->stop) {
                        plan_refinement(tm);
                        tm->phase = "the sweep's refinement";
                    }
                }
                if (!team_should_stop(tm)) {
                    if (tm->nx > 0 &&
                        measure_into(tm, t, SET_SWEEP, true, &res->small.main, control) != 0)
                        team_fail(tm, "out of memory for results");
#pragma omp barrier
                    if (t == 0) {
                        analyse_all(tm);
                        compare_threads(out);
                        tm->phase = "the 2 MB sweep";
                        if (plan->huge && !tm->stop) huge_phase(tm);
                        describe_reach(out);
                    }
                    throughput_phase(tm, t);
                }
            }
        }
        int end = sched_getcpu();
        res->migrated = end != pu;
#pragma omp critical(tlb_sink)
        out->sink_ += tm->w[t].sink;
        team_teardown(&tm->w[t]);
    }
}

/* What an interrupted probe reports: the points measured before the signal. */
static void describe_stop(const struct team *tm)
{
    struct tlb_result *out = tm->out;
    size_t points = out->n_threads ? out->per_thread[0].small.main.n : 0;
    char at[48] = "";
    if (tm->stopped_at > 0)
        snprintf(at, sizeof(at), " at %.0f page%s", tm->stopped_at, tm->stopped_at == 1 ? "" : "s");
    out->stopped = true;
    for (int i = 0; i < 2; i++)
        if (!out->walk[i].measured && !out->walk[i].why[0])
            snprintf(out->walk[i].why, sizeof(out->walk[i].why), "interrupted before it ran");
    if (tm->plan->huge && !out->huge_measured && !out->huge_why[0])
        snprintf(out->huge_why, sizeof(out->huge_why), "interrupted before it ran");
    if (!tm->phase || points == 0)
        snprintf(out->stopped_note, sizeof(out->stopped_note),
                 "the TLB probe stopped before its first point was measured");
    else
        snprintf(out->stopped_note, sizeof(out->stopped_note),
                 "the TLB probe stopped in %s%s; reporting the %zu point%s measured", tm->phase, at,
                 points, points == 1 ? "" : "s");
}

int run_tlb(const struct tlb_plan *plan, const struct topology *topo, const struct sys_info *sys,
            const struct timer_info *timer, struct tlb_result *out)
{
    fill_config(plan, out);
    locate_threads(plan, topo, out);
    if (!out->per_thread) {
        log_error("out of memory for the TLB probe's results");
        return EXIT_RESOURCE;
    }
    cpuid_tlb_read(&out->cpuid);
    pu_caches(topo, plan->pus[0], &out->l1d_bytes, &out->l2_bytes, &out->l3_bytes);
    out->timer_call_s = timer->call_cost_s;
    struct team tm = {.plan = plan, .topo = topo, .out = out};
    tm.thp_possible = strcmp(sys->thp_enabled, "never") != 0;
    tm.w = calloc((size_t)plan->threads, sizeof(*tm.w));
    if (!tm.w) {
        log_error("out of memory for the TLB probe");
        return EXIT_RESOURCE;
    }
    if (plan->opts.pages) {
        tm.nx = 1;
        tm.xs[0] = (double)plan->opts.pages;
    } else {
        tm.nx = sweep_grid(plan->max_pages, tm.xs, GRID_MAX);
    }
    char why[300];
    if (threads_can_start((unsigned)plan->threads, why, sizeof(why)) != 0) {
        free(tm.w);
        log_error("%s", why);
        return EXIT_RESOURCE;
    }
    omp_set_dynamic(0);
    double t0 = timer_now();
    team_run(&tm);
    out->seconds = timer_now() - t0;
    free(tm.w);
    if (tm.error) {
        log_error("%s", tm.why);
        return tm.error;
    }
    if (tm.stop) describe_stop(&tm);
    for (int t = 0; t < out->n_threads; t++) {
        const struct tlb_thread_result *r = &out->per_thread[t];
        if (plan->pus[t] >= 0 && (!r->bound || r->pu != plan->pus[t] || r->migrated))
            add_warning(out, "thread %d was not kept on PU %d (ran on %d%s)", t, plan->pus[t],
                        r->pu, r->migrated ? ", then moved" : "");
    }
    if (plan->page_bytes > TLB_SMALL_PAGE && out->backing.verified &&
        out->backing.page_size_bytes < plan->page_bytes)
        add_warning(out,
                    "--pages %s: smaps shows %llu-byte pages under the sweep, not %llu: the "
                    "stride is one access per %llu bytes but the pages are smaller",
                    plan->pages_name, (unsigned long long)out->backing.page_size_bytes,
                    (unsigned long long)plan->page_bytes, (unsigned long long)plan->page_bytes);
    if (plan->pus[0] < 0)
        add_warning(out, "the probe is not pinned (--cpu -1): moving to another core leaves the "
                         "TLB cold and spoils points");
    if (!plan->opts.stagger)
        add_warning(out, "--no-stagger: every page uses cache line 0, so cache-set conflicts add "
                         "knees that the control (lines spread over its pages) cannot reproduce; "
                         "no level is named");
    if (plan->opts.mode == TLB_MODE_INC)
        add_warning(out, "--tlb-mode inc: independent accesses overlap their misses, so knees "
                         "are faint or missing; they are numbered, not named as TLB levels "
                         "(--tlb-mode chase measures latency)");
    long chunks = 0, disturbed = 0;
    for (int t = 0; t < out->n_threads; t++)
        for (size_t i = 0; i < out->per_thread[t].small.main.n; i++) {
            const struct tlb_point *p = &out->per_thread[t].small.main.pts[i];
            chunks += (long)p->samples * (out->trials ? 1 : CHUNKS_PER_SAMPLE);
            disturbed += p->disturbed_chunks;
        }
    if (chunks && disturbed * 10 > chunks)
        add_warning(out,
                    "%.0f%% of the timed chunks ran slower than 1.5x their sample's median: "
                    "other work on this machine; samples are medians, points the min of %u",
                    100.0 * (double)disturbed / (double)chunks, plan->opts.repeat);
    if (out->single_point && out->trials) {
        out->timer_share = out->sample_s > 0 ? 2.0 * timer->call_cost_s / out->sample_s : 1.0;
        if (out->timer_share > 0.01)
            add_warning(out,
                        "one sample of %llu trials took %.1f us: the two clock readings (%.0f ns "
                        "each) are %.1f%% of it; raise --tlb-trials",
                        (unsigned long long)out->trials, out->sample_s * 1e6,
                        timer->call_cost_s * 1e9, 100.0 * out->timer_share);
    }
    out->measured = true;
    return EXIT_OK;
}

static void curve_free(struct tlb_curve *c)
{
    free(c->pts);
    c->pts = NULL;
    c->n = 0;
}

void tlb_result_free(struct tlb_result *r)
{
    for (int t = 0; r->per_thread && t < r->n_threads; t++) {
        curve_free(&r->per_thread[t].small.main);
        curve_free(&r->per_thread[t].small.control);
    }
    free(r->per_thread);
    r->per_thread = NULL;
    curve_free(&r->huge.main);
    r->huge.control = (struct tlb_curve){0};
}
