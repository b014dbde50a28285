#ifndef MEMBENCH_PLACEMENT_H
#define MEMBENCH_PLACEMENT_H

#include <stdbool.h>

#include "affinity/topology.h"

struct placement_entry {
    int thread;
    int planned_pu; /* -1 when membench does not bind */
    int pu;         /* where the thread ran (OS index) */
    int core, package, numa, llc;
    bool bound; /* binding applied and read back as requested */
};

/* Fills core, package, NUMA node and LLC of each entry from its pu. */
void placement_locate(const struct topology *topo, struct placement_entry *entries, int n);

#endif
