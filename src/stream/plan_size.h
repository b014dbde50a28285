#ifndef MEMBENCH_PLAN_SIZE_H
#define MEMBENCH_PLAN_SIZE_H

#include <stdbool.h>

#include "src/stream/plan.h"

/* Where the plan's topology comes from: its words when the LLC is unknown. */
void plan_size_topology(bool this_system);

/* A run's array elements: the index-th --size, else the STREAM rule for the LLCs its threads
 * use. An exit status, after one error line. */
int plan_resolve_size(const struct stream_options *o, size_t index, struct run_config *r);

/* Runs of one sweep compare best at one array size: the largest any of them needs. */
void plan_share_largest_rule_size(struct plan *plan);

#endif
