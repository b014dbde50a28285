#ifndef MEMBENCH_PLAN_TIERS_H
#define MEMBENCH_PLAN_TIERS_H

#include "affinity/topology.h"
#include "src/stream/plan.h"

/* --matrix tiers: one run per memory tier that cores usable here are nearest to. Every core
 * of the tier's nodes' nearest CPUs runs a thread (one per core, compact), and each thread's
 * share of the arrays is bound to the tier's node nearest its PU (thread_node[], OS numbers;
 * where several are as near, the one with fewest threads so far). */

/* The tiers that can be measured here, and how many. */
int plan_tiers_measurable(const struct topology *topo, bool measurable[MEM_TIERS_MAX]);

/* The tier runs a verdict adds after its one run: on a node of more than one measurable tier
 * (this machine's, or any under --dry-run), every measurable tier, the local one included, so
 * that every tier's rates come from the same kind of run; else 0. */
size_t plan_verdict_tier_count(const struct stream_request *req, const struct topology *topo);

/* Places the threads of tier t's run. An exit status, after one error line. */
int plan_tier_place(const struct topology *topo, int t, struct run_config *r);

/* Whether each node's share of a tier run's arrays fits in its free memory (this machine's
 * /sys/devices/system/node/nodeN/meminfo). An exit status, after one error line. */
int plan_tier_check_memory(const struct topology *topo, const struct run_config *r);

#endif
