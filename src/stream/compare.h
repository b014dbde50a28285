#ifndef MEMBENCH_COMPARE_H
#define MEMBENCH_COMPARE_H

#include "src/stream/results.h"

/* Fills rep->comparisons: for every run whose pages differ from baseline_pages, the relative
 * change of each kernel's best rate against the run that is identical but for its pages.
 * Runs that failed (validation or page verification) are left out. Returns 0, or -1 when out
 * of memory. */
int compare_pages(struct report *rep, const char *baseline_pages);

void compare_free(struct report *rep);

#endif
