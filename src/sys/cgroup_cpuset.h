#ifndef MEMBENCH_CGROUP_CPUSET_H
#define MEMBENCH_CGROUP_CPUSET_H

#include <stddef.h>

/* The CPUs the cpuset cgroup of this process allows, as its own file says: cgroup v2
 * cpuset.cpus.effective, or v1 cpuset.effective_cpus (cpuset.cpus on old kernels).
 * proc_cgroup is normally /proc/self/cgroup, cgroup_root /sys/fs/cgroup (v1 controllers
 * mounted under it by name, v2 at it or at its "unified"). Fills cpus ("0-3,8") and path (the
 * file read) and returns 0; -1 when no cpuset cgroup file can be read. */
int cgroup_cpuset_cpus(const char *proc_cgroup, const char *cgroup_root, char *cpus,
                       size_t cpus_len, char *path, size_t path_len);

#endif
