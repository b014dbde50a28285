#include "affinity/placement.h"

#include <omp.h>
#include <sched.h>

void placement_observe(int *pus, int nthreads)
{
    for (int t = 0; t < nthreads; t++)
        pus[t] = -1;
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        if (t < nthreads) pus[t] = sched_getcpu();
    }
}

void placement_describe(const struct topology *topo, const int *pus, int n,
                        struct placement_entry *out)
{
    for (int t = 0; t < n; t++) {
        out[t].thread = t;
        out[t].pu = pus[t];
        topology_locate_pu(topo, pus[t], &out[t].core, &out[t].package, &out[t].numa);
    }
}
