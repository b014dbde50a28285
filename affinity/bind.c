#include "affinity/bind.h"

#include <sched.h>

int bind_this_thread(const struct topology *topo, enum bind_kind kind, int pu, bool *bound)
{
    *bound = false;
    if (kind == BIND_OPENMP_ENV) {
        hwloc_bitmap_t got = hwloc_bitmap_alloc();
        *bound = hwloc_get_cpubind(topo->hw, got, HWLOC_CPUBIND_THREAD) == 0 &&
                 hwloc_bitmap_weight(got) == 1;
        hwloc_bitmap_free(got);
        return sched_getcpu();
    }
    hwloc_bitmap_t want = hwloc_bitmap_alloc();
    if (pu >= 0)
        hwloc_bitmap_only(want, (unsigned)pu);
    else
        hwloc_bitmap_copy(want, topo->usable);
    if (hwloc_set_cpubind(topo->hw, want, HWLOC_CPUBIND_THREAD) == 0 && pu >= 0) {
        hwloc_bitmap_t got = hwloc_bitmap_alloc();
        *bound = hwloc_get_cpubind(topo->hw, got, HWLOC_CPUBIND_THREAD) == 0 &&
                 hwloc_bitmap_isequal(got, want);
        hwloc_bitmap_free(got);
    }
    hwloc_bitmap_free(want);
    return sched_getcpu();
}
