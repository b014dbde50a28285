#include "src/base/page_sizes.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HUGE_SIZES_MAX 16

static uint64_t injected_base;
static const char *sys_root = "/sys";
static const char *meminfo_path = "/proc/meminfo";

/* Read once and kept; the OpenMP team reads them too, hence the atomics. */
static uint64_t base_cached, pmd_cached, default_cached;

static const char *size_words(uint64_t bytes, char buf[PAGE_TEXT_LEN], const char *const units[3])
{
    for (int i = 0; i < 3; i++) {
        uint64_t unit = 1ull << (10 * (3 - i));
        if (bytes && bytes % unit == 0) {
            snprintf(buf, PAGE_TEXT_LEN, "%" PRIu64 " %s", bytes / unit, units[i]);
            return buf;
        }
    }
    snprintf(buf, PAGE_TEXT_LEN, "%" PRIu64 " B", bytes);
    return buf;
}

const char *page_size_text(uint64_t bytes, char buf[PAGE_TEXT_LEN])
{
    static const char *const units[] = {"GB", "MB", "KB"};
    return size_words(bytes, buf, units);
}

const char *page_size_iec(uint64_t bytes, char buf[PAGE_TEXT_LEN])
{
    static const char *const units[] = {"GiB", "MiB", "KiB"};
    return size_words(bytes, buf, units);
}

static uint64_t cached(uint64_t *slot, uint64_t (*read)(void))
{
    uint64_t v = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (!v) {
        v = read();
        __atomic_store_n(slot, v, __ATOMIC_RELAXED);
    }
    return v;
}

static uint64_t read_base(void)
{
    if (injected_base) return injected_base;
    long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? (uint64_t)v : PAGE_4K;
}

uint64_t page_base_bytes(void)
{
    return cached(&base_cached, read_base);
}

uint64_t page_kernel_bytes(void)
{
    long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? (uint64_t)v : PAGE_4K;
}

static uint64_t read_pmd(void)
{
    char path[512];
    unsigned long long v = 0;
    snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/hpage_pmd_size", sys_root);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", &v) != 1) v = 0;
        fclose(f);
    }
    if (v && (v & (v - 1)) == 0) return v;
    uint64_t base = page_base_bytes();
    return base * (base / 8);
}

uint64_t page_pmd_bytes(void)
{
    return cached(&pmd_cached, read_pmd);
}

static uint64_t read_default(void)
{
    char line[256];
    unsigned long long kb = 0;
    FILE *f = fopen(meminfo_path, "r");
    if (f) {
        while (fgets(line, sizeof(line), f))
            if (sscanf(line, "Hugepagesize: %llu kB", &kb) == 1) break;
        fclose(f);
    }
    return kb ? (uint64_t)kb << 10 : page_pmd_bytes();
}

uint64_t page_huge_default_bytes(void)
{
    return cached(&default_cached, read_default);
}

static int ascending(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t page_huge_sizes(const char *root, uint64_t *sizes, size_t max)
{
    char path[512];
    uint64_t found[HUGE_SIZES_MAX];
    size_t n = 0;
    snprintf(path, sizeof(path), "%s/kernel/mm/hugepages", root ? root : sys_root);
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        unsigned long long kb;
        char tail;
        while ((e = readdir(d)) && n < HUGE_SIZES_MAX)
            if (sscanf(e->d_name, "hugepages-%llukB%c", &kb, &tail) == 1 && kb)
                found[n++] = (uint64_t)kb << 10;
        closedir(d);
    }
    qsort(found, n, sizeof(found[0]), ascending);
    for (size_t i = 0; i < n && i < max; i++)
        sizes[i] = found[i];
    return n;
}

bool page_huge_size_offered(const char *root, uint64_t bytes)
{
    uint64_t sizes[HUGE_SIZES_MAX];
    size_t n = page_huge_sizes(root, sizes, HUGE_SIZES_MAX);
    for (size_t i = 0; i < n; i++)
        if (sizes[i] == bytes) return true;
    return false;
}

void page_huge_sizes_text(const char *root, char *buf, size_t len)
{
    uint64_t sizes[HUGE_SIZES_MAX];
    size_t n = page_huge_sizes(root, sizes, HUGE_SIZES_MAX), used = 0;
    snprintf(buf, len, "none");
    for (size_t i = 0; i < n && used < len; i++) {
        char one[PAGE_TEXT_LEN];
        int w =
            snprintf(buf + used, len - used, "%s%s", i ? ", " : "", page_size_text(sizes[i], one));
        if (w < 0) break;
        used += (size_t)w;
    }
}

void page_sizes_inject(uint64_t base_bytes, const char *root, const char *meminfo)
{
    injected_base = base_bytes;
    sys_root = root ? root : "/sys";
    meminfo_path = meminfo ? meminfo : "/proc/meminfo";
    __atomic_store_n(&base_cached, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&pmd_cached, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&default_cached, 0, __ATOMIC_RELAXED);
}
