#include "hugepages/backend.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define THP_PMD_SIZE (2u << 20)

int smaps_scan(const char *path, uintptr_t start, uintptr_t end, struct smaps_totals *out)
{
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int inside = 0;
    while (fgets(line, sizeof(line), f)) {
        uintptr_t lo, hi;
        unsigned long long kb;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && strchr(line, ' ') &&
            strchr(line, '-') < strchr(line, ' ')) {
            inside = lo < end && hi > start;
            out->found |= inside;
            continue;
        }
        if (!inside) continue;
        if (sscanf(line, "Rss: %llu kB", &kb) == 1)
            out->rss += kb * 1024;
        else if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
            out->anon_huge += kb * 1024;
        else if (sscanf(line, "Private_Hugetlb: %llu kB", &kb) == 1 ||
                 sscanf(line, "Shared_Hugetlb: %llu kB", &kb) == 1)
            out->hugetlb += kb * 1024;
        else if (sscanf(line, "KernelPageSize: %llu kB", &kb) == 1 &&
                 kb * 1024 > out->kernel_page_size)
            out->kernel_page_size = kb * 1024;
    }
    fclose(f);
    return 0;
}

void backing_verify(const char *smaps_path, uintptr_t start, uintptr_t end, const char *how,
                    struct backing_info *info)
{
    memset(info, 0, sizeof(*info));
    snprintf(info->how, sizeof(info->how), "%s", how);
    struct smaps_totals t;
    if (smaps_scan(smaps_path, start, end, &t) != 0 || !t.found || t.kernel_page_size == 0) return;
    info->verified = true;
    info->rss_bytes = t.rss;
    info->anon_huge_bytes = t.anon_huge;
    info->hugetlb_bytes = t.hugetlb;
    uint64_t resident = t.rss + t.hugetlb;
    info->thp_fraction = t.rss ? (double)t.anon_huge / (double)t.rss : 0.0;
    if (t.hugetlb > 0 || resident == 0)
        info->page_size_bytes = t.kernel_page_size;
    else if (t.anon_huge >= t.rss)
        info->page_size_bytes = THP_PMD_SIZE;
    else
        info->page_size_bytes = t.kernel_page_size;
}
