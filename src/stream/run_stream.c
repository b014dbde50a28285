#include "src/stream/run_stream.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/bind.h"
#include "affinity/membind.h"
#include "affinity/thread_start.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/page_sizes.h"
#include "src/base/parse.h"
#include "src/base/test_hooks.h"
#include "src/base/warnings.h"
#include "src/stream/finish_spread.h"
#include "src/stream/plan_memcache.h"
#include "src/stream/stream_checks.h"
#include "src/stream/stream_hooks.h"
#include "src/stream/stream_team.h"

/* --stores auto's choice; on an ISA without non-temporal stores there is nothing to choose. */
static void init_store_choice(struct store_choice *c, const struct run_config *cfg)
{
    store_choice_init(c, cfg->stores_requested, cfg->stores_from_reference, cfg->kernel_mask);
    if (c->method != STORES_MEASURED || isa_has_nt(cfg->isa)) return;
    c->method = STORES_NOT_MEASURED;
    c->why = "this ISA has no non-temporal stores: normal stores";
}

void run_describe(const struct run_config *cfg, const struct topology *topo, struct run_result *out)
{
    memset(out, 0, sizeof(*out));
    out->config = *cfg;
    init_store_choice(&out->stores_choice, cfg);
    if (out->stores_choice.method == STORES_MEASURED) { /* until run_stream measures */
        out->stores_choice.method = STORES_NOT_MEASURED;
        out->stores_choice.why = "not run: auto times both store kinds on the first repetition";
    }
    if (cfg->in_memcache) {
        char note[300];
        plan_memcache_note(cfg, note, sizeof(note));
        WARNINGS_ADD(out, "%s", note);
    }
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(cfg->kernel_mask & (1u << k))) continue;
        struct kernel_result *r = &out->results[out->n_results++];
        r->kernel = (enum kernel_id)k;
        r->bytes_counted = kernel_bytes_counted(&kernel_table[k], cfg->elements, cfg->type);
        r->stores = cfg->kernel_stores[k];
        r->rep_spread = -1.0; /* until measured */
        r->bytes_estimated_traffic = kernel_bytes_traffic(&kernel_table[k], cfg->elements,
                                                          cfg->type, r->stores == STORES_NT);
    }
    if (!cfg->pus) return;
    out->placement = calloc(cfg->threads, sizeof(*out->placement));
    if (!out->placement) return;
    out->n_placement = (int)cfg->threads;
    for (unsigned t = 0; t < cfg->threads; t++) {
        out->placement[t].thread = (int)t;
        out->placement[t].planned_pu = cfg->pus[t];
        out->placement[t].pu = cfg->pus[t];
    }
    placement_locate(topo, out->placement, out->n_placement);
}

static void summarise(const double *times, unsigned ntimes, struct kernel_result *r)
{
    double sum = 0.0, lo = times[1], hi = times[1];
    for (unsigned i = 1; i < ntimes; i++) { /* the first repetition is a warm-up */
        sum += times[i];
        lo = times[i] < lo ? times[i] : lo;
        hi = times[i] > hi ? times[i] : hi;
    }
    r->avg_time_s = sum / (double)(ntimes - 1);
    r->min_time_s = lo;
    r->max_time_s = hi;
    /* rates are bytes / time: (max_rate - min_rate) / max_rate = 1 - min_time / max_time */
    r->rep_spread = ntimes >= 3 && hi > 0.0 ? (hi - lo) / hi : -1.0;
    r->best_rate_mbps = lo > 0.0 ? 1e-6 * (double)r->bytes_counted / lo : 0.0;
}

static int domain_of(const struct placement_entry *p, enum domain_kind kind)
{
    switch (kind) {
    case DOMAIN_NUMA: return p->numa;
    case DOMAIN_PACKAGE: return p->package;
    case DOMAIN_LLC: return p->llc;
    default: return -1;
    }
}

