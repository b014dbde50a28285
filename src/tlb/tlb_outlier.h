#ifndef MEMBENCH_TLB_OUTLIER_H
#define MEMBENCH_TLB_OUTLIER_H

/* Threads of one TLB probe that measured a level differently: which one is the outlier. */
#include <stdbool.h>

#include "src/tlb/tlb_result.h"

enum tlb_outlier_basis {
    TLB_OUTLIERS_AGREE,      /* the threads agree */
    TLB_OUTLIERS_DOCUMENTED, /* they disagree; those off the documented size are named */
    TLB_OUTLIERS_MEDIAN,     /* they disagree; those off the others' median are named */
    TLB_OUTLIERS_UNDECIDED,  /* they disagree and nothing says which is right */
};

/* One figure of n threads (v[t]; NAN unknown, left out). The threads disagree when the
 * largest and smallest are more than max(rel x the smallest, abs_min) apart. Then thread t is
 * an outlier (out[t], compared with ref[t]) when it lies more than max(rel x ref, abs_min)
 * from the documented value (documented > 0), else, among three or more threads, from the
 * threads' median, when fewer than half of them are. Two undocumented threads, no thread off
 * its reference, or no majority around the median leave it undecided: nothing is named. */
enum tlb_outlier_basis tlb_outliers(const double *v, int n, double documented, double rel,
                                    double abs_min, bool *out, double *ref);

/* tlb_compare_threads (declared in tlb_levels.h) is defined in tlb_outlier.c: it flags the
 * threads whose levels differ (tlb_outliers on each level's entries, hit and miss costs, and
 * the number of levels), naming them and their PUs in out->differ_note, or saying why none
 * can be named. */

#endif
