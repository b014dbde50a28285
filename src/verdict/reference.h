#ifndef MEMBENCH_REFERENCE_H
#define MEMBENCH_REFERENCE_H

#include <stdbool.h>
#include <stdio.h>

#include "src/verdict/acceptance.h"

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

/* A reference is what a good node measured, with the profile and the system it ran on, as
 * JSON ("membench_reference": 1). Loading fills expectations; errors name the file, the
 * line and column for syntax errors, or the key that is missing. Returns 0 or -1. */
int reference_load(const char *path, struct expectations *e, char *why, size_t why_len);

/* Every kernel the reference holds a rate for must be measured by this run (run_mask): else
 * -1 with a reason naming them and the options that add them. */
int reference_check_kernels(const char *path, const struct expectations *e, unsigned run_mask,
                            bool acceptance, char *why, size_t why_len);

/* Writes the reference of one measured run (its profile and system), with the rates of runs:
 * the medians of its K runs (NULL: the run's own best rates). Returns 0, or -1 on an I/O
 * error. */
int reference_write(FILE *out, const struct node_facts *node, const struct run_result *run,
                    const struct reference_runs *runs);

#endif
