#ifndef MEMBENCH_TLB_KNEE_LEVELS_H
#define MEMBENCH_TLB_KNEE_LEVELS_H

/* Inside the knee analysis (tlb_knees.c): the levels it names. */

#include "src/tlb/tlb_knees.h"

/* a->levels from a's TLB knees: each level's entries, hit and miss costs, then the level past
 * the last (page walks, or one the sweep did not reach the end of). t_pl are T's t_npl
 * plateaus; t_last is T's last usable point. */
void knee_levels_build(const double *x, const double *y, size_t n, double t_last,
                       const struct plateau *t_pl, size_t t_npl, struct knee_analysis *a,
                       const struct knee_params *p);

#endif