/* Groups threads by domain; thread_domain[t] becomes an index into out->domains. */
static int build_domains(const struct run_config *cfg, struct run_result *out, int *thread_domain)
{
    int n = 0;
    out->domains = calloc(cfg->threads, sizeof(*out->domains));
    if (!out->domains) return -1;
    for (int t = 0; t < out->n_placement; t++) {
        int id = domain_of(&out->placement[t], cfg->per_domain), d;
        for (d = 0; d < n && out->domains[d].index != id; d++)
            ;
        if (d == n) out->domains[n++].index = id;
        thread_domain[t] = d;
        out->domains[d].n_threads++;
    }
    out->n_domains = n;
    return 0;
}

/* The measured store kinds become the run's: each kernel's, the run's name for them ("mixed"
 * when they differ), STREAM's "tuned" (any non-temporal kernel) and the traffic. */
static void apply_stores(struct run_result *out)
{
    struct run_config *c = &out->config;
    const struct store_choice *sc = &out->stores_choice;
    bool any_nt = false, any_normal = false;
    for (int i = 0; i < out->n_results; i++) {
        struct kernel_result *r = &out->results[i];
        if (!(sc->kernel_mask & (1u << r->kernel))) continue;
        r->stores = c->kernel_stores[r->kernel] = sc->chosen[r->kernel];
        any_nt |= r->stores == STORES_NT;
        any_normal |= r->stores == STORES_NORMAL;
        r->bytes_estimated_traffic = kernel_bytes_traffic(&kernel_table[r->kernel], c->elements,
                                                          c->type, r->stores == STORES_NT);
    }
    c->stores_kind = any_nt && !any_normal ? STORES_NT : STORES_NORMAL;
    c->stores = any_nt && any_normal ? "mixed" : any_nt ? "nt" : "normal";
    c->tuned = any_nt;
}

/* Reductions are checked on every repetition against the closed form; the worst counts. */
static void validate_reductions(const struct team *tm, struct run_result *out)
{
    double tol = reduction_tolerance(tm->cfg->type);
    for (int i = 0; i < out->n_results; i++) {
        struct kernel_result *r = &out->results[i];
        if (!kernel_table[r->kernel].reduction) continue;
        r->reduction_rel_error = tm->reduction_err[r->kernel];
        r->reduction_checked = true;
        if (!(r->reduction_rel_error <= tol)) {
            out->validation.passed = false;
            out->validation.failed_reduction = (int)r->kernel;
        }
    }
}

/* membench-hooked: a kernel's best rate set, then scaled (by kernel, then by run), its times
 * following. */
static void test_rates(const struct stream_hooks *h, double run_scale, struct kernel_result *r)
{
    double f = run_scale;
    if (h->rate_fixed[r->kernel] > 0 && r->best_rate_mbps > 0)
        f *= h->rate_fixed[r->kernel] / r->best_rate_mbps;
    if (h->rate_scale[r->kernel] > 0) f *= h->rate_scale[r->kernel];
    r->best_rate_mbps *= f;
    r->avg_time_s /= f;
    r->min_time_s /= f;
    r->max_time_s /= f;
}

/* Kernel k with a store kind, as the dispatch chose it, or as a test hook replaces it. */
static kernel_fn kernel_variant(enum kernel_id k, const struct run_config *cfg,
                                enum store_kind kind)
{
    kernel_fn fn = kernel_function(k, cfg->isa, kind, cfg->type);
    const struct stream_hooks *h = kernel_hooks();
    if (h && h->kernel) fn = h->kernel(k, cfg->type, fn);
    if (h && h->store_variant) fn = h->store_variant(k, kind, fn);
    return fn;
}

