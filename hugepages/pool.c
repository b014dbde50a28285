#include "hugepages/pool.h"

#include <stdio.h>
#include <string.h>

#include "src/sys/sysinfo.h"

/* "2 MiB" for people, "2MB" for hugeadm. */
static void size_words(uint64_t bytes, char *human, size_t hlen, char *hugeadm, size_t alen)
{
    unsigned long long kb = bytes / 1024;
    if (kb % (1024 * 1024) == 0) {
        snprintf(human, hlen, "%llu GiB", kb / (1024 * 1024));
        snprintf(hugeadm, alen, "%lluGB", kb / (1024 * 1024));
    } else if (kb % 1024 == 0) {
        snprintf(human, hlen, "%llu MiB", kb / 1024);
        snprintf(hugeadm, alen, "%lluMB", kb / 1024);
    } else {
        snprintf(human, hlen, "%llu KiB", kb);
        snprintf(hugeadm, alen, "%llukB", kb);
    }
}

int hugetlb_pool_check(const struct mem_env *env, uint64_t page_bytes, size_t bytes, char *why,
                       size_t why_len)
{
    char human[32], hugeadm[32];
    size_words(page_bytes, human, sizeof(human), hugeadm, sizeof(hugeadm));
    struct hugetlb_pool p;
    if (hugetlb_pool_read(env->sys_root, page_bytes, &p) != 0) {
        char offered[160];
        page_huge_sizes_text(env->sys_root, offered, sizeof(offered));
        snprintf(why, why_len,
                 "this kernel has no %s hugetlb pool (no %s/free_hugepages; the hugetlb sizes "
                 "here: %s)%s",
                 human, p.dir, offered,
                 page_bytes >= PAGE_1G ? "; the CPU needs 1 GiB page support (pdpe1gb) and the "
                                         "kernel hugetlbfs; use --pages 2m"
                                       : "; the kernel needs hugetlbfs (CONFIG_HUGETLBFS); use "
                                         "--pages thp");
        return -1;
    }
    uint64_t needed = (bytes + page_bytes - 1) / page_bytes;
    uint64_t available = hugetlb_pool_available(&p);
    if (needed <= available) return 0;

    unsigned long long target = (unsigned long long)(p.total + needed - available);
    char overcommit[64] = "";
    if (p.overcommit > 0)
        snprintf(overcommit, sizeof(overcommit), ", overcommit %llu - surplus %llu",
                 (unsigned long long)p.overcommit, (unsigned long long)p.surplus);
    /* one wording whatever the counts: tests and scripts match the class, not a plural */
    int n = snprintf(why, why_len,
                     "the %s hugetlb pool has too few free pages: %llu needed, %llu available "
                     "(free_hugepages %llu - resv_hugepages %llu%s in %s); ",
                     human, (unsigned long long)needed, (unsigned long long)available,
                     (unsigned long long)p.free, (unsigned long long)p.reserved, overcommit, p.dir);
    if (n < 0 || (size_t)n >= why_len) return -1;
    uint64_t default_bytes = 0;
    if (meminfo_value(env->meminfo, "Hugepagesize", &default_bytes) != 0) default_bytes = 0;
    if (page_bytes >= PAGE_1G)
        snprintf(why + n, why_len - (size_t)n,
                 "reserve them at boot with the kernel parameters `default_hugepagesz=1G "
                 "hugepagesz=1G hugepages=%llu` (or try `echo %llu > %s/nr_hugepages` as root)",
                 target, target, p.dir);
    else if (page_bytes == default_bytes)
        snprintf(why + n, why_len - (size_t)n,
                 "reserve them as root with `echo %llu > /proc/sys/vm/nr_hugepages` or "
                 "`hugeadm --pool-pages-min %s:%llu`",
                 target, hugeadm, target);
    else
        snprintf(why + n, why_len - (size_t)n,
                 "reserve them as root with `echo %llu > %s/nr_hugepages` or "
                 "`hugeadm --pool-pages-min %s:%llu`",
                 target, p.dir, hugeadm, target);
    return -1;
}

int thp_mode_check(const struct mem_env *env, char *why, size_t why_len)
{
    char path[300], mode[32];
    snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled", env->sys_root);
    if (sysfs_selected_word(path, mode, sizeof(mode)) != 0) {
        snprintf(why, why_len,
                 "this kernel offers no transparent huge pages (no %s); use --pages 2m", path);
        return -1;
    }
    if (strcmp(mode, "never") != 0) return 0;
    snprintf(why, why_len,
             "transparent huge pages are disabled ('never' in %s); enable them as root with "
             "`echo madvise > %s` or use --pages 2m",
             path, path);
    return -1;
}
