/* The stride probe (tlb_sets.h), on thread 0 after the 4 KB sweep: N pages at power-of-two
 * strides, then two scans of N at the strides around the first that makes them miss; a level
 * indexed by the low page-number bits is then sized by the experiment, not by the sweep's rise. */
#include "src/tlb/tlb_team.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "affinity/topology.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/tlb/tlb_levels.h"

#define SPAN_MARGIN 1.25 /* the scans reach 1.2 x their range */

/* ns per access of n pages `stride` base pages apart: the least of K samples' medians; NAN when
 * a signal or the time limit cut it. */
static double measure(struct tlb_team *tm, struct tlb_worker *w, double n, unsigned stride,
                      uint64_t *chunk)
{
    size_t pages = (size_t)n;
    tlb_chain_build(&w->chain, TLB_MODE_CHASE, w->main.base, pages, TLB_LAYOUT_STRIDED,
                    (size_t)stride * page_base_bytes(), true, TLB_ORDER_RANDOM,
                    tlb_point_seed(n, 5, (int)stride), w->order, w->offsets);
    if (!*chunk) *chunk = tlb_calibrate(&w->chain, CHUNK_TARGET_S, interrupt_should_stop);
    struct tlb_sample smp;
    if (interrupt_should_stop() ||
        !tlb_sample_run(&w->chain, *chunk, TLB_SETS_CHUNKS, interrupt_should_stop, &smp)) {
        tm->stop = true;
        return NAN;
    }
    w->sink += w->chain.sink;
    return smp.ns_per_access;
}

/* Points xs[0..n) at one stride, K rounds interleaved (a burst of other work hits one round of
 * many points): the least per point into ns. False when stopped. */
static bool measure_points(struct tlb_team *tm, const double *xs, size_t n, const unsigned *strides,
                           double *ns)
{
    struct tlb_worker *w = &tm->w[0];
    uint64_t chunk[TLB_SETS_SCAN_MAX] = {0};
    for (size_t i = 0; i < n; i++)
        ns[i] = INFINITY;
    for (unsigned r = 0; r < tm->plan->opts.repeat; r++)
        for (size_t i = 0; i < n; i++) {
            double x = measure(tm, w, xs[i], strides[i], &chunk[i]);
            if (!isfinite(x)) return false;
            ns[i] = fmin(ns[i], x);
        }
    return true;
}

static bool stride_test(struct tlb_team *tm, struct tlb_sets *s)
{
    double xs[TLB_SETS_STRIDES_MAX];
    s->n_strides = 0;
    for (unsigned k = 1; k <= TLB_SETS_STRIDE_MAX && s->n_strides < TLB_SETS_STRIDES_MAX; k *= 2) {
        xs[s->n_strides] = s->pages;
        s->stride[s->n_strides++] = k;
    }
    return measure_points(tm, xs, s->n_strides, s->stride, s->ns);
}

static bool scan(struct tlb_team *tm, struct tlb_sets *s, struct tlb_sets_scan *sc, unsigned stride)
{
    double low, high;
    tlb_sets_scan_range(s, stride, &low, &high);
    double ratio = pow(high / low, 1.0 / (TLB_SETS_SCAN_MAX - 1));
    unsigned strides[TLB_SETS_SCAN_MAX];
    sc->stride = stride;
    sc->n = 0;
    for (double x = low; x <= high * 1.0001 && sc->n < TLB_SETS_SCAN_MAX; x *= ratio) {
        double pages = floor(x + 0.5);
        if (sc->n && pages <= sc->pages[sc->n - 1]) continue;
        strides[sc->n] = stride;
        sc->pages[sc->n++] = pages;
    }
    if (!measure_points(tm, sc->pages, sc->n, strides, sc->ns)) return false;
    tlb_sets_scan_onset(sc, s->full_ns - s->base_ns);
    return true;
}

/* The least step that counts as a miss here: a share of the walk that a miss past the first
 * level costs, as the model fit of a level past the first saw it, and never less than
 * TLB_SETS_MIN_STEP_NS (a walk costs tens of cycles; a hashed index leaves the strides within
 * the noise, a fraction of that). */
