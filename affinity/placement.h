#ifndef MEMBENCH_PLACEMENT_H
#define MEMBENCH_PLACEMENT_H

#include "affinity/topology.h"

struct placement_entry {
    int thread, pu, core, package, numa;
};

/* Where each of nthreads OpenMP threads runs now, as PU OS indices (-1 if unknown). */
void placement_observe(int *pus, int nthreads);

/* Core, package and NUMA node of each observed PU. */
void placement_describe(const struct topology *topo, const int *pus, int n,
                        struct placement_entry *out);

#endif
