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
    char thp_enabled[32];           /* the bracketed word of .../transparent_hugepage/enabled */
    uint64_t mem_available_bytes;   /* 0 when unknown */
    uint64_t cgroup_limit_bytes;    /* the memory cgroup's limit; 0 when none */
    uint64_t cgroup_headroom_bytes; /* what that limit still allows */
    int n_pools;
    struct hugepage_pool pools[HUGEPAGE_POOLS_MAX];
    uint64_t default_hugepage_bytes; /* Hugepagesize in /proc/meminfo; 0 when unknown */
    char glibc_version[16];
    char hugetlb_morecore[64];     /* $HUGETLB_MORECORE; empty when unset */
    char glibc_malloc_hugetlb[32]; /* glibc.malloc.hugetlb in $GLIBC_TUNABLES; empty if absent */
};

void sysinfo_read(struct sys_info *out);

/* This machine's name as every report gives it: the test build's name when its hook sets one,
 * bytes that are not UTF-8 written as \xNN. */
void sysinfo_hostname(char *buf, size_t len);

/* Pages in the pool of one huge page size; -1 when the kernel has no such pool. */
long long hugepage_pool_total(const struct sys_info *s, uint64_t page_size_bytes);

/* Memory the cgroup of this process still allows (limit - usage, the tightest over its
 * ancestors), cgroup v1 or v2; -1 when there is no limit or it cannot be read. */
int cgroup_memory_headroom(const char *proc_cgroup, const char *cgroup_root, uint64_t *headroom,
                           uint64_t *limit);

/* MemAvailable from a meminfo file, in bytes; -1 when absent. */
int meminfo_available(const char *path, uint64_t *bytes);

/* Any "Key:   N kB" line of a meminfo file, in bytes; -1 when absent. */
int meminfo_value(const char *path, const char *key, uint64_t *bytes);

/* The value of one tunable in a GLIBC_TUNABLES string ("a.b.c=1:d.e=2"); -1 when absent. */
int glibc_tunable(const char *tunables, const char *name, char *value, size_t len);

/* The CPU model as the OS names it (the first "model name" of a cpuinfo file, as lscpu shows
 * it), blanks squeezed; -1 when the file has none (arm64) or cannot be read. */
int cpuinfo_model_name(const char *path, char *buf, size_t len);

/* The first line of a small file (sysfs, procfs) without its newline; -1 when unreadable. */
int read_first_line(const char *path, char *buf, size_t len);

/* The selected word of a sysfs choice file like "always [madvise] never". */
int sysfs_selected_word(const char *path, char *buf, size_t len);

#endif