static double min_step(const struct tlb_sweep *sw)
{
    for (size_t i = 1; i < sw->analysis.n_levels && i < TLB_LEVELS_MAX; i++)
        if (sw->model[i].ok && isfinite(sw->model[i].walk_ns))
            return fmax(TLB_SETS_MIN_STEP_NS, 0.25 * sw->model[i].walk_ns);
    return TLB_SETS_MIN_STEP_NS;
}

const char *tlb_sets_unplanned(const struct tlb_plan *plan)
{
    return plan->opts.pages                        ? "a single point (--tlb-pages)"
           : plan->opts.mode != TLB_MODE_CHASE     ? "--tlb-mode inc"
           : !plan->opts.stagger                   ? "--no-stagger"
           : plan->page_bytes != page_base_bytes() ? "the sweep is not on base pages"
                                                   : NULL;
}

static bool sets_runnable(const struct tlb_team *tm, struct tlb_sets *s)
{
    const struct tlb_sweep *sw = &tm->out->per_thread[0].small;
    const char *why = tlb_sets_unplanned(tm->plan);
    if (!why && (!sw->analysed || sw->analysis.n_levels < 2)) why = "the sweep found no level";
    if (why) snprintf(s->why, sizeof(s->why), "not run: %s", why);
    return !why;
}

/* The level of a sweep nearest the experiment's size (within a factor 2), past the first;
 * -1 none. */
static int nearest_level(const struct tlb_sweep *sw, const struct tlb_sets *s)
{
    double best = INFINITY;
    int level = -1;
    for (size_t i = 1; i < sw->analysis.n_levels && i < TLB_LEVELS_MAX; i++) {
        const struct knee_level *l = &sw->analysis.levels[i];
        if (l->set_conflict_ways || !isfinite(l->entries) || strcmp(l->name, "page walk") == 0)
            continue;
        double off = fabs(log(l->entries / s->entries));
        if (off < log(2.0) && off < best) {
            best = off;
            level = (int)i;
        }
    }
    return level;
}

/* The level of the sweep nearest the experiment's size: its size becomes the experiment's, the
 * sweep's reading kept in level_was. */
static void sets_apply(struct tlb_sweep *sw, struct tlb_sets *s, const struct cpuid_tlb_info *info)
{
    if (s->index != TLB_SETS_LOW_BITS) return;
    s->level = nearest_level(sw, s);
    if (s->level < 0) return;
    struct knee_level *l = &sw->analysis.levels[s->level];
    s->level_was = l->entries;
    l->entries = s->entries;
    l->size_low = fmin(s->scan[0].entries, s->scan[1].entries);
    l->size_high = fmax(s->scan[0].entries, s->scan[1].entries);
    l->approx = false;
    l->stride_sized = true;
    tlb_levels_document(sw, info, TLB_PAGE_4K);
}

/* Whether the probe found the index hashed: no stride that made the pages miss at all (not
 * strides whose capacities merely disagree, which noise can do). */
static bool sets_hashed(const struct tlb_sets *s)
{
    return s->index == TLB_SETS_NOT_LOW_BITS && s->conflict_stride == 0;
}

/* The level of a sweep the probe's index is for: the low bits, the one the probe's size lies
 * nearest (thread 0's, sized by it: s->level); hashed, the level past the first, whose step the
 * probe's N pages see; -1 none. */
static int sets_level(const struct tlb_sweep *sw, const struct tlb_sets *s, bool first)
{
    if (s->index == TLB_SETS_LOW_BITS) return first ? s->level : nearest_level(sw, s);
    if (!sets_hashed(s)) return -1;
    return sw->analysis.n_levels > 1 && strcmp(sw->analysis.levels[1].name, "page walk") != 0 ? 1
                                                                                              : -1;
}

/* That level's model fit (tlb_model_fit.h) told the index; a hashed level is then sized by it.
 * Returns the size the model replaced, NAN none. */
