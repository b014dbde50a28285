#ifndef MEMBENCH_TLB_KNEE_LEVELS_H
#define MEMBENCH_TLB_KNEE_LEVELS_H

/* The TLB levels the knee analysis (tlb_knees.c) names, and the one rule every writer reads a
 * level by; tlb_knee_levels.c. */

#include "src/tlb/tlb_knees.h"

/* a->levels from a's TLB knees: each level's entries, hit and miss costs, then the level past
 * the last (page walks, or one the sweep did not reach the end of). t_pl are T's t_npl
 * plateaus; t_last is T's last usable point. */
void knee_levels_build(const double *x, const double *y, size_t n, double t_last,
                       const struct plateau *t_pl, size_t t_npl, struct knee_analysis *a,
                       const struct knee_params *p);

/* A level sized from a gradual rise (else the onset of a sharp knee, or a set conflict). */
static inline bool knee_level_gradual(const struct knee_level *l)
{
    return !l->sharp && !l->set_conflict_ways && l->rise_high > l->entries_low;
}

/* A level whose size range reaches past what its figure says (a gradual rise, or a knee whose
 * midpoint lies past its bracket) and spans more than TLB_DECIDED_RATIO: reported as that
 * range. */
bool knee_level_undecided(const struct knee_level *l);

/* The one rule every TLB writer (text, JSON, CSV, -q) reads a level by.
 * Method: how `entries` was obtained: "sharp knee" (its onset), "reuse fit", "stride probe"
 * (tlb_sets.h), "midpoint" (of a gradual rise), "set conflict" (no size), "not reached" (no
 * knee up to the sweep's last point: no size). Bracket: every size the readings allow, [size_low,
 * size_high] widened to hold `entries`; false when the level has no size. Agreement: the documented
 * size D agrees when the bracket comes within TLB_AGREE_REL x D of it (inside it: 0 off). */
#define TLB_AGREE_REL 0.10
#define TLB_DECIDED_RATIO 1.25
const char *knee_level_method(const struct knee_level *l);
bool knee_level_bracket(const struct knee_level *l, double *low, double *high);
/* How far D lies outside the bracket, as a fraction of D (0 inside, > 0 above, < 0 below);
 * NAN when the level has no size or nothing is documented. */
double knee_level_off(const struct knee_level *l, double documented);
bool knee_level_agrees(const struct knee_level *l, double documented);
/* The curves decide the size: its bracket spans no more than TLB_DECIDED_RATIO. */
bool knee_level_decided(const struct knee_level *l);

#endif
