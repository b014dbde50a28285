/* Where memory goes: the area binding of the latency measurement (threads are bound in
 * bind.c). */
#include "affinity/membind.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int membind_local_node(const struct topology *topo, int pu)
{
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, o));)
        if (o->cpuset && pu >= 0 && hwloc_bitmap_isset(o->cpuset, (unsigned)pu))
            return (int)o->os_index;
    return -1;
}

int membind_node_exists(const struct topology *topo, int node)
{
    return node >= 0 && hwloc_get_numanode_obj_by_os_index(topo->hw, (unsigned)node) != NULL;
}

int membind_area(const struct topology *topo, void *base, size_t bytes, int node, char *why,
                 size_t why_len)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set) {
        snprintf(why, why_len, "out of memory for a node set");
        return -1;
    }
    hwloc_bitmap_only(set, (unsigned)node);
    int rc = hwloc_set_area_membind(topo->hw, base, bytes, set, HWLOC_MEMBIND_BIND,
                                    HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
    int err = errno;
    hwloc_bitmap_free(set);
    if (rc != 0)
        snprintf(why, why_len, "hwloc_set_area_membind(node %d) failed: %s", node, strerror(err));
    return rc;
}
