#ifndef MEMBENCH_TLB_HUGE_CHECK_H
#define MEMBENCH_TLB_HUGE_CHECK_H

#include <stddef.h>

#include "hugepages/backend.h"

/* Whether a region the TLB probe asked to have on 2 MB pages is on them as smaps shows: hugetlb
 * pages, or at least min_fraction of it on transparent huge pages. Returns 0, or -1 with why
 * (smaps unreadable or not as asked, too little on 2 MB pages): no 2 MB result may then be
 * reported, since nothing shows it was measured on 2 MB pages. */
int tlb_huge_confirmed(const struct backing_info *b, double min_fraction, char *why,
                       size_t why_len);

#endif
