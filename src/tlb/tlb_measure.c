/* Measuring a set of points: every thread of the team samples each point of the set in K
 * interleaved rounds, the sweep's page and its control's lines at each; then the points join
 * the thread's curves. */
#include "src/tlb/tlb_team.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/stats.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/clock.h"
#include "src/base/test_hooks.h"
#include "src/tlb/tlb_curve.h"
#include "src/tlb/tlb_levels.h"
#include "src/tlb/tlb_progress.h"

#define WARMUP_S 0.2
#define SET_POINTS_MAX (GRID_MAX + REFINE_MAX)

/* Called by every thread of the team at the same place: true when a signal came, decided once
 * by the master so that all threads leave together (a thread alone would hang the barriers). */
bool tlb_team_should_stop(struct tlb_team *tm)
{
#pragma omp barrier
#pragma omp master
    tm->stop = tm->stop || interrupt_should_stop() != 0;
#pragma omp barrier
    return tm->stop;
}

void tlb_team_fail(struct tlb_team *tm, const char *fmt, ...)
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

uint64_t tlb_point_seed(double x, int kind, int thread)
{
    return (uint64_t)x * 1000003ull + (uint64_t)kind * 7919ull + (uint64_t)thread * 104729ull;
}

void tlb_build_point(const struct tlb_team *tm, struct tlb_worker *w, int thread, double x,
                     int kind, enum tlb_set set)
{
    const struct tlb_options *o = &tm->plan->opts;
    size_t n = (size_t)x;
    if (set == TLB_SET_HUGE && kind == 0)
        tlb_chain_build(&w->chain, o->mode, w->huge_tp.base, n, TLB_LAYOUT_SPREAD, tlb_huge_bytes(),
                        o->stagger, o->order, tlb_point_seed(x, 2, thread), w->order, w->offsets);
    else if (set == TLB_SET_REUSE)
        tlb_chain_build_reuse(&w->chain, kind == 0 ? w->main.base : w->control.base, n,
                              TLB_REUSE_SLOTS, kind == 0 ? TLB_LAYOUT_SPREAD : TLB_LAYOUT_DENSE,
                              kind == 0 ? tm->plan->page_bytes : page_base_bytes(),
                              tlb_point_seed(x, 3 + kind, thread), w->order, w->offsets);
    else if (kind == 0)
        tlb_chain_build(&w->chain, o->mode, w->main.base, n, TLB_LAYOUT_SPREAD,
                        tm->plan->page_bytes, o->stagger, o->order, tlb_point_seed(x, 0, thread),
                        w->order, w->offsets);
    else
        tlb_chain_build(&w->chain, o->mode, w->control.base, n, TLB_LAYOUT_DENSE, page_base_bytes(),
                        o->stagger, o->order, tlb_point_seed(x, 1, thread), w->order, w->offsets);
}

/* Each check inside a sample (every STOP_CHECK_ACCESSES accesses) is the named point "tlb
 * sample" on thread 0: a test stops the process while a long sample runs. */
static int sample_stop(void)
{
    if (omp_get_thread_num() == 0) test_hook_at("tlb sample");
    return interrupt_should_stop();
}

/* A sample that a signal or the time limit cut on any thread (w->cut) stops the team: after the
 * last sample of the set no check follows, so this one, made by every thread, decides. */
static void cut_stops_team(struct tlb_team *tm, int t, bool sync)
{
    if (!sync) {
        tm->stop = tm->stop || tm->w[t].cut;
        return;
    }
#pragma omp barrier
#pragma omp master
    for (int u = 0; u < tm->plan->threads; u++)
        tm->stop = tm->stop || tm->w[u].cut;
#pragma omp barrier
}

/* Measures the team's current point set: K rounds over all points, main then control at each;
 * with sync every thread samples each point at the same time. */
static void measure_set(struct tlb_team *tm, int t, int kinds, enum tlb_set set, bool sync)
{
    struct tlb_worker *w = &tm->w[t];
    const struct tlb_options *o = &tm->plan->opts;
    unsigned K = o->repeat;
    size_t nx = tm->nx;
    for (unsigned r = 0; r < K; r++) {
        for (size_t i = 0; i < nx; i++) {
            for (int kind = 0; kind < kinds; kind++) {
                size_t slot = i * (size_t)kinds + (size_t)kind;
                tlb_build_point(tm, w, t, tm->xs[i], kind, set);
                uint64_t chunk_accesses;
                int chunks = CHUNKS_PER_SAMPLE;
                if (o->trials) { /* seed 000's ./tlb N T: one timed run of T traversals */
                    chunk_accesses = o->trials * (uint64_t)tm->xs[i];
                    chunks = 1;
                } else {
                    if (r == 0)
                        w->chunk[slot] = tlb_calibrate(&w->chain, CHUNK_TARGET_S, sample_stop);
                    chunk_accesses = w->chunk[slot];
                }
                if (t == 0 && r == 0 && kind == 0) test_hook_at("tlb point %zu", i);
                if (t == 0 && kind == 0)
                    tlb_progress_point(tm->phase, r + 1, K, i + 1, nx, tm->xs[i]);
                bool stop =
                    sync ? tlb_team_should_stop(tm) : (tm->stop |= interrupt_should_stop() != 0);
                if (stop) {
                    if (t == 0 && !w->cut) tm->stopped_at = tm->xs[i];
                    return;
                }
                struct tlb_sample s;
                if (!tlb_sample_run(&w->chain, chunk_accesses, chunks, sample_stop, &s)) {
                    /* not a figure; the next check (every thread makes it) stops the team */
                    if (t == 0 && !w->cut) tm->stopped_at = tm->xs[i];
                    w->cut = true;
                    continue;
                }
                w->sink += w->chain.sink;
                w->ns[slot * K + r] = s.ns_per_access;
                w->disturbed[slot] += s.disturbed;
                if (o->trials && t == 0 && r == 0) tm->out->sample_s = s.seconds;
            }
        }
    }
}