static double sets_index_model(struct tlb_sweep *sw, const struct tlb_sets *s, int level,
                               const struct cpuid_tlb_info *info)
{
    bool hashed = sets_hashed(s);
    sw->model_index_known[level] = true;
    sw->model_index[level] = hashed ? TLB_INDEX_HASHED : TLB_INDEX_DIRECT;
    tlb_model_size(sw, info, TLB_PAGE_4K);
    return hashed ? tlb_model_apply_hashed(sw, (size_t)level, info, TLB_PAGE_4K) : NAN;
}

/* hwloc's kind of core thread t ran on; -1 where it knows none. */
static int kind_of(const struct tlb_team *tm, int t)
{
    return tm->topo && tm->topo->hw ? topology_locate_pu(tm->topo, tm->out->per_thread[t].pu).kind
                                    : -1;
}

/* The index the probe found on thread 0 for every sweep: thread 0's, then the other threads'
 * on the same kind of core (the same TLB design), each level read from its own curve. */
static void sets_index_threads(struct tlb_team *tm, struct tlb_sets *s)
{
    struct tlb_result *out = tm->out;
    int kind0 = kind_of(tm, 0);
    for (int t = 0; t < out->n_threads; t++) {
        struct tlb_sweep *sw = &out->per_thread[t].small;
        if (t > 0 && kind_of(tm, t) != kind0) continue;
        int level = sets_level(sw, s, t == 0);
        if (level < 0 || level >= TLB_LEVELS_MAX) continue;
        double was = sets_index_model(sw, s, level, &out->cpuid);
        s->threads += !sets_hashed(s) || isfinite(was); /* hashed: only where the model sized it */
        if (t == 0 && isfinite(was)) {                  /* the level the probe's answer sized */
            s->level = level;
            s->level_was = was;
        }
    }
}

void tlb_sets_phase(struct tlb_team *tm)
{
    struct tlb_sets *s = &tm->out->sets;
    struct tlb_sweep *sw = &tm->out->per_thread[0].small;
    memset(s, 0, sizeof(*s));
    s->level = -1;
    s->entries = NAN;
    if (!sets_runnable(tm, s)) return;
    struct tlb_worker *w = &tm->w[0];
    s->pages = tlb_sets_pages(sw->analysis.levels[0].entries);
    if (s->pages > tlb_sets_pages(TLB_SETS_PLAN_L1)) { /* the header stated the plan's memory */
        snprintf(s->why, sizeof(s->why),
                 "not run: an L1 DTLB of %.0f entries needs %.0f pages, more than the %.0f the "
                 "plan stated",
                 sw->analysis.levels[0].entries, s->pages, tlb_sets_pages(TLB_SETS_PLAN_L1));
        return;
    }
    size_t span = (size_t)(SPAN_MARGIN * s->pages * TLB_SETS_STRIDE_MAX) * page_base_bytes();
    char why[200] = "its scratch is too small";
    if (s->pages * SPAN_MARGIN * 2 > (double)w->scratch_n ||
        tlb_region_alloc_small(&w->huge_tp, span, "4k", why, sizeof(why)) != 0) {
        snprintf(s->why, sizeof(s->why), "not run: %s", why);
        return;
    }
    struct tlb_region main = w->main;
    w->main = w->huge_tp; /* measure() builds its chains in w->main */
    tm->phase = "the stride probe";
    double t0 = timer_now();
    s->run = stride_test(tm, s) && tlb_sets_find_conflict(s, min_step(sw)) &&
             scan(tm, s, &s->scan[0], s->conflict_stride) &&
             (s->conflict_stride < 2 || scan(tm, s, &s->scan[1], s->conflict_stride / 2));
    w->main = main;
    tlb_region_release(&w->huge_tp);
    s->seconds = timer_now() - t0;
    if (tm->stop) {
        s->run = false;
        snprintf(s->why, sizeof(s->why), "%s before it finished", interrupt_stop_reason());
        return;
    }
    if (!s->run) {
        s->run = s->n_strides > 0; /* measured; no stride made the pages miss, or undecided */
        sets_index_threads(tm, s);
        return;
    }
    tlb_sets_conclude(s);
    sets_apply(sw, s, &tm->out->cpuid);
    sets_index_threads(tm, s);
}
