#ifndef MEMBENCH_MEMBIND_H
#define MEMBENCH_MEMBIND_H

#include <stddef.h>

#include "affinity/topology.h"

/* NUMA nodes are named by the OS's number here, as in every report. */

/* Binds [base, base + bytes) to NUMA node `node` with hwloc_set_area_membind
 * (HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT), before the first touch
 * places any page. Returns 0, or -1 with the reason in why. */
int membind_area(const struct topology *topo, void *base, size_t bytes, int node, char *why,
                 size_t why_len);

#endif
