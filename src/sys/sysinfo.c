#include "src/sys/sysinfo.h"

#include <dirent.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "src/sys/dimm_inventory.h"
#include "src/sys/hugetlb_pool.h"
#include "src/base/test_hooks.h"
#include "src/base/utf8_text.h"

int meminfo_value(const char *path, const char *key, uint64_t *bytes)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    size_t key_len = strlen(key);
    int rc = -1;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long kb;
        if (strncmp(line, key, key_len) == 0 && line[key_len] == ':' &&
            sscanf(line + key_len + 1, " %llu kB", &kb) == 1) {
            *bytes = (uint64_t)kb * 1024;
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

int meminfo_available(const char *path, uint64_t *bytes)
{
    if (test_hooks && test_hooks->mem_available_bytes && strcmp(path, "/proc/meminfo") == 0) {
        *bytes = test_hooks->mem_available_bytes;
        return 0;
    }
    return meminfo_value(path, "MemAvailable", bytes);
}

int glibc_tunable(const char *tunables, const char *name, char *value, size_t len)
{
    size_t name_len = strlen(name);
    for (const char *p = tunables; p && *p;) {
        size_t item = strcspn(p, ":");
        if (item > name_len && strncmp(p, name, name_len) == 0 && p[name_len] == '=') {
            snprintf(value, len, "%.*s", (int)(item - name_len - 1), p + name_len + 1);
            return 0;
        }
        p += item + (p[item] == ':');
    }
    return -1;
}

int read_first_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *ok = fgets(buf, (int)len, f);
    fclose(f);
    if (!ok) return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

int cpuinfo_model_name(const char *path, char *buf, size_t len)
{
    struct cpu_identity cpu;
    cpu_identity_read(path, &cpu);
    if (!cpu.model_name[0]) return -1;
    snprintf(buf, len, "%s", cpu.model_name);
    return 0;
}

int sysfs_selected_word(const char *path, char *buf, size_t len)
{
    char line[256];
    if (read_first_line(path, line, sizeof(line)) != 0) return -1;
    char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
    if (!open || !close) return -1;
    snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
    return 0;
}

static void read_pools(struct sys_info *s)
{
    const char *root = "/sys/kernel/mm/hugepages";
    DIR *d = opendir(root);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && s->n_pools < HUGEPAGE_POOLS_MAX) {
        unsigned long long kb;
        if (sscanf(e->d_name, "hugepages-%llukB", &kb) != 1) continue;
        struct hugetlb_pool pool;
        if (hugetlb_pool_read("/sys", (uint64_t)kb * 1024, &pool) != 0) continue;
        s->pools[s->n_pools++] = (struct hugepage_pool){pool.page_bytes, pool.total, pool.free,
                                                        pool.reserved, pool.surplus};
    }
    closedir(d);
    for (int i = 1; i < s->n_pools; i++) /* ascending page size, for stable output */
        for (int j = i; j > 0 && s->pools[j].page_size_bytes < s->pools[j - 1].page_size_bytes;
             j--) {
            struct hugepage_pool t = s->pools[j];
            s->pools[j] = s->pools[j - 1];
            s->pools[j - 1] = t;
        }
}

long long hugepage_pool_total(const struct sys_info *s, uint64_t page_size_bytes)
{
    for (int i = 0; i < s->n_pools; i++)
        if (s->pools[i].page_size_bytes == page_size_bytes) return (long long)s->pools[i].total;
    return -1;
}

void sysinfo_hostname(char *buf, size_t len)
{
    if (test_hooks && test_hooks->hostname)
        snprintf(buf, len, "%s", test_hooks->hostname);
    else if (gethostname(buf, len - 1) != 0)
        snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
    utf8_escape_invalid(buf, len); /* else JSON cannot carry it */
}

void sysinfo_read(struct sys_info *s)
{
    memset(s, 0, sizeof(*s));
    sysinfo_hostname(s->hostname, sizeof(s->hostname));
    struct utsname u;
    snprintf(s->kernel, sizeof(s->kernel), "%s", uname(&u) == 0 ? u.release : "unknown");
    if (sysfs_selected_word("/sys/kernel/mm/transparent_hugepage/enabled", s->thp_enabled,
                            sizeof(s->thp_enabled)) != 0)
        snprintf(s->thp_enabled, sizeof(s->thp_enabled), "unknown");
    if (meminfo_available("/proc/meminfo", &s->mem_available_bytes) != 0)
        s->mem_available_bytes = 0;
    if (cgroup_memory_headroom("/proc/self/cgroup", "/sys/fs/cgroup", &s->cgroup_headroom_bytes,
                               &s->cgroup_limit_bytes) != 0)
        s->cgroup_limit_bytes = s->cgroup_headroom_bytes = 0;
    read_pools(s);
    if (meminfo_value("/proc/meminfo", "Hugepagesize", &s->default_hugepage_bytes) != 0)
        s->default_hugepage_bytes = 0;
    snprintf(s->glibc_version, sizeof(s->glibc_version), "%s", gnu_get_libc_version());
    const char *morecore = getenv("HUGETLB_MORECORE");
    snprintf(s->hugetlb_morecore, sizeof(s->hugetlb_morecore), "%s", morecore ? morecore : "");
    if (glibc_tunable(getenv("GLIBC_TUNABLES"), "glibc.malloc.hugetlb", s->glibc_malloc_hugetlb,
                      sizeof(s->glibc_malloc_hugetlb)) != 0)
        s->glibc_malloc_hugetlb[0] = '\0';
}