/* The time limit has passed: what took the time, and the remedy that fits the arrays' size. */
static void missed_time_limit(const struct run_config *cfg, const struct team *tm,
                              struct run_result *out)
{
    double rep_s = 0.0; /* the first measured repetition; the warm-up when there is no other */
    unsigned rep = tm->reps_done > 1 ? 1 : 0;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (cfg->kernel_mask & (1u << k)) rep_s += tm->times[(size_t)k * cfg->ntimes + rep];
    bool rule_size = !cfg->below_stream_rule && cfg->llc_bytes;
    WARNINGS_ADD(out,
                 "--time-limit %g s could not be kept: the run took %.1f s (first touch "
                 "%.1f s, one repetition %.2f s, at least 2 run); %s",
                 cfg->time_limit_s, timer_now() - cfg->started, tm->touch_s, rep_s,
                 rule_size ? "arrays at the STREAM rule need that time here: raise --time-limit"
                           : "raise --time-limit or choose a smaller --size");
}

static int alloc_arrays(const struct run_config *cfg, const struct mem_backend *backend,
                        struct mem_region *region)
{
    char why[600];
    if (backend->probe(&mem_env_system, 3 * cfg->stride_bytes, why, sizeof(why)) != 0 ||
        backend->alloc(region, 3 * cfg->stride_bytes, why, sizeof(why)) != 0) {
        log_error("--pages %s: %s", cfg->pages, why);
        return EXIT_RESOURCE;
    }
    return EXIT_OK;
}

static void default_placement(unsigned nt, struct run_result *out)
{
    if (out->placement) return;
    out->placement = calloc(nt, sizeof(*out->placement));
    out->n_placement = out->placement ? (int)nt : 0;
    for (unsigned t = 0; out->placement && t < nt; t++) {
        out->placement[t].thread = (int)t;
        out->placement[t].planned_pu = -1;
    }
}

static void choose_kernels(struct team *tm, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    init_store_choice(&out->stores_choice, cfg);
    for (int s = STORES_NORMAL; s <= STORES_NT; s++)
        for (int k = 0; k < KERNEL_COUNT; k++)
            tm->fns_kind[s][k] = kernel_variant((enum kernel_id)k, cfg, (enum store_kind)s);
    for (int k = 0; k < KERNEL_COUNT; k++)
        tm->fns[k] = tm->fns_kind[cfg->kernel_stores[k]][k];
    tm->kinds = cfg->stores;
    if (out->stores_choice.method == STORES_MEASURED) {
        tm->choice = &out->stores_choice;
        team_use_candidate(tm, store_choice_next(tm->choice));
    }
}

/* The team's bookkeeping; false when any of it could not be allocated. */
static bool team_alloc(struct team *tm, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    unsigned nt = cfg->threads;
    default_placement(nt, out);
    tm->pus_start = calloc(nt, sizeof(int));
    tm->pus_end = calloc(nt, sizeof(int));
    tm->times = calloc((size_t)KERNEL_COUNT * cfg->ntimes, sizeof(double));
    tm->finish = calloc(nt, sizeof(double));
    tm->spread = calloc((size_t)KERNEL_COUNT * cfg->ntimes, sizeof(double));
    tm->partial = calloc(nt, sizeof(double));
    choose_kernels(tm, out);
    bool per_domain = cfg->per_domain != DOMAIN_NONE && out->placement;
    if (per_domain) {
        tm->thread_domain = calloc(nt, sizeof(int));
        tm->domain_best = calloc((size_t)KERNEL_COUNT * nt, sizeof(double));
    }
    return tm->pus_start && tm->pus_end && tm->times && tm->finish && tm->spread && tm->partial &&
           out->placement && (!per_domain || (tm->thread_domain && tm->domain_best));
}

static void team_free(struct team *tm)
{
    free(tm->pus_start);
    free(tm->pus_end);
    free(tm->times);
    free(tm->finish);
    free(tm->spread);
    free(tm->partial);
    free(tm->thread_domain);
    free(tm->domain_best);
}

/* Domains follow the plan; unbound threads are grouped by where they are first seen. */
static int prepare_domains(struct team *tm, struct run_result *out)
{
    if (tm->thread_domain && tm->cfg->pus && build_domains(tm->cfg, out, tm->thread_domain) != 0)
        return EXIT_RESOURCE;
    if (tm->thread_domain && !tm->cfg->pus) {
        free(tm->thread_domain);
        tm->thread_domain = NULL;
        WARNINGS_ADD(out, "--per-domain needs bound threads; use --bind compact or scatter");
    }
    return EXIT_OK;
}

