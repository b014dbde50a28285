#ifndef MEMBENCH_SYSINFO_H
#define MEMBENCH_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HUGEPAGE_POOLS_MAX 4

struct hugepage_pool {
    uint64_t page_size_bytes;
    uint64_t total, free, reserved, surplus;
};

/* Facts about the running system that are not topology: read, never changed. */
struct sys_info {
    char hostname[256];
    char kernel[128];
    char thp_enabled[32];         /* the bracketed word of .../transparent_hugepage/enabled */
    uint64_t mem_available_bytes; /* 0 when unknown */
    int n_pools;
    struct hugepage_pool pools[HUGEPAGE_POOLS_MAX];
};

void sysinfo_read(struct sys_info *out);

/* MemAvailable from a meminfo file, in bytes; -1 when absent. */
int meminfo_available(const char *path, uint64_t *bytes);

/* The selected word of a sysfs choice file like "always [madvise] never". */
int sysfs_selected_word(const char *path, char *buf, size_t len);

#endif
