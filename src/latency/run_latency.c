/* --latency: the idle chase, then the loaded curve: the chase on its core while one load
 * thread per other core (compact, bound) streams b = s * a over its own arrays, pausing
 * `delay` spin iterations between chunks, from the longest delay down to none (MLC's -d
 * steps). At each step the chase's ns per load and the load threads' bandwidth are taken over
 * the same timed windows. */
#include "src/latency/latency.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/bind.h"
#include "affinity/membind.h"
#include "affinity/policy.h"
#include "affinity/thread_start.h"
#include "kernels/latency_chase.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/stats.h"
#include "src/base/test_hooks.h"
#include "src/base/warnings.h"
#include "src/latency/latency_chain.h"

#define CHUNK_DOUBLES 512 /* 4 KiB read + 4 KiB written per chunk */
#define SETTLE_S 0.02
#define SETTLE_MAX_S 1.0
#define TOUCH_CHECK_DOUBLES ((size_t)(4u << 20) / sizeof(double))
#define STEP_STOP (-2)
#define STEP_WAIT (-1)

static const uint64_t delays[] = {50000, 20000, 10000, 5000, 2000, 1000, 500, 200, 100, 0};
#define N_DELAYS (sizeof(delays) / sizeof(delays[0]))

struct load_counter {
    _Alignas(64) _Atomic uint64_t bytes;
};

struct load_team {
    const struct latency_plan *plan;
    const struct topology *topo;
    const struct mem_backend *backend;
    _Atomic int step;
    _Atomic int ready, failed;
    struct load_counter *counters;
    char why[300];
};

static uint64_t load_bytes(struct load_team *t)
{
    uint64_t sum = 0;
    for (int i = 0; i < t->plan->n_load; i++)
        sum += atomic_load_explicit(&t->counters[i].bytes, memory_order_relaxed);
    return sum;
}

static void load_thread(struct load_team *t, int i)
{
    bool bound = false;
    bind_this_thread(t->topo, BIND_LIST, t->plan->load_pus[i], &bound);
    struct mem_region r = {0};
    char why[300];
    uint64_t bytes = t->plan->bytes;
    int ok = t->backend->alloc(&r, (size_t)bytes, why, sizeof(why)) == 0;
    if (ok && membind_area(t->topo, r.base, r.bytes, t->plan->mem_node, why, sizeof(why)) != 0 &&
        t->topo->facts.numa_nodes > 1)
        ok = 0;
    if (!ok || !bound) {
        if (!bound) snprintf(why, sizeof(why), "cannot bind to PU %d", t->plan->load_pus[i]);
#pragma omp critical(latency_load_why)
        snprintf(t->why, sizeof(t->why), "load thread %d: %.250s", i, why);
        atomic_store(&t->failed, 1);
    }
    size_t n = ok ? (size_t)(bytes / 2 / sizeof(double)) / CHUNK_DOUBLES * CHUNK_DOUBLES : 0;
    double *a = r.base, *b = ok ? a + n : NULL;
    /* first touch by the thread that streams them, looking for a stop every 4 MiB */
    for (size_t k = 0; k < 2 * n && !(k % TOUCH_CHECK_DOUBLES == 0 && interrupt_should_stop()); k++)
        a[k] = 1.0;
    atomic_fetch_add(&t->ready, 1);
    size_t at = 0;
    int s;
    while ((s = atomic_load_explicit(&t->step, memory_order_relaxed)) != STEP_STOP) {
        if (s < 0 || n == 0) {
            latency_spin(1000);
            continue;
        }
        latency_load_chunk(b + at, a + at, CHUNK_DOUBLES, 1.0000001);
        at = at + CHUNK_DOUBLES >= n ? 0 : at + CHUNK_DOUBLES;
        atomic_fetch_add_explicit(&t->counters[i].bytes, 2 * CHUNK_DOUBLES * sizeof(double),
                                  memory_order_relaxed);
        latency_spin(delays[s]);
    }
    if (ok) t->backend->release(&r);
}

/* Thread 0: the chase, one step after the other. */
static void chase_steps(struct load_team *t, struct latency_chain *c, struct latency_result *out)
{
    while (atomic_load(&t->ready) < t->plan->n_load)
        latency_spin(1000);
    if (atomic_load(&t->failed)) return;
    for (size_t s = 0; s < N_DELAYS; s++) {
        test_hook_at("latency step %zu", s + 1);
        if (interrupt_should_stop()) return;
        atomic_store(&t->step, (int)s);
        uint64_t before = load_bytes(t);
        double t0 = timer_now();
        /* settled once the load has moved data at this step's pace (or, with every CPU busy
         * elsewhere, after SETTLE_MAX_S: the step then says that it was not loaded) */
        while ((timer_now() - t0 < SETTLE_S ||
                (load_bytes(t) == before && timer_now() - t0 < SETTLE_MAX_S)) &&
               !interrupt_should_stop())
            latency_chain_rep(c);
        if (interrupt_should_stop()) return; /* this step is not finished: not reported */
        double ns[LATENCY_LOADED_REPS], mbps[LATENCY_LOADED_REPS];
        for (int r = 0; r < LATENCY_LOADED_REPS; r++) {
            uint64_t b0 = load_bytes(t);
            double w0 = timer_now();
            ns[r] = latency_chain_rep(c);
            double w1 = timer_now();
            mbps[r] = (double)(load_bytes(t) - b0) / (w1 - w0) * 1e-6;
        }
        struct latency_step *st = &out->steps[out->n_steps++];
        st->delay = delays[s];
        st->ns = median_sorting(ns, LATENCY_LOADED_REPS);
        st->bandwidth_mbps = median_sorting(mbps, LATENCY_LOADED_REPS);
    }
}

