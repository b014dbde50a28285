/* The TLB probe (--tlb): runs the team of measuring threads through the schedule below and
 * assembles the result. tlb_plan.c plans it; tlb_measure.c measures a set of points;
 * tlb_levels.c names the levels; tlb_phase_huge.c and tlb_phase_throughput.c are phases 3
 * and 4; report_tlb_*.c format.
 *
 * Every placed thread (one by default) runs the same schedule at once, each on its own pages:
 *   1. the sweep (one access per 4 KB page, 1..max pages) and the control (the same number of
 *      cache lines in 64x fewer pages), point by point, interleaved, in K rounds: a burst of
 *      other work on the machine hits one round of many points, not every repeat of a few;
 *   2. knee detection, then refinement points inside each knee's bracket, K rounds again;
 *   2b. the reuse chase around each level that rose gradually (tlb_phase_reuse.c), which sizes
 *      it whatever its replacement policy;
 *   3. (one thread) the 2 MB sweep on transparent huge pages, and a check whether 2 MB pages
 *      are translated whole or in 4 KB pieces;
 *   4. page-walk throughput: random loads, one per 4 KB page of 128 MiB, 4 KB vs 2 MB backing.
 * Each sample is the median of short timed chunks (tlb_sample_run). */
#include "src/tlb/run_tlb.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/bind.h"
#include "affinity/page_locality.h"
#include "affinity/thread_start.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/tlb/tlb_curve.h"
#include "src/tlb/tlb_levels.h"
#include "src/tlb/tlb_progress.h"
#include "src/tlb/tlb_team.h"
#include "src/base/warnings.h"

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
    out->cost = plan->cost;
    out->chunk_target_s = CHUNK_TARGET_S;
    out->chunks_per_sample = CHUNKS_PER_SAMPLE;
    out->trials = plan->opts.trials;
    out->huge_extends_reach = -1;
    out->splinter.verdict = -1;
    snprintf(out->huge_why, sizeof(out->huge_why), "%s", plan->huge_why);
    for (int i = 0; i < 2; i++) {
        out->walk[i].page_bytes = i ? tlb_huge_bytes() : page_base_bytes();
        snprintf(out->walk[i].why, sizeof(out->walk[i].why), "%.190s", plan->walk_why);
    }
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

/* Cache sizes above a PU from hwloc: L1d, L2, L3 (0 when unknown). */
static void pu_caches(const struct topology *topo, int pu, uint64_t *l1, uint64_t *l2, uint64_t *l3)
{
    *l1 = *l2 = *l3 = 0;
    hwloc_obj_t o = pu >= 0 ? hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)pu)
                            : hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_PU, 0);
    for (; o; o = o->parent) {
        if (!topology_is_cpu_cache(o)) continue;
        uint64_t size = o->attr->cache.size;
        if (o->attr->cache.depth == 1 && !*l1) *l1 = size;
        if (o->attr->cache.depth == 2 && !*l2) *l2 = size;
        if (o->attr->cache.depth == 3 && !*l3) *l3 = size;
    }
}

/* Run by the thread that touched the region, on the PU it touched it from. */
static void sample_locality(struct tlb_team *tm, const struct tlb_region *r)
{
    struct page_locality *loc = &tm->out->locality;
    page_locality_begin(loc);
    int pu = sched_getcpu();
    int node = pu >= 0 ? topology_locate_pu(tm->topo, pu).numa : -1;
    if (node < 0) page_locality_fail(loc, "the NUMA node of PU %d is unknown", pu);
    page_locality_sample(loc, r->base, r->bytes, LOCALITY_STEP_BYTES, node);
    page_locality_end(loc);
}

