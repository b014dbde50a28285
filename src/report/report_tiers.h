#ifndef MEMBENCH_REPORT_TIERS_H
#define MEMBENCH_REPORT_TIERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "src/report/report.h"

/* --matrix tiers: the report's runs are the memory tiers' runs (config.tier >= 0); a verdict
 * on a node of several tiers: runs[0] is the checked run, the tier runs follow it. */
bool report_is_tiers(const struct report *rep);
/* The index of the first tier run: 0 (--matrix tiers), 1 (a verdict's), n_runs (none). */
size_t report_tiers_first(const struct report *rep);

/* Each tier's run on one line with its warnings, then the table: measured, firmware, ratio. */
void report_tiers_text(FILE *out, const struct report *rep);

/* tiers {kernels, ratio_kernel, rows[], not_measured[]} */
json_t *report_tiers_json(const struct report *rep);

/* A plain run: which nodes its pages were meant for, and the nodes it did not measure
 * ("Not measured: ..."); nothing when it measured every node. */
void report_unmeasured_text(FILE *out, const struct report *rep);
/* memory.measured_nodes and memory.unmeasured_nodes for a plain run, into the memory object */
void report_unmeasured_json(json_t *memory, const struct report *rep);

#endif