/* The load threads' arrays: the chase's backing, but THP (else base pages) instead of a hugetlb
 * pool that was sized for the chase alone. */
static const struct mem_backend *load_backend(const struct latency_plan *plan)
{
    if (plan->backend->kind != BACKING_HUGETLB) return plan->backend;
    char why[200];
    const struct mem_backend *thp = mem_backend_find("thp");
    return thp->probe(&mem_env_system, page_pmd_bytes(), why, sizeof(why)) == 0
               ? thp
               : mem_backend_find("4k");
}

static int loaded_curve(const struct latency_plan *plan, const struct topology *topo,
                        struct latency_chain *c, struct latency_result *out)
{
    char why[300];
    unsigned threads = (unsigned)plan->n_load + 1;
    if (threads_can_start(threads, why, sizeof(why)) != 0) {
        log_error("--latency: %s", why);
        return EXIT_RESOURCE;
    }
    struct load_team t = {.plan = plan, .topo = topo, .backend = load_backend(plan)};
    atomic_init(&t.step, STEP_WAIT);
    atomic_init(&t.ready, 0);
    atomic_init(&t.failed, 0);
    t.counters = aligned_alloc(64, (size_t)plan->n_load * sizeof(*t.counters));
    if (!t.counters) {
        log_error("--latency: out of memory for the load threads");
        return EXIT_RESOURCE;
    }
    for (int i = 0; i < plan->n_load; i++)
        atomic_init(&t.counters[i].bytes, 0);
    omp_set_dynamic(0);
#pragma omp parallel num_threads(threads)
    {
        int id = omp_get_thread_num();
        if (id == 0) {
            chase_steps(&t, c, out);
            atomic_store(&t.step, STEP_STOP);
        } else {
            load_thread(&t, id - 1);
        }
    }
    free(t.counters);
    if (atomic_load(&t.failed)) {
        log_error("--latency: the loaded curve cannot run: %s; free memory or give a smaller "
                  "--latency-size",
                  t.why);
        return EXIT_RESOURCE;
    }
    out->loaded_measured = out->n_steps == N_DELAYS;
    size_t unloaded = 0;
    for (size_t s = 0; s < out->n_steps; s++)
        unloaded += !(out->steps[s].bandwidth_mbps > 0.0);
    if (unloaded)
        WARNINGS_ADD(out,
                     "the load threads moved no data during %zu of the %zu loaded steps: their "
                     "CPUs were busy with other work, so those steps measured an unloaded chase",
                     unloaded, out->n_steps);
    if (!out->loaded_measured)
        snprintf(out->loaded_why, sizeof(out->loaded_why), "%s after %zu of %zu steps",
                 interrupt_stop_reason(), out->n_steps, N_DELAYS);
    return EXIT_OK;
}

static void fill_config(const struct latency_plan *plan, struct latency_result *out)
{
    memset(out, 0, sizeof(*out));
    out->dry_run = plan->dry_run;
    snprintf(out->size_rule, sizeof(out->size_rule), "%s", plan->size_rule);
    out->llc_bytes = plan->llc_bytes;
    out->idle.cpu = plan->cpu;
    out->idle.mem_node = plan->mem_node;
    out->idle.buffer_bytes = plan->bytes / LATENCY_LINE_BYTES * LATENCY_LINE_BYTES;
    out->idle.lines = plan->bytes / LATENCY_LINE_BYTES;
    out->idle.pages = plan->backend->name;
    out->load_threads = plan->loaded ? plan->n_load : 0;
    if (!plan->loaded)
        snprintf(out->loaded_why, sizeof(out->loaded_why), "%s",
                 plan->n_load == 0
                     ? "one core only: no other core to load the memory, so the loaded curve is "
                       "not measurable; idle latency only"
                     : "not asked for");
    if (plan->pages_automatic && plan->pages_why[0])
        WARNINGS_ADD(out, "the chase runs on %s pages: %s", plan->backend->name, plan->pages_why);
    /* the matrix's cells as planned; a run keeps those it measured */
    if (plan->n_pairs && (out->pairs = calloc(plan->n_pairs, sizeof(*out->pairs))) != NULL) {
        memcpy(out->pairs, plan->pairs, plan->n_pairs * sizeof(*out->pairs));
        if (plan->dry_run) out->n_pairs = plan->n_pairs;
    }
}

void latency_describe(const struct latency_plan *plan, struct latency_result *out)
{
    fill_config(plan, out);
}