static int team_setup(struct tlb_team *tm, int t)
{
    const struct tlb_plan *plan = tm->plan;
    struct tlb_worker *w = &tm->w[t];
    char why[300];
    size_t n = (size_t)plan->max_pages;
    size_t scratch = n * TLB_REUSE_SLOTS;
    if (plan->huge && plan->max_huge_pages > scratch) scratch = (size_t)plan->max_huge_pages;
    if (!plan->opts.pages && THROUGHPUT_BYTES / page_base_bytes() > scratch)
        scratch = THROUGHPUT_BYTES / page_base_bytes();
    w->order = malloc(scratch * sizeof(uint32_t));
    w->offsets = malloc(scratch * sizeof(size_t));
    w->scratch_n = scratch;
    if (!w->order || !w->offsets || tlb_set_buffers(w, plan->opts.repeat) != 0) {
        tlb_team_fail(tm, "out of memory for the TLB probe's bookkeeping");
        return -1;
    }
    if (tlb_region_alloc_small(&w->main, n * plan->page_bytes, plan->pages_name, why,
                               sizeof(why)) != 0 ||
        tlb_region_alloc_small(&w->control, tlb_layout_bytes(TLB_LAYOUT_DENSE, n, 0), "4k", why,
                               sizeof(why)) != 0) {
        tlb_team_fail(tm, "%s", why);
        return -1;
    }
    const size_t small = page_base_bytes();
    tlb_region_touch(&w->main, plan->page_bytes < small ? plan->page_bytes : small);
    tlb_region_touch(&w->control, small);
    struct backing_info b;
    backing_verify(SMAPS, w->main.backend, (uintptr_t)w->main.base,
                   (uintptr_t)(w->main.base + w->main.bytes), w->main.how, &b);
    if (t == 0) {
        tm->out->backing = b;
        sample_locality(tm, &w->main);
    }
    if (strcmp(plan->pages_name, "4k") == 0 && b.verified &&
        (b.anon_huge_bytes > 0 || b.page_size_bytes > small)) {
        tlb_team_fail(tm,
                      "%s's memory came back %.0f%% on huge pages despite "
                      "MADV_NOHUGEPAGE; check /sys/kernel/mm/transparent_hugepage/enabled",
                      tlb_sweep_name(false), 100.0 * b.thp_fraction);
        return -1;
    }
    return 0;
}

static void team_teardown(struct tlb_worker *w)
{
    tlb_region_release(&w->main);
    tlb_region_release(&w->control);
    tlb_region_release(&w->small_tp);
    tlb_region_release(&w->huge_tp);
    free(w->order);
    free(w->offsets);
    free(w->chunk);
    free(w->ns);
    free(w->disturbed);
}

static void analyse_all(struct tlb_team *tm)
{
    struct knee_params p;
    tlb_knee_params(tm->plan, &p);
    unsigned bit = tm->plan->page_bytes == page_base_bytes() ? TLB_PAGE_4K : TLB_PAGE_2M;
    for (int u = 0; u < tm->out->n_threads; u++) {
        struct tlb_sweep *s = &tm->out->per_thread[u].small;
        tlb_finish_sweep(s, &s->control, tm->plan, tm->out, bit, &p);
    }
}

static void after_sweep(struct tlb_team *tm)
{
    analyse_all(tm); /* interrupted: the points measured so far */
    if (!tm->stop) {
        tlb_plan_refinement(tm);
        tm->phase = "the sweep's refinement";
    }
}

static void after_refinement(struct tlb_team *tm)
{
    analyse_all(tm);
    tlb_reuse_plan(tm);
    tm->phase = "the reuse chase";
}

static void after_reuse(struct tlb_team *tm)
{
    tlb_reuse_apply(tm);
    if (!tm->stop) tlb_sets_phase(tm);
    tlb_compare_threads(tm->out);
    tm->phase = tlb_sweep_name(true);
    if (tm->plan->huge && !tm->stop) tlb_huge_phase(tm);
    tlb_describe_reach(tm->out);
}

/* Every thread measures the current points into its curves (when measure is true); after a
 * barrier, thread 0 takes the next step alone. */
static void measure_then_step(struct tlb_team *tm, int t, bool measure, enum tlb_set set,
                              struct tlb_curve *main, struct tlb_curve *control,
                              void (*step)(struct tlb_team *))
{
    if (measure && tlb_measure_into(tm, t, set, true, main, control) != 0)
        tlb_team_fail(tm, "out of memory for results");
#pragma omp barrier
    if (t == 0) step(tm);
}

