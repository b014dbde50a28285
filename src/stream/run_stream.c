#include "src/stream/run_stream.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
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
#include "src/stream/stream_hooks.h"

void run_describe(const struct run_config *cfg, const struct topology *topo, struct run_result *out)
{
    memset(out, 0, sizeof(*out));
    out->config = *cfg;
    store_choice_init(&out->stores_choice, cfg->stores_requested, cfg->stores_from_reference,
                      cfg->kernel_mask);
    if (out->stores_choice.method == STORES_MEASURED) { /* until run_stream measures */
        out->stores_choice.method = STORES_NOT_MEASURED;
        out->stores_choice.why = "not run: auto times both store kinds on the first repetition";
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

/* Everything the threads of one run share; written by the master between barriers. */
struct team {
    const struct run_config *cfg;
    const struct topology *topo;
    void *a, *b, *c;
    size_t n;
    double *times;       /* [kernel][rep] */
    double *finish;      /* per thread, seconds after the kernel's start */
    double *spread;      /* [kernel][rep] latest minus earliest finish */
    int *thread_domain;  /* per thread, index into domains; NULL without --per-domain */
    double *domain_best; /* [kernel][domain] best time */
    double *partial;     /* per thread, a reduction's partial sum */
    double reduction_err[KERNEL_COUNT]; /* worst relative error of each reduction */
    kernel_fn fns[KERNEL_COUNT];
    kernel_fn fns_kind[2][KERNEL_COUNT]; /* [enum store_kind]: both variants, for auto */
    struct store_choice *choice;         /* auto: measuring on the first repetition; else NULL */
    int candidate;                       /* auto: the assignment the current repetition runs */
    int calibration_passes;              /* auto: repetitions run for the calibration */
    double calibration_s;                /* the calibration's repetitions beyond the first */
    double calibration_pass_max_s;       /* the longest of them */
    struct expected_values expect;
    int team_size;
    unsigned reps_done;
    double touch_s; /* first touch: binding and initialising the arrays */
};

static void record_domains(struct team *tm, struct run_result *out, int k, unsigned rep)
{
    if (!tm->thread_domain || rep == 0) return;
    double *best = &tm->domain_best[(size_t)k * (size_t)out->n_domains];
    for (int d = 0; d < out->n_domains; d++) {
        double slowest = 0.0;
        for (int t = 0; t < tm->team_size; t++)
            if (tm->thread_domain[t] == d && tm->finish[t] > slowest) slowest = tm->finish[t];
        if (best[d] == 0.0 || slowest < best[d]) best[d] = slowest;
    }
}

static void check_reduction(struct team *tm, int k)
{
    double sum = 0.0;
    for (int t = 0; t < tm->team_size; t++)
        sum += tm->partial[t];
    double want = expected_reduction(&tm->expect, (enum kernel_id)k, tm->cfg->type, tm->n);
    double err = want != 0.0 ? fabs(sum - want) / fabs(want) : fabs(sum);
    if (!(err <= tm->reduction_err[k])) tm->reduction_err[k] = isnan(err) ? INFINITY : err;
}

/* With --time-limit: the timer_now() by which the run should end, leaving room to report. */
static double run_deadline(const struct run_config *cfg)
{
    return time_limit_deadline(cfg->started, cfg->time_limit_s);
}

/* With a time limit, stop once another repetition would not fit, keeping at least one measured
 * repetition after the warm-up and never shrinking the arrays. */
static bool out_of_time(const struct team *tm, double loop_start, unsigned rep)
{
    if (tm->cfg->time_limit_s <= 0.0 || rep < 1) return false;
    double deadline = run_deadline(tm->cfg);
    double now = timer_now(), per_rep = (now - loop_start - tm->calibration_s) / (rep + 1);
    return now + 2.0 * per_rep > deadline; /* one more repetition and the validation pass */
}

/* Elements first-touched between two checks for a signal: 4 MiB of each array, so that a
 * signal during the first touch of gigabytes is answered within a fraction of a second. */
#define FIRST_TOUCH_CHUNK_BYTES (4u << 20)

static void first_touch(const struct team *tm, size_t lo, size_t hi)
{
    size_t step = FIRST_TOUCH_CHUNK_BYTES / elem_size(tm->cfg->type);
    for (size_t at = lo; at < hi && !interrupt_signal(); at += step)
        stream_init_arrays(tm->a, tm->b, tm->c, at, hi - at > step ? at + step : hi, tm->cfg->type);
}

/* --stores auto: the kernels of the candidate assignment cand run the next repetition. */
static void use_candidate(struct team *tm, int cand)
{
    tm->candidate = cand;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (tm->choice->kernel_mask & (1u << k))
            tm->fns[k] = tm->fns_kind[tm->choice->cand[cand].kind[k]][k];
}

static void choose_stores(struct team *tm)
{
    store_choice_decide(tm->choice, tm->n, tm->cfg->type);
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (tm->choice->kernel_mask & (1u << k))
            tm->fns[k] = tm->fns_kind[tm->choice->chosen[k]][k];
    tm->choice = NULL;
}

/* With a time limit, the calibration ends early once both uniform assignments have been timed
 * and another repetition, a measured one and the validation pass would not fit. */
static bool calibration_out_of_time(const struct team *tm)
{
    if (tm->cfg->time_limit_s <= 0.0 || !store_choice_can_stop(tm->choice)) return false;
    return timer_now() + 3.0 * tm->calibration_pass_max_s > run_deadline(tm->cfg);
}

/* The first repetition under auto: records the one just run (kernel times in tm->times[k][0])
 * and sets up the next; false once the choice is made. */
static bool calibration_pass(struct team *tm)
{
    const struct run_config *cfg = tm->cfg;
    double kernel_s[KERNEL_COUNT] = {0.0}, s = 0.0;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (cfg->kernel_mask & (1u << k)) s += kernel_s[k] = tm->times[(size_t)k * cfg->ntimes];
    if (tm->calibration_passes++ > 0) tm->calibration_s += s;
    if (s > tm->calibration_pass_max_s) tm->calibration_pass_max_s = s;
    store_choice_record(tm->choice, tm->candidate, kernel_s);
    int next = store_choice_next(tm->choice);
    if (next >= 0 && !calibration_out_of_time(tm)) {
        use_candidate(tm, next);
        return true;
    }
    choose_stores(tm);
    return false;
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

/* Test-only kernel hooks; NULL in membench (src/base/test_hooks.h). */
static const struct stream_hooks *kernel_hooks(void)
{
    return test_hooks ? test_hooks->stream : NULL;
}

/* membench-hooked (repetition_pad_s): the master sleeps until the kernel's timed repetition has
 * lasted the pad (or what the kernel took, when longer), slow_factor times that for the slowed
 * one; the team waits at the barrier. A sleep, not a spin: threads may outnumber CPUs. */
static void test_repetition_time(unsigned rep, double t0)
{
    const struct stream_hooks *h = kernel_hooks();
    if (!h || !(h->repetition_pad_s > 0.0) || rep == 0) return;
    double took = timer_now() - t0, base = took > h->repetition_pad_s ? took : h->repetition_pad_s;
    double until = t0 + base * (rep + 1 == h->slow_repetition ? h->slow_factor : 1.0);
    while (timer_now() < until)
        sleep_until(until);
}

/* The timed loop: one parallel region, each thread bound once and working on the same range
 * it first touched; every kernel starts together after a barrier and ends at the next. */
static void run_team(struct team *tm, struct run_result *out, int *pus_start, int *pus_end)
{
    const struct run_config *cfg = tm->cfg;
    double t0 = 0.0, loop_start = timer_now();
    int exponent = 0;
    bool stop = false, calibrate = false; /* shared: the master decides, every thread reads */
#pragma omp parallel num_threads(cfg->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp master
        tm->team_size = nt;
        bool bound = false;
        pus_start[t] =
            bind_this_thread(tm->topo, cfg->bind_kind, cfg->pus ? cfg->pus[t] : -1, &bound);
        if (out->placement) out->placement[t].bound = bound;
        size_t lo = stream_chunk_begin(tm->n, nt, t, cfg->type);
        size_t hi = t + 1 < nt ? stream_chunk_begin(tm->n, nt, t + 1, cfg->type) : tm->n;
        if (t == 0) test_hook_at("first touch");
        first_touch(tm, lo, hi);
#pragma omp barrier
#pragma omp master
        stop = interrupt_signal() != 0;
#pragma omp barrier
        for (unsigned rep = 0; rep < cfg->ntimes && !stop; rep++) {
            /* under auto the first repetition is repeated, once per calibration pass */
            for (bool more = true; more && !stop;) {
                for (int k = 0; k < KERNEL_COUNT && !stop; k++) {
                    if (!(cfg->kernel_mask & (1u << k))) continue;
#pragma omp barrier
#pragma omp master
                    {
                        t0 = timer_now();
                        if (tm->touch_s == 0.0) tm->touch_s = t0 - loop_start;
                    }
#pragma omp barrier
                    tm->partial[t] = tm->fns[k](tm->a, tm->b, tm->c, lo, hi, STREAM_SCALAR);
                    tm->finish[t] = timer_now() - t0;
#pragma omp barrier
#pragma omp master
                    {
                        test_repetition_time(rep, t0);
                        tm->times[(size_t)k * cfg->ntimes + rep] = timer_now() - t0;
                        tm->spread[(size_t)k * cfg->ntimes + rep] =
                            finish_spread(tm->finish, tm->team_size);
                        if (kernel_table[k].reduction) check_reduction(tm, k);
                        expected_step(&tm->expect, (enum kernel_id)k, cfg->type, STREAM_SCALAR);
                        record_domains(tm, out, k, rep);
                        stop = interrupt_signal() != 0; /* the run is dropped: no need to finish */
                    }
#pragma omp barrier
                }
#pragma omp master
                {
                    calibrate = rep == 0 && tm->choice && !stop && calibration_pass(tm);
                    exponent = expected_rescale_exponent(&tm->expect);
                    if (exponent) expected_rescale(&tm->expect, exponent);
                }
#pragma omp barrier
                if (exponent) stream_scale_arrays(tm->a, tm->b, tm->c, lo, hi, cfg->type, exponent);
                more = calibrate;
            }
#pragma omp barrier
#pragma omp master
            {
                tm->reps_done = rep + 1;
                stop = stop || out_of_time(tm, loop_start, rep) || interrupt_signal() != 0;
            }
#pragma omp barrier
        }
        pus_end[t] = sched_getcpu();
    }
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

/* A thread on its planned PU by chance is not bound: each planned thread's binding must have
 * been applied and read back (hwloc does not bind on a topology that is not this machine). */
static void check_bound(const struct topology *topo, const struct run_config *cfg,
                        struct run_result *out)
{
    if (!cfg->pus || !out->placement) return;
    for (int t = 0; t < out->n_placement; t++) {
        if (out->placement[t].bound) continue;
        if (out->n_unbound++ > 0) continue;
        if (topo->facts.this_system)
            WARNINGS_ADD(out, "thread %d could not be bound to PU %d: placement not verified", t,
                         cfg->pus[t]);
        else
            WARNINGS_ADD(out,
                         "threads not bound: the topology (%.160s) is not this machine's, so "
                         "hwloc binds nothing; unset it to measure with bound threads",
                         topo->facts.source);
    }
}

static void check_placement(const struct run_config *cfg, const int *pus_start, const int *pus_end,
                            struct run_result *out)
{
    for (unsigned t = 0; t < cfg->threads; t++) {
        out->migrated |= pus_start[t] != pus_end[t];
        if (cfg->pus && (pus_start[t] != cfg->pus[t] || pus_end[t] != cfg->pus[t])) {
            if (out->n_misplaced == 0)
                WARNINGS_ADD(out,
                             "placement not as planned: thread %u should run on PU %d but ran "
                             "on PU %d",
                             t, cfg->pus[t],
                             pus_start[t] != cfg->pus[t] ? pus_start[t] : pus_end[t]);
            out->n_misplaced++;
        }
    }
    if (out->migrated && !cfg->pus)
        WARNINGS_ADD(out, "threads moved between CPUs during the run (unbound); results may vary "
                          "from run to run, use --bind");
}

static void finish_domains(const struct team *tm, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    for (int t = 0; t < tm->team_size; t++) {
        size_t lo = stream_chunk_begin(tm->n, tm->team_size, t, cfg->type);
        size_t hi = t + 1 < tm->team_size
                        ? stream_chunk_begin(tm->n, tm->team_size, t + 1, cfg->type)
                        : tm->n;
        out->domains[tm->thread_domain[t]].elements += hi - lo;
    }
    for (int i = 0; i < out->n_results; i++) {
        int k = out->results[i].kernel;
        for (int d = 0; d < out->n_domains; d++) {
            double best = tm->domain_best[(size_t)k * (size_t)out->n_domains + (size_t)d];
            uint64_t bytes =
                kernel_bytes_counted(&kernel_table[k], out->domains[d].elements, cfg->type);
            out->domains[d].best_rate_mbps[k] = best > 0.0 ? 1e-6 * (double)bytes / best : 0.0;
        }
    }
}

/* Each thread's share of each array, sampled once per MiB, against the node it should be on:
 * the NUMA node of the PU the thread first touched it from, or the --matrix cell's memory
 * node. */
static void check_locality(const struct team *tm, const int *pus_start, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    struct page_locality *loc = &out->locality;
    struct numa_map map;
    numa_map_build(tm->topo, &map);
    page_locality_begin(loc);
    if (!tm->topo->facts.this_system)
        page_locality_fail(loc, "the topology (%.100s) is not this machine's",
                           tm->topo->facts.source);
    size_t es = elem_size(cfg->type);
    const char *arrays[3] = {tm->a, tm->b, tm->c};
    size_t page =
        out->backing.page_size_bytes > PAGE_4K ? (size_t)out->backing.page_size_bytes : PAGE_4K;
    char page_words[32];
    format_bytes(page, page_words, sizeof(page_words));
    for (int t = 0; t < tm->team_size && loc->verified; t++) {
        int expected = cfg->numa_cell ? cfg->mem_node : out->placement[t].numa;
        if (expected < 0)
            page_locality_fail(loc, "the NUMA node of PU %d (thread %d) is unknown", pus_start[t],
                               t);
        size_t lo = stream_chunk_begin(tm->n, tm->team_size, t, cfg->type);
        size_t hi = t + 1 < tm->team_size
                        ? stream_chunk_begin(tm->n, tm->team_size, t + 1, cfg->type)
                        : tm->n;
        for (int i = 0; i < 3; i++)
            page_locality_sample_share(loc, &map, arrays[i] + lo * es, (hi - lo) * es,
                                       LOCALITY_STEP_BYTES, page, expected);
    }
    if (loc->verified && loc->pages_sampled == 0)
        page_locality_fail(loc,
                           "no thread's share of the arrays holds a whole %s page: give a "
                           "larger --size",
                           page_words);
    page_locality_end(loc);
    if (!loc->verified || loc->local_fraction >= LOCALITY_MIN_FRACTION) return;
    if (cfg->numa_cell)
        WARNINGS_ADD(out,
                     "only %.1f%% of sampled pages on NUMA node %d, where the cell binds them "
                     "(%llu pages): the node may lack free memory (numactl -H), or a memory "
                     "policy overrides the binding",
                     100.0 * loc->local_fraction, cfg->mem_node,
                     (unsigned long long)loc->pages_sampled);
    else
        WARNINGS_ADD(out,
                     "only %.1f%% of sampled pages on their thread's NUMA node (%llu pages): "
                     "remote memory; a memory policy (numactl --membind/--interleave: drop it) "
                     "or unbound threads (use --bind)",
                     100.0 * loc->local_fraction, (unsigned long long)loc->pages_sampled);
}

/* membench-hooked: a kernel's best rate set, then scaled, its times following. */
static void test_rates(const struct stream_hooks *h, struct kernel_result *r)
{
    double f = 1.0;
    if (h->rate_fixed[r->kernel] > 0 && r->best_rate_mbps > 0)
        f = h->rate_fixed[r->kernel] / r->best_rate_mbps;
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

int run_stream(const struct run_config *cfg, const struct topology *topo,
               const struct timer_info *timer, struct run_result *out)
{
    run_describe(cfg, topo, out);
    char why[600];
    const struct mem_backend *backend = mem_backend_find(cfg->pages);
    if (!backend) {
        log_error("--pages %s: no such page backing", cfg->pages);
        return EXIT_USAGE;
    }
    size_t es = elem_size(cfg->type);
    uint64_t stride = cfg->stride_bytes;
    struct mem_region region = {0};
    if (backend->probe(&mem_env_system, 3 * stride, why, sizeof(why)) != 0 ||
        backend->alloc(&region, 3 * stride, why, sizeof(why)) != 0) {
        log_error("--pages %s: %s", cfg->pages, why);
        return EXIT_RESOURCE;
    }
    char *base = region.base;
    struct team tm = {.cfg = cfg, .topo = topo, .n = (size_t)cfg->elements};
    tm.a = base;
    tm.b = base + 1 * stride + 1 * cfg->offset * es;
    tm.c = base + 2 * stride + 2 * cfg->offset * es;
    expected_init(&tm.expect);

    unsigned nt = cfg->threads;
    if (!out->placement) {
        out->placement = calloc(nt, sizeof(*out->placement));
        out->n_placement = out->placement ? (int)nt : 0;
        for (unsigned t = 0; out->placement && t < nt; t++) {
            out->placement[t].thread = (int)t;
            out->placement[t].planned_pu = -1;
        }
    }
    int *pus_start = calloc(nt, sizeof(int)), *pus_end = calloc(nt, sizeof(int));
    tm.times = calloc((size_t)KERNEL_COUNT * cfg->ntimes, sizeof(double));
    tm.finish = calloc(nt, sizeof(double));
    tm.spread = calloc((size_t)KERNEL_COUNT * cfg->ntimes, sizeof(double));
    tm.partial = calloc(nt, sizeof(double));
    store_choice_init(&out->stores_choice, cfg->stores_requested, cfg->stores_from_reference,
                      cfg->kernel_mask);
    for (int s = STORES_NORMAL; s <= STORES_NT; s++)
        for (int k = 0; k < KERNEL_COUNT; k++)
            tm.fns_kind[s][k] = kernel_variant((enum kernel_id)k, cfg, (enum store_kind)s);
    for (int k = 0; k < KERNEL_COUNT; k++)
        tm.fns[k] = tm.fns_kind[cfg->kernel_stores[k]][k];
    if (out->stores_choice.method == STORES_MEASURED) {
        tm.choice = &out->stores_choice;
        use_candidate(&tm, store_choice_next(tm.choice));
    }
    if (cfg->per_domain != DOMAIN_NONE && out->placement) {
        tm.thread_domain = calloc(nt, sizeof(int));
        tm.domain_best = calloc((size_t)KERNEL_COUNT * nt, sizeof(double));
    }
    int rc = EXIT_OK;
    if (!pus_start || !pus_end || !tm.times || !tm.finish || !tm.spread || !tm.partial ||
        !out->placement ||
        (cfg->per_domain != DOMAIN_NONE && (!tm.thread_domain || !tm.domain_best))) {
        log_error("out of memory for bookkeeping");
        rc = EXIT_RESOURCE;
        goto done;
    }
    /* Domains follow the plan; unbound threads are grouped by where they are first seen. */
    if (tm.thread_domain && cfg->pus && build_domains(cfg, out, tm.thread_domain) != 0) {
        rc = EXIT_RESOURCE;
        goto done;
    }
    if (tm.thread_domain && !cfg->pus) {
        free(tm.thread_domain);
        tm.thread_domain = NULL;
        WARNINGS_ADD(out, "--per-domain needs bound threads; use --bind compact or scatter");
    }

    if (threads_can_start(nt, why, sizeof(why)) != 0) {
        log_error("%s", why);
        rc = EXIT_RESOURCE;
        goto done;
    }
    if (cfg->numa_cell &&
        membind_area(topo, base, 3 * stride, cfg->mem_node, why, sizeof(why)) != 0) {
        log_error("--matrix numa: %s; membench cannot place the arrays (a container may forbid "
                  "mbind: run with CAP_SYS_NICE, or without --matrix)",
                  why);
        rc = EXIT_RESOURCE;
        goto done;
    }
    omp_set_dynamic(0);
    run_team(&tm, out, pus_start, pus_end);
    if (interrupt_signal()) { /* not finished: nothing of this run is reported */
        out->interrupted = true;
        goto done;
    }
    if (tm.team_size != (int)nt) {
        log_error("OpenMP started %d threads instead of %u; check OMP_THREAD_LIMIT", tm.team_size,
                  nt);
        rc = EXIT_RESOURCE;
        goto done;
    }
    const struct mem_backend *judge =
        test_hooks && test_hooks->judge_as ? test_hooks->judge_as : backend;
    backing_verify("/proc/self/smaps", judge, (uintptr_t)base, (uintptr_t)(base + 3 * stride),
                   region.how, &out->backing);
    if (backend->kind == BACKING_THP && out->backing.verified && out->backing.thp_fraction < 1.0)
        WARNINGS_ADD(out,
                     "only %.1f%% of the arrays are on transparent huge pages (the kernel found "
                     "too few free 2 MiB blocks); the results mix 2 MiB and 4 KiB pages",
                     100.0 * out->backing.thp_fraction);

    if (test_hooks && test_hooks->corrupt_result)
        ((char *)tm.a)[(tm.n / 2) * es + es - 2] ^= 0x40; /* an exponent or leading bit */
    validate_arrays(tm.a, tm.b, tm.c, tm.n, cfg->type, &tm.expect,
                    validation_tolerance(cfg->type, cfg->ntimes), cfg->threads, &out->validation);
    validate_reductions(&tm, out);

    for (unsigned t = 0; t < nt; t++)
        out->placement[t].pu = pus_start[t];
    placement_locate(topo, out->placement, out->n_placement);
    check_placement(cfg, pus_start, pus_end, out);
    check_bound(topo, cfg, out);
    check_locality(&tm, pus_start, out);
    if (tm.thread_domain) finish_domains(&tm, out);
    if (out->stores_choice.method == STORES_MEASURED) apply_stores(out);

    for (int i = 0; i < out->n_results; i++) {
        struct kernel_result *r = &out->results[i];
        summarise(&tm.times[(size_t)r->kernel * cfg->ntimes], tm.reps_done, r);
        r->finish_spread_s =
            finish_spread_median(&tm.spread[(size_t)r->kernel * cfg->ntimes], tm.reps_done);
        if (kernel_hooks()) test_rates(kernel_hooks(), r);
        r->min_ticks = timer->granularity_s > 0 ? r->min_time_s / timer->granularity_s : 0.0;
        if (r->min_ticks < TIMER_MIN_TICKS)
            WARNINGS_ADD(out,
                         "%s took only %.0f clock ticks; its time is not trustworthy, use a "
                         "larger --size",
                         kernel_table[r->kernel].name, r->min_ticks);
    }
    out->reps_done = tm.reps_done;
    if (tm.reps_done < cfg->ntimes)
        WARNINGS_ADD(out, "time limit: %u of %u repetitions fit in the time left", tm.reps_done,
                     cfg->ntimes);
    if (cfg->time_limit_s > 0 && timer_now() - cfg->started > cfg->time_limit_s)
        missed_time_limit(cfg, &tm, out);
    out->measured = true;
done:
    backend->release(&region);
    free(pus_start);
    free(pus_end);
    free(tm.times);
    free(tm.finish);
    free(tm.spread);
    free(tm.partial);
    free(tm.thread_domain);
    free(tm.domain_best);
    return rc;
}
