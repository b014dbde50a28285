#include "src/tlb/tlb_huge_check.h"

#include <stdio.h>

#include "kernels/tlb_probe.h"

int tlb_huge_confirmed(const struct backing_info *b, double min_fraction, char *why, size_t why_len)
{
    char huge[PAGE_TEXT_LEN];
    page_size_text(page_pmd_bytes(), huge);
    if (!b->verified) {
        snprintf(why, why_len, "the %s pages cannot be verified (%.120s)", huge,
                 b->mismatch[0] ? b->mismatch : "smaps is unreadable or has no entry for them");
        return -1;
    }
    if (b->hugetlb_bytes > 0 ? b->page_size_bytes >= page_pmd_bytes()
                             : b->thp_fraction >= min_fraction)
        return 0;
    snprintf(why, why_len,
             "only %.0f%% of the region came on %s pages (memory fragmented?); echo 1 > "
             "/proc/sys/vm/compact_memory and retry",
             100.0 * b->thp_fraction, huge);
    return -1;
}
