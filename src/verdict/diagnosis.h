#ifndef MEMBENCH_DIAGNOSIS_H
#define MEMBENCH_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "src/verdict/efficiency.h"

struct acceptance_result;
struct conditions_delta;
struct conditions_settings;
struct dimm_inventory;
struct run_result;

/* What the diagnosis reads: each may be NULL (not read, not measured). */
struct diagnosis_facts {
    const struct dimm_inventory *dimms;
    const struct conditions_settings *settings;
    const struct conditions_delta *during; /* what moved during the run; NULL for a dry run */
    const struct run_result *run;          /* the judged run (its per-domain rates) */
    const struct acceptance_result *verdict;
    const struct efficiency *efficiency;
    double tolerance_pct; /* the verdict's; a domain slower than its peers by more is named */
};

/* A likely cause of a shortfall, named only with the evidence that shows it. */
struct cause {
    const char *id;     /* "empty_channel", "cpu_steal", ... (docs/acceptance.md) */
    char summary[96];   /* a few words for a drain reason: "socket 0 channel C empty" */
    char evidence[320]; /* what was read, with its source */
    const char *remedy;
};

#define DIAGNOSIS_CAUSES_MAX 16

struct diagnosis {
    /* why causes were looked for: "verdict FAIL", "Triad at 61% of the ceiling, below the
     * typical 75-90%"; "" when the node looked healthy (then only what disturbed the run itself
     * is named) */
    char asked_by[160];
    int n;
    struct cause causes[DIAGNOSIS_CAUSES_MAX]; /* worst first */
    /* what a shortfall would have named: the causes above when asked_by is set, else what
     * disturbed the run and the node's configuration too, for a caller that judges the node
     * later (a cluster, against its peers) */
    int n_if_short;
    struct cause if_short[DIAGNOSIS_CAUSES_MAX];
};

/* The likely causes, worst first. What disturbed the measurement itself (CPU time stolen or
 * taken by other work, swapping, uncorrected memory errors during the run) is named whenever
 * it is seen; the node's own configuration (channels, speeds, frequency, THP, NUMA balancing,
 * corrected errors, a slow domain) only when the verdict is not PASS or the efficiency is below
 * its typical range. */
void diagnosis_make(const struct diagnosis_facts *f, struct diagnosis *out);

/* Thresholds: a share of the run's CPU time stolen or taken by other work at or above this is
 * named; below it the figures move by less than a repetition's usual spread. */
#define DIAGNOSIS_CPU_SHARE_MIN 0.05

#endif
