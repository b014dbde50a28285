#ifndef MEMBENCH_REFERENCE_MEMORY_H
#define MEMBENCH_REFERENCE_MEMORY_H

#include <jansson.h>
#include <stddef.h>

#include "src/verdict/acceptance.h"

/* "memory": {"nodes": [{os_index, kind, bytes, tier}], "tiers": [{name, kind, nodes}]}: the
 * node's memory inventory, every NUMA node by the OS's number. */
json_t *reference_memory_json(const struct node_memory *m);

/* Reads it into r (absent: r->present false, an older reference). Returns 0, or -1 with a
 * reason. */
int reference_memory_read(json_t *mem, struct reference_memory *r, char *why, size_t why_len);

/* "tier_rates": {"hbm": {"nodes": "4-7", "rates_mbps": {...}}}, optional: each tier's rates
 * into e's tier expectations. Returns 0, or -1 with a reason. */
int reference_tier_rates_read(json_t *tiers, struct expectations *e, char *why, size_t why_len);

/* The same from the verdict's tier runs (node->tier_runs, each run's best rates; a run of a
 * tier the nodes of its threads' arrays); NULL when there are none. */
json_t *reference_tier_rates_json(const struct node_facts *node);

#endif
