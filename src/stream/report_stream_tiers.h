#ifndef MEMBENCH_REPORT_STREAM_TIERS_H
#define MEMBENCH_REPORT_STREAM_TIERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "src/measure/measure.h"
#include "src/stream/stream_result.h"

/* --matrix tiers: the runs are the memory tiers' runs (config.tier >= 0); a verdict on a node
 * of several tiers: runs[0] is the checked run, the tier runs follow it. */
bool report_stream_is_tiers(const struct stream_result *stream);

/* Each tier's run on one line with its warnings, then the table: measured, firmware, ratio. */
void report_stream_tiers_text(FILE *out, const struct stream_result *stream,
                              const struct measure_report_facts *f);

/* tiers {kernels, ratio_kernel, rows[], not_measured[]} */
json_t *report_stream_tiers_json(const struct stream_result *stream,
                                 const struct measure_report_facts *f);

/* A plain run: which nodes its pages were meant for, and the nodes it did not measure
 * ("Not measured: ..."); nothing when it measured every node. */
void report_stream_unmeasured_text(FILE *out, const struct stream_result *stream,
                                   const struct measure_report_facts *f);
/* memory.measured_nodes and memory.unmeasured_nodes for a plain run, into the memory object */
void report_stream_unmeasured_json(json_t *memory, const struct stream_result *stream,
                                   const struct measure_report_facts *f);

#endif
