#ifndef MEMBENCH_MEMBIND_H
#define MEMBENCH_MEMBIND_H

#include <stddef.h>

#include "affinity/topology.h"

/* NUMA nodes are named by hwloc logical index here, as in every report. */

/* The NUMA node local to a PU (OS index); -1 when hwloc does not say. */
int membind_local_node(const struct topology *topo, int pu);

/* Whether a NUMA node with this logical index exists. */
int membind_node_exists(const struct topology *topo, int node);

/* Binds [base, base + bytes) to NUMA node `node` with hwloc_set_area_membind
 * (HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT), before the first touch
 * places any page. Returns 0, or -1 with the reason in why. */
int membind_area(const struct topology *topo, void *base, size_t bytes, int node, char *why,
                 size_t why_len);

#endif
