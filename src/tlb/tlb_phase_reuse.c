/* The reuse chase: every level the cyclic sweep found is measured again with every page
 * visited TLB_REUSE_SLOTS times per traversal at random distances, from REUSE_FROM x its onset
 * to REUSE_TO x, and sized by the fit in tlb_reuse_fit.h. That fit does not depend on how the
 * level replaces entries, where a gradual cyclic rise does; and one entry evicted from outside
 * (another hardware thread, an interrupt) costs it one miss, where a cyclic sweep near an LRU
 * level's size loses the whole traversal to it, so its onset reads early under interference.
 * A sharp knee keeps its onset unless the fit lands past its bracket (the onset is exact for an
 * LRU level, and a level that missed nothing up to it holds at least that many pages); past
 * the bracket, and for every gradual rise, the fit is the size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/stats.h"
#include "src/tlb/tlb_curve.h"
#include "src/tlb/tlb_knee_levels.h"
#include "src/tlb/tlb_levels.h"
#include "src/tlb/tlb_team.h"

#define REUSE_FROM 0.6
#define REUSE_TO 3.0
#define REUSE_RATIO 1.05 /* between points */
/* A fit whose walk is under this share of the step the model read over the level's own rise
 * fitted some smaller cost that climbs there, not the level: on the recorded runs the fits that
 * sized their level had 0.7-9x that step, the ones that read a creep below it 0.13-0.43x. */
#define REUSE_WALK_SHARE 0.5

/* The first knee of the translation cost that starts past this level's rise: the next level
 * or the page walks, whose costs the fit must not see. */
static double next_knee(const struct knee_analysis *a, const struct knee_level *l)
{
    for (size_t k = 0; k < a->n_tlb_knees; k++)
        if (a->tlb_knees[k].last_low > l->rise_high) return a->tlb_knees[k].last_low;
    return INFINITY;
}

void tlb_reuse_plan(struct tlb_team *tm)
{
    const struct tlb_plan *plan = tm->plan;
    tm->nx = 0;
    tm->refined = false;
    if (plan->opts.mode != TLB_MODE_CHASE || !plan->opts.stagger || plan->opts.pages) return;
    for (int t = 0; t < tm->out->n_threads; t++) {
        struct tlb_sweep *s = &tm->out->per_thread[t].small;
        memset(s->reuse_levels, 0, sizeof(s->reuse_levels));
        if (!s->analysed) continue;
        const struct knee_analysis *a = &s->analysis;
        for (size_t i = 0; i < a->n_levels && i < TLB_LEVELS_MAX; i++) {
            const struct knee_level *l = &a->levels[i];
            if (l->set_conflict_ways || !isfinite(l->entries_low) || !(l->entries_low >= 16))
                continue;
            struct tlb_reuse_level *r = &s->reuse_levels[i];
            r->pages_low = floor(REUSE_FROM * l->entries_low);
            r->pages_high =
                fmin(fmin(REUSE_TO * l->entries_low, (double)plan->max_pages), next_knee(a, l));
            bool fits = true;
            for (double x = r->pages_low; x <= r->pages_high && fits; x *= REUSE_RATIO)
                fits = tlb_points_add(tm->xs, &tm->nx, GRID_MAX + REFINE_MAX, floor(x));
            r->planned = true;
        }
        s->reuse_slots = TLB_REUSE_SLOTS;
    }
    qsort(tm->xs, tm->nx, sizeof(tm->xs[0]), compare_doubles);
}

static void size_level(struct tlb_sweep *s, size_t i)
{
    struct tlb_reuse_level *r = &s->reuse_levels[i];
    const struct knee_analysis *a = &s->analysis;
    bool first = a->n_levels >= 2 && i > 0; /* the control's own misses in the first level */
    double first_entries = first ? a->levels[0].entries : NAN;
    double first_penalty = first ? a->levels[0].miss_penalty_ns : NAN;
    double x[GRID_MAX + REFINE_MAX], y[GRID_MAX + REFINE_MAX];
    size_t n = 0;
    for (size_t k = 0; k < s->reuse.n && n < GRID_MAX + REFINE_MAX; k++) {
        double pages = s->reuse.pts[k].pages;
        if (pages < r->pages_low || pages > r->pages_high) continue;
        x[n] = pages;
        y[n++] = reuse_translation_ns(pages, s->reuse.pts[k].ns_per_access,
                                      tlb_curve_at(&s->reuse_control, pages), first_entries,
                                      first_penalty);
    }
    reuse_fit_run(x, y, n, s->reuse_slots, &r->fit);
    if (!r->fit.ok) return;
    struct knee_level *l = &s->analysis.levels[i];
    double entries = floor(r->fit.entries + 0.5);
    const struct tlb_model_fit *m = &s->model[i];
    if (m->ok && r->fit.walk_ns < REUSE_WALK_SHARE * m->walk_ns) {
        r->fit.ok = false;
        snprintf(r->fit.why, sizeof(r->fit.why),
                 "its %.0f entries come with a walk of +%.1f ns, under half the +%.1f ns step of "
                 "the level's own rise (the model): a smaller cost that climbs there",
                 entries, r->fit.walk_ns, m->walk_ns);
        return;
    }
    /* The sweep missed nothing up to a sharp knee's onset: a fit well below it was drawn by a
     * disturbed point, not by the level, and is no reading of its size. */
    if (l->sharp && entries < l->entries_low * (1.0 - TLB_AGREE_REL)) {
        r->fit.ok = false;
        snprintf(r->fit.why, sizeof(r->fit.why),
                 "its %.0f entries lie below the sharp knee at %.0f pages, up to which the sweep "
                 "saw no misses (a disturbed point)",
                 entries, l->entries_low);
        return;
    }
    if (!l->sharp) { /* the fit is one more reading of a gradual rise's size */
        l->size_low = fmin(l->size_low, entries);
        l->size_high = fmax(l->size_high, entries);
    }
    /* no misses up to a sharp knee's onset: the level holds at least that many pages */
    if (l->sharp && entries <= l->entries_high) return;
    if (l->sharp) /* past the bracket: the onset read early, the fit is the size */
        l->size_high = fmax(l->size_high, entries);
    l->entries = entries;
    l->approx = true;
    l->reuse_sized = true;
}

void tlb_reuse_size(struct tlb_sweep *s, const struct cpuid_tlb_info *info, unsigned page_bit)
{
    bool changed = false;
    for (size_t i = 0; i < TLB_LEVELS_MAX && i < s->analysis.n_levels; i++)
        if (s->reuse_levels[i].planned) {
            size_level(s, i);
            changed |= s->analysis.levels[i].reuse_sized;
        }
    if (changed) tlb_levels_document(s, info, page_bit);
}

void tlb_reuse_apply(struct tlb_team *tm)
{
    for (int t = 0; t < tm->out->n_threads; t++)
        tlb_reuse_size(&tm->out->per_thread[t].small, &tm->out->cpuid,
                       tm->plan->page_bytes == page_base_bytes() ? TLB_PAGE_4K : TLB_PAGE_2M);
}
