#include "src/tlb/tlb_huge_check.h"

#include <stdio.h>

#include "kernels/tlb_probe.h"

int tlb_huge_confirmed(const struct backing_info *b, double min_fraction, char *why, size_t why_len)
{
    if (!b->verified) {
        snprintf(why, why_len, "the 2 MB pages cannot be verified (%.120s)",
                 b->mismatch[0] ? b->mismatch : "smaps is unreadable or has no entry for them");
        return -1;
    }
    if (b->hugetlb_bytes > 0 ? b->page_size_bytes >= PAGE_2M : b->thp_fraction >= min_fraction)
        return 0;
    snprintf(why, why_len,
             "only %.0f%% of the region came on 2 MB pages (memory fragmented?); echo 1 > "
             "/proc/sys/vm/compact_memory and retry",
             100.0 * b->thp_fraction);
    return -1;
}