/* --matrix tiers: each thread's share of each array, whole pages, bound to its node (a page
 * two shares hold goes with the share its first byte is in). */
static int bind_tier_shares(const struct run_config *cfg, const struct topology *topo, char *base,
                            size_t page, char *why, size_t why_len)
{
    size_t es = elem_size(cfg->type), n = cfg->elements;
    int nt = (int)cfg->threads;
    for (int t = 0; t < nt; t++) {
        size_t lo = stream_chunk_begin(n, nt, t, cfg->type) * es;
        size_t hi = t + 1 < nt ? stream_chunk_begin(n, nt, t + 1, cfg->type) * es : n * es;
        for (int i = 0; i < 3; i++) {
            uintptr_t start = (uintptr_t)base + i * (cfg->stride_bytes + cfg->offset * es);
            uintptr_t from = (start + lo + page - 1) / page * page;
            uintptr_t to = (start + hi + page - 1) / page * page;
            if (t == 0) from = start / page * page;
            if (to > from &&
                membind_area(topo, (void *)from, to - from, cfg->thread_node[t], why, why_len) != 0)
                return -1;
        }
    }
    return 0;
}

static int can_start(const struct run_config *cfg, const struct topology *topo, char *base,
                     size_t page)
{
    char why[600];
    if (threads_can_start(cfg->threads, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_RESOURCE;
    }
    if (cfg->numa_cell &&
        membind_area(topo, base, 3 * cfg->stride_bytes, cfg->mem_node, why, sizeof(why)) != 0) {
        log_error("--matrix numa: %s; membench cannot place the arrays (a container may forbid "
                  "mbind: run with CAP_SYS_NICE, or without --matrix)",
                  why);
        return EXIT_RESOURCE;
    }
    if (cfg->tier >= 0 && bind_tier_shares(cfg, topo, base, page, why, sizeof(why)) != 0) {
        log_error("--matrix tiers: %s; membench cannot place the arrays (a container may forbid "
                  "mbind: run with CAP_SYS_NICE, or without --matrix)",
                  why);
        return EXIT_RESOURCE;
    }
    return EXIT_OK;
}

static void verify_backing(const struct mem_backend *backend, const struct mem_region *region,
                           uint64_t bytes, struct run_result *out)
{
    const struct mem_backend *judge =
        test_hooks && test_hooks->judge_as ? test_hooks->judge_as : backend;
    backing_verify("/proc/self/smaps", judge, (uintptr_t)region->base,
                   (uintptr_t)((char *)region->base + bytes), region->how, &out->backing);
    if (backend->kind == BACKING_THP && out->backing.verified && out->backing.thp_fraction < 1.0)
        WARNINGS_ADD(out,
                     "only %.1f%% of the arrays are on transparent huge pages (the kernel found "
                     "too few free 2 MiB blocks); the results mix 2 MiB and 4 KiB pages",
                     100.0 * out->backing.thp_fraction);
}

static void validate_run(struct team *tm, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    size_t es = elem_size(cfg->type);
    if (test_hooks && test_hooks->corrupt_result)
        ((char *)tm->a)[(tm->n / 2) * es + es - 2] ^= 0x40; /* an exponent or leading bit */
    validate_arrays(tm->a, tm->b, tm->c, tm->n, cfg->type, &tm->expect,
                    validation_tolerance(cfg->type, cfg->ntimes), cfg->threads, &out->validation);
    validate_reductions(tm, out);
}

static void summarise_kernels(const struct team *tm, const struct timer_info *timer,
                              struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    const struct stream_hooks *h = kernel_hooks();
    double run_scale = h && h->run_scale ? h->run_scale() : 1.0;
    for (int i = 0; i < out->n_results; i++) {
        struct kernel_result *r = &out->results[i];
        summarise(&tm->times[(size_t)r->kernel * cfg->ntimes], tm->reps_done, r);
        r->finish_spread_s =
            finish_spread_median(&tm->spread[(size_t)r->kernel * cfg->ntimes], tm->reps_done);
        if (h) test_rates(h, run_scale, r);
        r->min_ticks = timer->granularity_s > 0 ? r->min_time_s / timer->granularity_s : 0.0;
        if (r->min_ticks < TIMER_MIN_TICKS)
            WARNINGS_ADD(out,
                         "%s took only %.0f clock ticks; its time is not trustworthy, use a "
                         "larger --size",
                         kernel_table[r->kernel].name, r->min_ticks);
    }
    out->reps_done = tm->reps_done;
    out->warm_up_passes = tm->warm_up_passes;
    out->warm_up_s = tm->warm_up_s;
    out->warm_up_own_passes = tm->settle_passes;
    out->warm_up_own_s = tm->settle_s;
    if (tm->reps_done < cfg->ntimes)
        WARNINGS_ADD(out, "time limit: %u of %u repetitions fit in the time left", tm->reps_done,
                     cfg->ntimes);
    if (cfg->time_limit_s > 0 && timer_now() - cfg->started > cfg->time_limit_s)
        missed_time_limit(cfg, tm, out);
}

/* Runs the team on the allocated arrays and fills out from what it measured. */
static int measure(struct team *tm, const struct mem_backend *backend,
                   const struct mem_region *region, const struct timer_info *timer,
                   struct run_result *out)
{
    size_t page = backend->page_bytes > page_kernel_bytes() ? (size_t)backend->page_bytes
                                                            : (size_t)page_kernel_bytes();
    int rc = can_start(tm->cfg, tm->topo, region->base, page);
    if (rc != EXIT_OK) return rc;
    omp_set_dynamic(0);
    team_run(tm, out);
    if (interrupt_signal()) { /* not finished: nothing of this run is reported */
        out->interrupted = true;
        return EXIT_OK;
    }
    if (tm->team_size != (int)tm->cfg->threads) {
        log_error("OpenMP started %d threads instead of %u; check OMP_THREAD_LIMIT", tm->team_size,
                  tm->cfg->threads);
        return EXIT_RESOURCE;
    }
    verify_backing(backend, region, 3 * tm->cfg->stride_bytes, out);
    validate_run(tm, out);
    team_check_threads(tm, out);
    if (out->stores_choice.method == STORES_MEASURED) apply_stores(out);
    summarise_kernels(tm, timer, out);
    out->measured = true;
    return EXIT_OK;
}

int run_stream(const struct run_config *cfg, const struct topology *topo,
               const struct timer_info *timer, struct run_result *out)
{
    run_describe(cfg, topo, out);
    const struct mem_backend *backend = mem_backend_find(cfg->pages);
    if (!backend) {
        log_error("--pages %s: no such page backing", cfg->pages);
        return EXIT_USAGE;
    }
    struct mem_region region = {0};
    int rc = alloc_arrays(cfg, backend, &region);
    if (rc != EXIT_OK) return rc;
    size_t es = elem_size(cfg->type);
    char *base = region.base;
    struct team tm = {.cfg = cfg, .topo = topo, .n = (size_t)cfg->elements};
    tm.a = base;
    tm.b = base + 1 * cfg->stride_bytes + 1 * cfg->offset * es;
    tm.c = base + 2 * cfg->stride_bytes + 2 * cfg->offset * es;
    expected_init(&tm.expect);
    if (!team_alloc(&tm, out)) {
        log_error("out of memory for bookkeeping");
        rc = EXIT_RESOURCE;
    } else {
        rc = prepare_domains(&tm, out);
    }
    if (rc == EXIT_OK) rc = measure(&tm, backend, &region, timer, out);
    backend->release(&region);
    team_free(&tm);
    return rc;
}
