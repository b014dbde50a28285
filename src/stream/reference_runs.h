#ifndef MEMBENCH_REFERENCE_RUNS_H
#define MEMBENCH_REFERENCE_RUNS_H

#include "kernels/kernel_table.h"

struct run_result;

#define REFERENCE_RUNS_MAX 20 /* --reference-runs */

/* What K runs measured for a reference: per kernel the median of their best rates (what is
 * saved as the rate) and their run-to-run spread, (max - min) / max of those best rates. */
struct reference_runs {
    int runs; /* K; 1 = a reference from one run, as before */
    double best_mbps[KERNEL_COUNT][REFERENCE_RUNS_MAX];
    double median_mbps[KERNEL_COUNT];
    double spread[KERNEL_COUNT]; /* a fraction; with one run 0 */
    double interval_s;           /* the pause asked for between the runs */
    double span_s;               /* from the first run's start to the last one's end */
};

/* Adds one more run's best rates (r zeroed before the first; at most REFERENCE_RUNS_MAX); then,
 * after the last, finish computes the medians and spreads. */
void reference_runs_add(struct reference_runs *r, const struct run_result *run);
void reference_runs_finish(struct reference_runs *r);

#endif
