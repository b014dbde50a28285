#ifndef MEMBENCH_SHARED_OPTIONS_H
#define MEMBENCH_SHARED_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "affinity/policy.h"

#define LIST_MAX 64 /* values of one list option */

/* --matrix: a run per (cpu domain, memory domain) pair. */
enum matrix_kind { MATRIX_NONE, MATRIX_NUMA, MATRIX_TIERS };

/* The options that several measurements read (the STREAM runs, --tlb, --latency): where their
 * threads run, what pages back their memory and --matrix, as parsed. Their rows are marked
 * OPTF_SHARED; each measurement's request points at the one copy src/cli parsed; an empty list
 * is each measurement's own default. */
struct shared_options {
    unsigned threads[LIST_MAX];
    size_t n_threads; /* 0 = $OMP_NUM_THREADS, else one per physical core */
    const char *pages[LIST_MAX];
    size_t n_pages;
    struct bind_spec binds[LIST_MAX];
    size_t n_binds;          /* 0 = scatter (compact from one thread per core up), or OpenMP's own
                                binding when OMP_PROC_BIND/OMP_PLACES/GOMP_CPU_AFFINITY are set */
    enum matrix_kind matrix; /* MATRIX_NUMA: STREAM's runs and --latency's points are cells */
};

/* What a measurement's request may read beside its own options block: the shared options and
 * the node's (src/cli fills it for each measurement's .options->request). */
struct measure_shared {
    const struct shared_options *options;
    bool dry_run;
    /* the verdict's options, which the judged measurement's runs serve */
    bool acceptance;             /* the acceptance profile's rules apply */
    bool checks;                 /* --expect or --reference */
    const char *save_reference;  /* --save-reference, else NULL */
    unsigned reference_runs;     /* --reference-runs (1: one run) */
    double reference_interval_s; /* --reference-interval */
    /* the store kind --reference's profile ran with ("normal", "nt"), else NULL */
    const char *reference_stores;
    const int *reference_kernel_stores; /* [KERNEL_COUNT]: enum store_kind, -1 = not given;
                                           NULL when the reference names none */
};

#endif
