#ifndef MEMBENCH_COMPARE_H
#define MEMBENCH_COMPARE_H

#include "src/stream/results.h"

/* Fills *out (*n_out entries): for every run whose pages differ from baseline_pages, the
 * relative change of each kernel's best rate against the run that is identical but for its
 * pages. Runs that failed (validation or page verification) are left out. Returns 0, or -1
 * when out of memory. */
int compare_pages(const struct run_result *runs, size_t n_runs, const char *baseline_pages,
                  struct page_comparison **out, size_t *n_out);

void compare_free(struct page_comparison **comparisons, size_t *n);

#endif
