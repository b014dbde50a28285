/* How much memory this process's cgroup still allows: a batch job's or container's limit is
 * as real as MemAvailable, and exceeding it gets the benchmark OOM-killed mid-run. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/sys/sysinfo.h"

#define UNLIMITED_FLOOR (1ull << 60) /* cgroup v1 writes "no limit" as a huge number */

static int read_value(const char *path, uint64_t *v)
{
    char buf[64];
    if (read_first_line(path, buf, sizeof(buf)) != 0) return -1;
    if (strncmp(buf, "max", 3) == 0) {
        *v = UINT64_MAX;
        return 0;
    }
    char *end;
    unsigned long long x = strtoull(buf, &end, 10);
    if (end == buf) return -1;
    *v = x;
    return 0;
}

/* The cgroup path of the memory controller: v2 "0::/a/b", v1 "N:...memory...:/a/b". */
static int cgroup_path(const char *proc_cgroup, char *path, size_t len, int *v2)
{
    FILE *f = fopen(proc_cgroup, "r");
    if (!f) return -1;
    char line[1024];
    int found = -1;
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c1 || !c2) continue;
        *c2 = '\0';
        const char *controllers = c1 + 1;
        bool is_v1_memory = false;
        for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
            is_v1_memory |= strcmp(tok, "memory") == 0;
        if (is_v1_memory) {
            snprintf(path, len, "memory%s", c2 + 1);
            *v2 = 0;
            found = 0;
            break; /* v1 memory controller wins: it is the one that enforces */
        }
        if (controllers[0] == '\0' && strncmp(line, "0", 1) == 0) {
            snprintf(path, len, "%s", c2 + 1);
            *v2 = 1;
            found = 0;
        }
    }
    fclose(f);
    return found;
}

int cgroup_memory_headroom(const char *proc_cgroup, const char *cgroup_root, uint64_t *headroom,
                           uint64_t *limit)
{
    char rel[900];
    int v2 = 0;
    if (cgroup_path(proc_cgroup, rel, sizeof(rel), &v2) != 0) return -1;
    const char *limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
    const char *usage_file = v2 ? "memory.current" : "memory.usage_in_bytes";
    uint64_t best = UINT64_MAX, best_limit = UINT64_MAX;
    /* Every ancestor's limit applies too: walk up to the root. */
    for (;;) {
        char dir[1200], path[1300];
        snprintf(dir, sizeof(dir), "%s/%s", cgroup_root, rel);
        uint64_t lim, used;
        snprintf(path, sizeof(path), "%s/%s", dir, limit_file);
        if (read_value(path, &lim) == 0 && lim < UNLIMITED_FLOOR) {
            snprintf(path, sizeof(path), "%s/%s", dir, usage_file);
            if (read_value(path, &used) != 0) used = 0;
            uint64_t room = used < lim ? lim - used : 0;
            if (room < best) {
                best = room;
                best_limit = lim;
            }
        }
        char *slash = strrchr(rel, '/');
        if (!slash) break;
        *slash = '\0';
    }
    if (best == UINT64_MAX) return -1;
    *headroom = best;
    *limit = best_limit;
    return 0;
}
