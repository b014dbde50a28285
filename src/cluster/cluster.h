#ifndef MEMBENCH_CLUSTER_H
#define MEMBENCH_CLUSTER_H

#include <stdbool.h>
#include <stdio.h>

#include "kernels/kernel_table.h"
#include "src/cli/cli.h"

/* One node's result as rank 0 sees it, parsed from the node's JSON report. */
struct node_summary {
    char host[256]; /* as struct sys_info holds it */
    int rank;       /* world rank of the node's leader */
    int exit_code;  /* the node run's own exit status */
    char error[240];
    bool validated;
    bool acceptance_evaluated, acceptance_passed;
    double rate[KERNEL_COUNT]; /* best MB/s; 0 = not measured */
    bool slow;                 /* some kernel in slow_kernels: the node FAILs */
    bool outlier;              /* some kernel in slow_kernels or fast_kernels */
    char why[200];
    char likely[200]; /* the node's own likely causes (its diagnosis[]), ", "-joined; "" none */
    char likely_if_short[200]; /* its diagnosis_if_short[]: for a node slower than its peers */
    char *report_json;         /* the node's full report, owned */
    /* verdict */
    bool healthy;                       /* exit 0, no error, rates: counted in the statistics */
    unsigned slow_kernels;              /* below the median by more than the margin (a FAIL) */
    unsigned fast_kernels;              /* above it by more than the margin (reported only) */
    double deviation_pct[KERNEL_COUNT]; /* vs the healthy nodes' median; 0 when not compared */
    bool rates_checked;                 /* its run checked rates against --reference/--expect */
    bool cpus_restricted;               /* its run could not use every CPU of the node */
    int cores, machine_cores;           /* cores its run could use, of the node's; 0 = unknown */
    unsigned threads;                   /* its run's thread count; 0 = unknown */
    char cpus_usable[64];
};

struct cluster_stats {
    unsigned kernels; /* mask of kernels measured on every node */
    double median[KERNEL_COUNT], mad[KERNEL_COUNT], min[KERNEL_COUNT], max[KERNEL_COUNT];
    /* verdict */
    int healthy;        /* nodes in the statistics */
    bool peer;          /* healthy >= CLUSTER_PEER_MIN: each node judged against its peers */
    bool rates_checked; /* the nodes' runs judged rates against --reference/--expect */
    unsigned shown;     /* kernels any node measured: the table's columns */
};

#define CLUSTER_MAD_K 3.0
/* Fewer healthy nodes cannot tell which one is wrong (of two, either may be the anomaly). */
#define CLUSTER_PEER_MIN 4

/* Fills a summary from a node's JSON report (or marks the node failed with a reason). */
void node_summary_parse(const char *json_text, int rank, int exit_code, struct node_summary *s);

/* Statistics per kernel over the healthy nodes (exit 0, rates), and, with at least
 * CLUSTER_PEER_MIN of them, the flags: a kernel deviates when |rate - median| >
 * max(k x 1.4826 x MAD, tolerance x median); below the median it is slow (the node FAILs),
 * above it fast (an outlier, reported, never failed). A node's reason names its worst
 * deviating kernel. Nodes that failed on their own are judged by their own run. */
void cluster_flag(struct node_summary *nodes, int n, double tolerance_pct, double k_mad,
                  struct cluster_stats *st);

/* A node passes when its run exited 0 without an error and it is not slow. */
bool node_passed(const struct node_summary *s);
/* Its own run was INCONCLUSIVE (exit 5: too noisy to judge): neither failed nor healthy. */
bool node_inconclusive(const struct node_summary *s);

/* The cluster run's exit status: the last node error status (2, 3, 128+N) if any, else 1 when a
 * node failed (FAIL, slow, no report), else 5 when one was INCONCLUSIVE, else 0. */
int cluster_exit_status(const struct node_summary *nodes, int n);

int report_cluster_text(FILE *out, const struct node_summary *nodes, int n,
                        const struct cluster_stats *st, double tolerance_pct);
int report_cluster_json(FILE *out, const struct node_summary *nodes, int n,
                        const struct cluster_stats *st, double tolerance_pct);
int report_cluster_csv(FILE *out, const struct node_summary *nodes, int n,
                       const struct cluster_stats *st);

/* Under mpirun/srun (MPI builds only): every node (or, with --mpi-per-rank, every rank)
 * runs the node benchmark; rank 0 prints one row per node. Returns the exit status that
 * every rank exits with. */
bool cluster_launched(void);
int cluster_main(struct options *opts, int *argc, char ***argv);

#endif