/* Phases 1 to 4 of the schedule for thread t, once its memory is set up and warm. */
static void run_phases(struct tlb_team *tm, int t)
{
    struct tlb_sweep *s = &tm->out->per_thread[t].small;
    if (tm->plan->opts.pages) {
        if (tlb_measure_into(tm, t, TLB_SET_SWEEP, true, &s->main, NULL) != 0)
            tlb_team_fail(tm, "out of memory for results");
        return;
    }
    measure_then_step(tm, t, true, TLB_SET_SWEEP, &s->main, &s->control, after_sweep);
    if (tlb_team_should_stop(tm)) return;
    measure_then_step(tm, t, tm->nx > 0, TLB_SET_SWEEP, &s->main, &s->control, after_refinement);
    measure_then_step(tm, t, !tlb_team_should_stop(tm) && tm->nx > 0, TLB_SET_REUSE, &s->reuse,
                      &s->reuse_control, after_reuse);
    tlb_throughput_phase(tm, t);
}

static void start_probe(struct tlb_team *tm, int t)
{
    const struct tlb_plan *plan = tm->plan;
    tlb_warm_up(tm, t);
    if (t == 0) {
        tm->out->tsc_ghz = tlb_tsc_ghz();
        tm->out->core_ghz = tlb_core_ghz_estimate();
        tm->phase = plan->opts.pages                        ? "its single point"
                    : plan->page_bytes == page_base_bytes() ? tlb_sweep_name(false)
                                                            : "the sweep";
    }
#pragma omp barrier
}

static void team_run(struct tlb_team *tm)
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
        if (!tlb_team_should_stop(tm) && !tm->error) {
            start_probe(tm, t);
            run_phases(tm, t);
        }
        int end = sched_getcpu();
        res->migrated = end != pu;
#pragma omp critical(tlb_sink)
        out->sink_ += tm->w[t].sink;
        team_teardown(&tm->w[t]);
    }
}

size_t tlb_points_measured(const struct tlb_result *r)
{
    return r->n_threads ? r->per_thread[0].small.main.n : 0;
}

/* What a probe stopped early reports: the points measured before the signal or the limit. */
static void describe_stop(const struct tlb_team *tm)
{
    struct tlb_result *out = tm->out;
    size_t points = tlb_points_measured(out);
    char at[48] = "";
    if (tm->stopped_at > 0)
        snprintf(at, sizeof(at), " at %.0f page%s", tm->stopped_at, tm->stopped_at == 1 ? "" : "s");
    out->stopped = true;
    for (int i = 0; i < 2; i++)
        if (!out->walk[i].measured && !out->walk[i].why[0])
            snprintf(out->walk[i].why, sizeof(out->walk[i].why), "%s before it ran",
                     interrupt_stop_reason());
    if (tm->plan->huge && !out->huge_measured && !out->huge_why[0])
        snprintf(out->huge_why, sizeof(out->huge_why), "%s before it ran", interrupt_stop_reason());
    if (!tm->phase || points == 0)
        snprintf(out->stopped_note, sizeof(out->stopped_note),
                 "the TLB probe stopped before its first point was measured");
    else
        snprintf(out->stopped_note, sizeof(out->stopped_note),
                 "the TLB probe stopped in %s%s; reporting the %zu point%s measured", tm->phase, at,
                 points, points == 1 ? "" : "s");
}

static void warn_placement(const struct tlb_plan *plan, struct tlb_result *out)
{
    for (int t = 0; t < out->n_threads; t++) {
        const struct tlb_thread_result *r = &out->per_thread[t];
        if (plan->pus[t] >= 0 && (!r->bound || r->pu != plan->pus[t] || r->migrated))
            WARNINGS_ADD(out, "thread %d was not kept on PU %d (ran on %d%s)", t, plan->pus[t],
                         r->pu, r->migrated ? ", then moved" : "");
    }
    if (plan->page_bytes > page_base_bytes() && out->backing.verified &&
        out->backing.page_size_bytes < plan->page_bytes)
        WARNINGS_ADD(out,
                     "--pages %s: smaps shows %llu-byte pages under the sweep, not %llu: the "
                     "stride is one access per %llu bytes but the pages are smaller",
                     plan->pages_name, (unsigned long long)out->backing.page_size_bytes,
                     (unsigned long long)plan->page_bytes, (unsigned long long)plan->page_bytes);
    if (out->locality.verified && out->locality.local_fraction < LOCALITY_MIN_FRACTION)
        WARNINGS_ADD(out,
                     "only %.1f%% of the sweep's sampled pages are on its thread's NUMA node: "
                     "misses cost remote memory; run without a memory policy (numactl "
                     "--membind/--interleave)",
                     100.0 * out->locality.local_fraction);
    if (plan->pus[0] < 0)
        WARNINGS_ADD(out, "the probe is not pinned (--cpu -1): moving to another core leaves the "
                          "TLB cold and spoils points");
}

