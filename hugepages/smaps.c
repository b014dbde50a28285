#include "hugepages/backend.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
        else if (sscanf(line, "KernelPageSize: %llu kB", &kb) == 1) {
            if (kb * 1024 > out->kernel_page_size) out->kernel_page_size = kb * 1024;
            if (out->kernel_page_size_min == 0 || kb * 1024 < out->kernel_page_size_min)
                out->kernel_page_size_min = kb * 1024;
        }
    }
    fclose(f);
    return 0;
}
