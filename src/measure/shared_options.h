#ifndef MEMBENCH_SHARED_OPTIONS_H
#define MEMBENCH_SHARED_OPTIONS_H

#include <stddef.h>

#include "affinity/policy.h"

#define LIST_MAX 64 /* values of one list option */

/* The options that several measurements read (the STREAM runs, --tlb, --latency): where their
 * threads run and what pages back their memory, as parsed. Each one's request points at the
 * one copy src/cli parsed; an empty list is each measurement's own default. */
struct shared_options {
    unsigned threads[LIST_MAX];
    size_t n_threads; /* 0 = $OMP_NUM_THREADS, else one per physical core */
    const char *pages[LIST_MAX];
    size_t n_pages;
    struct bind_spec binds[LIST_MAX];
    size_t n_binds; /* 0 = scatter (compact from one thread per core up), or OpenMP's own
                       binding when OMP_PROC_BIND/OMP_PLACES/GOMP_CPU_AFFINITY are set */
};

#endif