static void warn_options(const struct tlb_plan *plan, struct tlb_result *out)
{
    if (!plan->opts.stagger)
        WARNINGS_ADD(out, "--no-stagger: every page uses cache line 0, so cache-set conflicts add "
                          "knees that the control (lines spread over its pages) cannot reproduce; "
                          "no level is named");
    if (plan->opts.mode == TLB_MODE_INC)
        WARNINGS_ADD(out, "--tlb-mode inc: independent accesses overlap their misses, so knees "
                          "are faint or missing; they are numbered, not named as TLB levels "
                          "(--tlb-mode chase measures latency)");
}

static void warn_disturbance(const struct tlb_plan *plan, const struct timer_info *timer,
                             struct tlb_result *out)
{
    long chunks = 0, disturbed = 0;
    for (int t = 0; t < out->n_threads; t++)
        for (size_t i = 0; i < out->per_thread[t].small.main.n; i++) {
            const struct tlb_point *p = &out->per_thread[t].small.main.pts[i];
            chunks += (long)p->samples * (out->trials ? 1 : CHUNKS_PER_SAMPLE);
            disturbed += p->disturbed_chunks;
        }
    if (chunks && disturbed * 10 > chunks)
        WARNINGS_ADD(out,
                     "%.0f%% of the timed chunks ran slower than 1.5x their sample's median: "
                     "other work on this machine; samples are medians, points the min of %u",
                     100.0 * (double)disturbed / (double)chunks, plan->opts.repeat);
    if (out->single_point && out->trials && out->sample_s > 0) { /* a sample finished */
        out->timer_share = 2.0 * timer->call_cost_s / out->sample_s;
        if (out->timer_share > 0.01)
            WARNINGS_ADD(out,
                         "one sample of %llu trials took %.1f us: the two clock readings (%.0f ns "
                         "each) are %.1f%% of it; raise --tlb-trials",
                         (unsigned long long)out->trials, out->sample_s * 1e6,
                         timer->call_cost_s * 1e9, 100.0 * out->timer_share);
    }
}

/* Runs the team over the planned points; returns an exit status after a one-line error. */
static int measure_all(struct tlb_team *tm)
{
    const struct tlb_plan *plan = tm->plan;
    if (plan->opts.pages) {
        tm->nx = 1;
        tm->xs[0] = (double)plan->opts.pages;
    } else {
        tm->nx = tlb_sweep_grid(plan->max_pages, tm->xs, GRID_MAX);
    }
    char why[300];
    if (threads_can_start((unsigned)plan->threads, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_RESOURCE;
    }
    omp_set_dynamic(0);
    double t0 = timer_now();
    tlb_progress_begin();
    team_run(tm);
    tlb_progress_end();
    tm->out->seconds = timer_now() - t0;
    if (tm->error) {
        log_error("%s", tm->why);
        return tm->error;
    }
    return EXIT_OK;
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
    struct tlb_team tm = {.plan = plan, .topo = topo, .out = out};
    tm.thp_possible = strcmp(sys->thp_enabled, "never") != 0;
    tm.w = calloc((size_t)plan->threads, sizeof(*tm.w));
    if (!tm.w) {
        log_error("out of memory for the TLB probe");
        return EXIT_RESOURCE;
    }
    int rc = measure_all(&tm);
    free(tm.w);
    if (rc != EXIT_OK) return rc;
    if (tm.stop) describe_stop(&tm);
    warn_placement(plan, out);
    warn_options(plan, out);
    warn_disturbance(plan, timer, out);
    out->measured = true;
    return EXIT_OK;
}
