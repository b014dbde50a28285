/* The TLB levels named from the knees of T (knee_levels_build) and what a level's numbers
 * say (knee_level_*). */
#include "src/tlb/tlb_knee_levels.h"
#include "src/base/stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double plateau_median(const double *y, const struct plateau *p)
{
    double v[KNEE_POINTS_MAX];
    size_t m = 0;
    for (size_t i = p->first; i <= p->last; i++)
        if (isfinite(y[i])) v[m++] = y[i];
    return m ? median_sorting(v, m) : NAN;
}

void knee_levels_build(const double *x, const double *y, size_t n, double t_last,
                       const struct plateau *t_pl, size_t t_npl, struct knee_analysis *a,
                       const struct knee_params *p)
{
    static const char *const names[] = {"L1 DTLB", "L2 TLB", "L3 TLB", "L4 TLB"};
    size_t n_tlb = 0;
    for (size_t k = 0; k < a->n_tlb_knees; k++)
        n_tlb += a->tlb_knees[k].kind == KNEE_TLB;
    if (n_tlb == 0 || t_npl == 0) return;
    double hit = plateau_median(y, &t_pl[0]);
    size_t level = 0;
    double cumulative = 0.0; /* translation cost of the level being described, over L1 hits */
    const struct knee *last_tlb = NULL;
    for (size_t k = 0; k < a->n_tlb_knees && level < KNEE_LEVELS_MAX; k++) {
        const struct knee *kn = &a->tlb_knees[k];
        if (kn->kind != KNEE_TLB) continue;
        struct knee_level *l = &a->levels[level];
        memset(l, 0, sizeof(*l));
        snprintf(l->name, sizeof(l->name), "%s", names[level]);
        l->entries_low = kn->last_low;
        l->entries_high = kn->first_high;
        l->rise_high = kn->sharp ? kn->first_high : floor(kn->x90 + 0.5);
        l->sharp = kn->sharp;
        l->entries = kn->sharp ? kn->last_low : floor(kn->mid_x + 0.5);
        l->midpoint = kn->sharp ? NAN : l->entries;
        l->size_low = kn->last_low;
        l->size_high = fmax(kn->mid_after, kn->sharp ? kn->first_high : l->entries);
        l->half_x = kn->mid_x;
        l->complete_x = kn->complete_x;
        l->approx = !kn->sharp || kn->first_high / kn->last_low > p->approx_ratio;
        l->hit_ns = hit + cumulative;
        l->miss_penalty_ns = kn->step_ns;
        l->max_penalty_ns = NAN;
        l->at_x = NAN;
        cumulative += kn->step_ns;
        last_tlb = kn;
        level++;
    }
    struct knee_level *next = &a->levels[level];
    memset(next, 0, sizeof(*next));
    next->max_penalty_ns = NAN;
    next->at_x = NAN;
    next->entries = NAN;
    next->midpoint = NAN;
    next->entries_low = NAN;
    next->entries_high = NAN;
    next->rise_high = NAN;
    next->complete_x = NAN;
    next->size_low = next->size_high = next->half_x = NAN;
    if ((int)level >= p->max_tlb_levels || a->walk_step_found) {
        /* past the last TLB level: page walks */
        const struct knee_level *prev = &a->levels[level - 1];
        snprintf(next->name, sizeof(next->name), "page walk");
        next->hit_ns = NAN;
        next->miss_penalty_ns = prev->miss_penalty_ns;
        next->max_penalty_ns = t_last - last_tlb->low_ns;
        next->at_x = x[n - 1];
    } else {
        /* the next level exists but the sweep found no end to it */
        snprintf(next->name, sizeof(next->name), "%s", names[level]);
        next->hit_ns = hit + cumulative;
        next->miss_penalty_ns = NAN;
        next->entries_high = NAN;
        next->at_x = x[n - 1];
    }
    a->n_levels = level + 1;
}

const char *knee_level_method(const struct knee_level *l)
{
    return l->set_conflict_ways    ? "set conflict"
           : !isfinite(l->entries) ? "not reached"
           : l->stride_sized       ? "stride probe"
           : l->model_sized        ? "model"
           : l->reuse_sized        ? "reuse fit"
           : knee_level_gradual(l) ? "midpoint"
                                   : "sharp knee";
}

bool knee_level_bracket(const struct knee_level *l, double *low, double *high)
{
    if (l->set_conflict_ways || !isfinite(l->entries)) return false;
    *low = isfinite(l->size_low) ? fmin(l->size_low, l->entries) : l->entries;
    *high = isfinite(l->size_high) ? fmax(l->size_high, l->entries) : l->entries;
    return true;
}

bool knee_level_decided(const struct knee_level *l)
{
    double low, high;
    if (!knee_level_bracket(l, &low, &high)) return false;
    return !(low > 0) || high <= TLB_DECIDED_RATIO * low;
}

bool knee_level_undecided(const struct knee_level *l)
{
    if (l->set_conflict_ways || !isfinite(l->entries) || knee_level_decided(l)) return false;
    return knee_level_gradual(l) || l->size_high > l->entries_high;
}

double knee_level_off(const struct knee_level *l, double documented)
{
    double low, high;
    if (!(documented > 0) || !knee_level_bracket(l, &low, &high)) return NAN;
    if (documented > high) return (documented - high) / documented;
    if (documented < low) return (documented - low) / documented;
    return 0.0;
}

bool knee_level_agrees(const struct knee_level *l, double documented)
{
    return fabs(knee_level_off(l, documented)) <= TLB_AGREE_REL + 1e-12;
}
