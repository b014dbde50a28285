#ifndef MEMBENCH_PLAN_MEMORY_H
#define MEMBENCH_PLAN_MEMORY_H

#include <stdbool.h>

#include "src/stream/plan.h"

/* The memory and the page backing of the planned runs. */

/* Can the run's arrays be had: its page backing exists and can serve them (the huge page pool,
 * THP mode), and memory holds them. EXIT_OK, or EXIT_USAGE / EXIT_RESOURCE after one error
 * line whose remedy suits the acceptance profile when acceptance. */
int plan_check_backing(const struct run_config *r, const struct sys_info *sys, bool acceptance);

/* The pages of runs without --pages: HUGETLB_MORECORE's choice, else the default (from names
 * where it came from). Notes what the huge page variables do. EXIT_OK, or EXIT_USAGE after
 * one error line for a malformed HUGETLB_MORECORE. */
int plan_default_pages(const struct stream_options *o, const struct sys_info *sys,
                       const char **pages, const char **from);

#endif