/* The per-point buffers hold the largest set, allocated once, so no phase can fail half-way
 * through a team's barriers. */
int tlb_set_buffers(struct tlb_worker *w, unsigned K)
{
    size_t slots = (size_t)SET_POINTS_MAX * 2;
    w->chunk = calloc(slots, sizeof(uint64_t));
    w->ns = calloc(slots * K, sizeof(double));
    w->disturbed = calloc(slots, sizeof(int));
    return w->chunk && w->ns && w->disturbed ? 0 : -1;
}

static void set_reset(struct tlb_worker *w, unsigned K)
{
    size_t slots = (size_t)SET_POINTS_MAX * 2;
    memset(w->chunk, 0, slots * sizeof(uint64_t));
    memset(w->ns, 0, slots * K * sizeof(double));
    memset(w->disturbed, 0, slots * sizeof(int));
}

/* Moves a measured set into the thread's curves. */
static int set_collect(struct tlb_team *tm, int t, struct tlb_curve *main,
                       struct tlb_curve *control)
{
    struct tlb_worker *w = &tm->w[t];
    unsigned K = tm->plan->opts.repeat;
    int kinds = control ? 2 : 1;
    for (size_t i = 0; i < tm->nx; i++) {
        size_t slot = i * (size_t)kinds;
        if (!(w->ns[slot * K] > 0)) continue; /* interrupted before its first sample */
        if (tlb_curve_add(main, tm->xs[i], &w->ns[slot * K], (int)K, w->disturbed[slot],
                          tm->refined) != 0)
            return -1;
        if (control && !isfinite(tlb_curve_at(control, tm->xs[i])) &&
            tlb_curve_add(control, tm->xs[i], &w->ns[(slot + 1) * K], (int)K,
                          w->disturbed[slot + 1], tm->refined) != 0)
            return -1;
    }
    tlb_curve_sort(main);
    if (control) tlb_curve_sort(control);
    return 0;
}

/* Measures the current points (tm->xs) once into thread t's curves: the main sweep, and the
 * control too unless control is NULL. Returns 0, or -1 when the curves cannot grow. */
int tlb_measure_into(struct tlb_team *tm, int t, enum tlb_set set, bool sync,
                     struct tlb_curve *main, struct tlb_curve *control)
{
    set_reset(&tm->w[t], tm->plan->opts.repeat);
    measure_set(tm, t, control ? 2 : 1, set, sync);
    cut_stops_team(tm, t, sync);
    return set_collect(tm, t, main, control);
}

bool tlb_points_add(double *xs, size_t *n, size_t cap, double x)
{
    for (size_t i = 0; i < *n; i++)
        if (xs[i] == x) return true;
    if (*n >= cap) return false;
    xs[(*n)++] = x;
    return true;
}

/* Refinement points of every thread's analysis, merged. */
void tlb_plan_refinement(struct tlb_team *tm)
{
    struct knee_params p;
    tlb_knee_params(tm->plan, &p);
    double all[REFINE_MAX];
    size_t n_all = 0;
    for (int t = 0; t < tm->out->n_threads; t++) {
        struct tlb_sweep *s = &tm->out->per_thread[t].small;
        if (!s->analysed) continue;
        double x[GRID_MAX + REFINE_MAX], extra[REFINE_MAX];
        for (size_t i = 0; i < s->main.n; i++)
            x[i] = s->main.pts[i].pages;
        size_t m = knees_refine(&s->analysis, &p, x, s->main.n, extra, REFINE_MAX);
        for (size_t i = 0; i < m && n_all < REFINE_MAX; i++)
            if (extra[i] <= (double)tm->plan->max_pages)
                tlb_points_add(all, &n_all, REFINE_MAX, extra[i]);
    }
    qsort(all, n_all, sizeof(all[0]), compare_doubles);
    memcpy(tm->xs, all, n_all * sizeof(double));
    tm->nx = n_all;
    tm->refined = true;
}

void tlb_warm_up(struct tlb_team *tm, int t)
{
    struct tlb_worker *w = &tm->w[t];
    double pages = tm->plan->max_pages < 16 ? (double)tm->plan->max_pages : 16.0;
    tlb_build_point(tm, w, t, pages, 0, TLB_SET_SWEEP);
    double t0 = timer_now();
    while (timer_now() - t0 < WARMUP_S && !interrupt_should_stop())
        tlb_chain_run(&w->chain, 100000);
    w->sink += w->chain.sink;
}
