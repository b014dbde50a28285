#ifndef MEMBENCH_PLAN_MEMORY_H
#define MEMBENCH_PLAN_MEMORY_H

#include <stdbool.h>

#include "src/stream/plan.h"

/* Can the run's arrays be had: its page backing exists and can serve them (the huge page pool,
 * THP mode), and memory holds them. EXIT_OK, or EXIT_USAGE / EXIT_RESOURCE after one error
 * line whose remedy suits the acceptance profile when acceptance. */
int plan_check_backing(const struct run_config *r, const struct sys_info *sys, bool acceptance);

#endif