/* --matrix numa: idle latency of each planned cell, in order. */
static int matrix(const struct latency_plan *plan, const struct topology *topo,
                  struct latency_result *out)
{
    if (!out->pairs) {
        log_error("--latency: out of memory for the matrix");
        return EXIT_RESOURCE;
    }
    for (size_t i = 0; i < plan->n_pairs; i++) {
        struct latency_pair *q = &out->pairs[out->n_pairs];
        struct latency_point p;
        int rc = interrupt_should_stop()
                     ? EXIT_OK
                     : latency_measure(topo, q->cpu, q->mem_node, plan->bytes, plan->backend, &p);
        if (rc != EXIT_OK) return rc;
        if (interrupt_should_stop() || !p.measured) { /* the cell under way is dropped */
            out->stopped = true;
            return EXIT_OK;
        }
        q->measured = true;
        q->ns = p.ns;
        q->locality = p.locality;
        out->n_pairs++;
    }
    return EXIT_OK;
}

int run_latency(const struct latency_plan *plan, const struct topology *topo,
                struct latency_result *out)
{
    fill_config(plan, out);
    struct latency_chain c;
    int rc = latency_measure_on(&c, topo, plan->cpu, plan->mem_node, plan->bytes, plan->backend,
                                &out->idle);
    if (rc == EXIT_OK && plan->loaded && out->idle.measured && !interrupt_should_stop())
        rc = loaded_curve(plan, topo, &c, out);
    latency_chain_free(&c);
    bool bound;
    bind_this_thread(topo, BIND_NONE, -1, &bound);
    if (rc == EXIT_OK && plan->matrix && out->idle.measured) rc = matrix(plan, topo, out);
    if (rc != EXIT_OK) return rc;
    const struct latency_point *p = &out->idle;
    /* stopped by a signal or the time limit: only what finished is reported */
    out->stopped = out->stopped || !p->measured || (plan->loaded && !out->loaded_measured);
    if (!p->measured) return EXIT_OK;
    if (!p->backing.verified)
        WARNINGS_ADD(out, "%s",
                     p->backing.mismatch[0] ? p->backing.mismatch
                                            : "the chase's pages could not be verified");
    else if (p->backing.page_size_bytes < page_pmd_bytes() && strcmp(p->pages, "4k") != 0)
        WARNINGS_ADD(out,
                     "--pages %s: only %.0f%% of the buffer is on transparent huge pages, so "
                     "most hops also miss the TLB",
                     p->pages, 100.0 * p->backing.thp_fraction);
    if (!p->mem_bound)
        WARNINGS_ADD(out,
                     "the memory binding to node %d failed (one NUMA node: all memory is "
                     "there anyway)",
                     p->mem_node);
    if (p->core_ghz > 0 && p->core_ghz_after > 0 &&
        fabs(p->core_ghz_after - p->core_ghz) > 0.05 * p->core_ghz)
        WARNINGS_ADD(out,
                     "the core clock moved during the chase (%.2f GHz before, %.2f after): "
                     "cycles use the mean",
                     p->core_ghz, p->core_ghz_after);
    if (p->locality.verified && p->locality.local_fraction < LOCALITY_MIN_FRACTION)
        WARNINGS_ADD(out,
                     "only %.1f%% of the chase's sampled pages are on memory node %d: the "
                     "figure mixes nodes (is the node's memory full?)",
                     100.0 * p->locality.local_fraction, p->mem_node);
    for (size_t i = 0; i < out->n_pairs; i++) {
        const struct page_locality *loc = &out->pairs[i].locality;
        if (loc->verified && loc->local_fraction < LOCALITY_MIN_FRACTION)
            WARNINGS_ADD(out,
                         "latency matrix: only %.1f%% of the sampled pages of cell %d -> %d "
                         "are on node %d",
                         100.0 * loc->local_fraction, out->pairs[i].cpu_node,
                         out->pairs[i].mem_node, out->pairs[i].mem_node);
    }
    if (plan->llc_bytes && p->buffer_bytes < LATENCY_LLC_MULTIPLE * plan->llc_bytes)
        WARNINGS_ADD(out,
                     "the buffer is below 4x the LLC of PU %d: part of the chase hits the cache, "
                     "so this is not memory latency",
                     p->cpu);
    out->measured = p->measured;
    return EXIT_OK;
}

void latency_kept(const struct latency_result *r, char *buf, size_t len)
{
    const char *what = "the latency measurement";
    if (!r->idle.measured)
        snprintf(buf, len, "%s was %s; no latency is reported", what, r->idle.why);
    else if (!r->stopped)
        snprintf(buf, len, "%s finished", what);
    else if (r->load_threads && !r->loaded_measured)
        snprintf(buf, len,
                 "%s stopped in the loaded curve after %zu of %zu steps; reporting the idle "
                 "latency and those steps",
                 what, r->n_steps, N_DELAYS);
    else
        snprintf(buf, len,
                 "%s stopped in the latency matrix after %zu cells; reporting the idle latency%s "
                 "and those cells",
                 what, r->n_pairs, r->load_threads ? ", the loaded curve" : "");
}

void latency_result_free(struct latency_result *out)
{
    free(out->pairs);
    out->pairs = NULL;
    out->n_pairs = 0;
}
