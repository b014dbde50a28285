#ifndef MEMBENCH_LAUNCH_CPUS_H
#define MEMBENCH_LAUNCH_CPUS_H

#include <hwloc.h>

/* The CPUs this process was launched on (taskset, numactl, mpirun --bind-to, the batch
 * system), as opposed to the pin an OpenMP runtime gives the initial thread while it loads
 * (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY). Must be called from the main thread.
 * Fills out and returns 0; -1 when the CPUs cannot be read (out is then untouched). */
int launch_cpus(hwloc_bitmap_t out);

/* The rule, on three snapshots of the main thread's affinity: at launch, after the shared
 * libraries' constructors, and now. Exposed for the unit tests. */
const unsigned long *launch_cpus_choose(const unsigned long *at_launch,
                                        const unsigned long *after_libraries,
                                        const unsigned long *now, size_t words);

#endif
