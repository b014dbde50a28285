#include "affinity/topology.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/sys/sysinfo.h"

#define MAX_LLC_INSTANCES 1024

/* "32768K", "32M", "1024" (bytes) as written by the kernel's cacheinfo. */
static uint64_t parse_cache_size(const char *s)
{
    char *end;
    uint64_t v = strtoull(s, &end, 10), bytes = v;
    uint64_t unit = *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : 1;
    return __builtin_mul_overflow(v, unit, &bytes) ? 0 : bytes; /* 0: not a size we can use */
}

struct instance {
    char shared[256];
    uint64_t bytes;
};

int llc_from_sysfs(const char *cpu_root, int *level_out, int *count_out, uint64_t *bytes_out)
{
    DIR *root = opendir(cpu_root);
    if (!root) return -1;
    static struct instance seen[MAX_LLC_INSTANCES];
    int nseen = 0, best_level = 0;
    struct dirent *cpu;
    while ((cpu = readdir(root))) {
        unsigned id;
        char tail;
        if (sscanf(cpu->d_name, "cpu%u%c", &id, &tail) != 1) continue;
        for (int index = 0;; index++) {
            char dir[512], path[600], buf[256];
            snprintf(dir, sizeof(dir), "%s/%s/cache/index%d", cpu_root, cpu->d_name, index);
            snprintf(path, sizeof(path), "%s/level", dir);
            if (read_first_line(path, buf, sizeof(buf)) != 0) break;
            int level = atoi(buf);
            snprintf(path, sizeof(path), "%s/type", dir);
            if (read_first_line(path, buf, sizeof(buf)) != 0 || strcmp(buf, "Instruction") == 0)
                continue;
            if (level < best_level) continue;
            if (level > best_level) {
                best_level = level;
                nseen = 0;
            }
            char shared[256];
            snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
            if (read_first_line(path, shared, sizeof(shared)) != 0)
                snprintf(shared, sizeof(shared), "cpu%u", id);
            snprintf(path, sizeof(path), "%s/size", dir);
            if (read_first_line(path, buf, sizeof(buf)) != 0) continue;
            int dup = 0;
            for (int i = 0; i < nseen && !dup; i++)
                dup = strcmp(seen[i].shared, shared) == 0;
            if (!dup && nseen < MAX_LLC_INSTANCES) {
                snprintf(seen[nseen].shared, sizeof(seen[nseen].shared), "%s", shared);
                seen[nseen].bytes = parse_cache_size(buf);
                nseen++;
            }
        }
    }
    closedir(root);
    uint64_t total = 0;
    for (int i = 0; i < nseen; i++)
        if (__builtin_add_overflow(total, seen[i].bytes, &total)) return -1;
    if (best_level == 0 || total == 0) return -1;
    *level_out = best_level;
    *count_out = nseen;
    *bytes_out = total;
    return 0;
}
