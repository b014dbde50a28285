#ifndef MEMBENCH_PLAN_MEMORY_H
#define MEMBENCH_PLAN_MEMORY_H

#include <stdbool.h>

#include "src/stream/plan.h"

/* The memory and the page backing of the planned runs. */

/* Fills the run's byte counts (array_bytes, total_bytes, stride_bytes, region_bytes) from its
 * elements, type and offset. Returns 0, -1 when a count would not fit in 64 bits. */
int plan_lay_out(struct run_config *r);

/* Whether the run's arrays fit the memory budget and, on hugetlb pages, their pool; false with
 * what stops them in why ("only 20.6 GiB may be used (...)"). */
bool plan_backing_serves(const struct run_config *r, const struct sys_info *sys, char *why,
                         size_t why_len);

/* Can the run's arrays be had: its page backing exists and can serve them (the huge page pool,
 * THP mode), and memory holds them. EXIT_OK, or EXIT_USAGE / EXIT_RESOURCE after one error
 * line whose remedy suits the acceptance profile when acceptance. */
int plan_check_backing(const struct run_config *r, const struct sys_info *sys, bool acceptance);

/* The pages of runs without --pages: HUGETLB_MORECORE's choice, else the default (from names
 * where it came from). Notes what the huge page variables do. EXIT_OK, or EXIT_USAGE after
 * one error line for a malformed HUGETLB_MORECORE. */
int plan_default_pages(const struct shared_options *o, const struct sys_info *sys,
                       const char **pages, const char **from);

#endif
