/* Which cpuset cgroup this process is in, and what it allows: a job step's or container's
 * cpuset hides CPUs from hwloc, so the cause of a restricted run is named from here. */
#include "src/sys/cgroup_cpuset.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "src/sys/sysinfo.h"

/* The cgroup path of the cpuset controller: v1 "N:...cpuset...:/a/b" wins over v2 "0::/a/b"
 * (a v1 cpuset hierarchy is the one that enforces when both exist). */
static int cpuset_cgroup_path(const char *proc_cgroup, char *v1, size_t v1_len, char *v2,
                              size_t v2_len)
{
    FILE *f = fopen(proc_cgroup, "r");
    if (!f) return -1;
    char line[1024];
    v1[0] = v2[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c1 || !c2) continue;
        *c1 = *c2 = '\0';
        bool v2_line = c1[1] == '\0' && strcmp(line, "0") == 0;
        bool cpuset = false;
        for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
            cpuset |= strcmp(tok, "cpuset") == 0;
        if (cpuset) snprintf(v1, v1_len, "%s", c2 + 1);
        if (v2_line) snprintf(v2, v2_len, "%s", c2 + 1);
    }
    fclose(f);
    return v1[0] || v2[0] ? 0 : -1;
}

static int read_list(const char *path, char *cpus, size_t len)
{
    return read_first_line(path, cpus, len) == 0 && cpus[0] ? 0 : -1;
}

int cgroup_cpuset_cpus(const char *proc_cgroup, const char *cgroup_root, char *cpus,
                       size_t cpus_len, char *path, size_t path_len)
{
    char v1[900], v2[900];
    if (cpuset_cgroup_path(proc_cgroup, v1, sizeof(v1), v2, sizeof(v2)) != 0) return -1;
    const char *rel = strcmp(v1, "/") == 0 ? "" : v1;
    if (v1[0]) {
        static const char *const files[] = {"cpuset.effective_cpus", "cpuset.cpus"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(path, path_len, "%s/cpuset%s/%s", cgroup_root, rel, files[i]);
            if (read_list(path, cpus, cpus_len) == 0) return 0;
        }
    }
    rel = strcmp(v2, "/") == 0 ? "" : v2;
    if (v2[0]) {
        static const char *const mounts[] = {"", "/unified"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(path, path_len, "%s%s%s/cpuset.cpus.effective", cgroup_root, mounts[i], rel);
            if (read_list(path, cpus, cpus_len) == 0) return 0;
        }
    }
    return -1;
}
