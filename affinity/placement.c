#include "affinity/placement.h"

void placement_locate(const struct topology *topo, struct placement_entry *entries, int n)
{
    for (int t = 0; t < n; t++) {
        struct pu_location where = topology_locate_pu(topo, entries[t].pu);
        entries[t].core = where.core;
        entries[t].package = where.package;
        entries[t].numa = where.numa;
        entries[t].llc = where.llc;
    }
}
