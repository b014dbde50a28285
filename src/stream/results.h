#ifndef MEMBENCH_RESULTS_H
#define MEMBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "affinity/page_locality.h"
#include "affinity/placement.h"
#include "affinity/topology.h"
#include "hugepages/backend.h"
#include "kernels/kernel_table.h"
#include "kernels/validate.h"
#include "src/stream/plan.h"
#include "src/stream/store_choice.h"

/* Plain result structs: measurement fills them, writers only format them. */

struct kernel_result {
    enum kernel_id kernel;
    double best_rate_mbps; /* 1e-6 * bytes_counted / min_time */
    double avg_time_s, min_time_s, max_time_s;
    uint64_t bytes_counted;
    uint64_t bytes_estimated_traffic;
    double min_ticks;           /* min_time in timer granularity steps */
    bool reduction_checked;     /* Dot, Read: the sum was compared with the closed form */
    double reduction_rel_error; /* worst over the repetitions */
    enum store_kind stores;     /* the store kind this kernel ran with */
    double finish_spread_s;     /* median over the measured repetitions of last - first thread */
    /* (max - min) / max of the timed repetitions' rates (= (max_time - min_time) / max_time):
     * how far one repetition's rate is from another's; -1 with fewer than 2 timed */
    double rep_spread;
};

#define RUN_WARNINGS_MAX 8

/* One domain's share of a run (--per-domain), timed from the common start of each kernel to
 * the last of its threads finishing, while every other domain ran too. */
struct domain_result {
    int index; /* logical index of the NUMA node, package or LLC; -1 when unknown */
    int n_threads;
    uint64_t elements;                   /* handled by its threads */
    double best_rate_mbps[KERNEL_COUNT]; /* indexed by enum kernel_id */
};

struct run_result {
    struct run_config config;
    struct store_choice stores_choice; /* how config.stores was decided */
    bool measured;                     /* false for --dry-run */
    int n_placement;
    struct placement_entry *placement;
    bool migrated;      /* a thread ran on a different PU at the end than at first touch */
    unsigned reps_done; /* repetitions run, first included; fewer than ntimes under a time limit */
    bool interrupted;   /* stopped by SIGINT/SIGTERM before it finished: not reported */
    int n_misplaced;    /* threads not running where the plan put them */
    int n_unbound;      /* planned threads whose binding was not applied or did not read back */
    int n_domains;
    struct domain_result *domains;
    struct backing_info backing;
    /* sampled pages of each thread's share of the arrays, against the NUMA node of the PU it
     * first touched them on (a --matrix cell: against config.mem_node) */
    struct page_locality locality;
    int n_results;
    struct kernel_result results[KERNEL_COUNT];
    struct validation_result validation;
    unsigned warm_up_passes;     /* passes of the untimed first repetition (stream_team.h) */
    double warm_up_s;            /* how long they took */
    unsigned warm_up_own_passes; /* those with the run's own stores, auto's calibration after */
    double warm_up_own_s;        /* how long they took */
    int n_warnings;
    char warnings[RUN_WARNINGS_MAX][200];
};

/* A/B of page backings: one kernel of two runs that differ only in --pages. */
struct page_comparison {
    enum kernel_id kernel;
    size_t baseline, variant; /* indexes into stream_result.runs */
    double relative_change;   /* variant best rate / baseline best rate - 1 */
};

/* The store kind a kernel ran with: "normal" or "nt", or "auto" before it was measured. */
static inline const char *kernel_stores_name(const struct run_result *r,
                                             const struct kernel_result *k)
{
    return strcmp(r->config.stores, "auto") == 0 ? "auto"
           : k->stores == STORES_NT              ? "nt"
                                                 : "normal";
}

/* A measured run that must fail the command: wrong results or pages it did not ask for. */
static inline bool run_failed(const struct run_result *r)
{
    return r->measured && (!r->validation.passed || r->backing.mismatch[0] != '\0');
}

#endif
