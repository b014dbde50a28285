/* Where memory goes: binding areas to a NUMA node before first touch (threads are bound in
 * bind.c). */
#include "affinity/membind.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int membind_area(const struct topology *topo, void *base, size_t bytes, int node, char *why,
                 size_t why_len)
{
    hwloc_obj_t obj = node >= 0 ? hwloc_get_numanode_obj_by_os_index(topo->hw, (unsigned)node)
                                : NULL;
    if (!obj) {
        snprintf(why, why_len, "NUMA node %d is not in the topology", node);
        return -1;
    }
    if (hwloc_set_area_membind(topo->hw, base, bytes, obj->nodeset, HWLOC_MEMBIND_BIND,
                               HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT) != 0) {
        snprintf(why, why_len, "binding memory to NUMA node %d (mbind) failed: %s", node,
                 strerror(errno));
        return -1;
    }
    return 0;
}
