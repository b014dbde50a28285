#ifndef MEMBENCH_REPORT_STREAM_H
#define MEMBENCH_REPORT_STREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "src/measure/measure.h"
#include "src/stream/stream_result.h"

/* STREAM's writers: they only format its runs (and the NUMA matrix or memory tiers they form,
 * and the page comparisons between them). */

/* Each run's configuration and rates, or the matrix or the tiers; the page comparisons. */
void report_stream_text(FILE *out, const struct stream_result *stream,
                        const struct measure_report_facts *f);
/* The text report's tail: the summary of several runs, the NUMA nodes a plain run did not
 * measure. */
void report_stream_summary(FILE *out, const struct stream_result *stream,
                           const struct measure_report_facts *f);
/* One line per run. */
void report_stream_quiet(FILE *out, const struct stream_result *stream);
/* One row per run and kernel, after the header; false (nothing written) without runs. */
bool report_stream_csv(FILE *out, const struct stream_result *stream,
                       const struct measure_report_facts *f);
/* runs, matrix, tiers and comparisons into root, and memory.measured_nodes and
 * memory.unmeasured_nodes into root's memory object when it has one. */
void report_stream_json(json_t *root, const struct stream_result *stream,
                        const struct measure_report_facts *f);
/* The membench_stream_* families: one sample per measured run (and kernel). */
void report_stream_metrics(FILE *out, const struct stream_result *stream,
                           const struct measure_report_facts *f);

#endif
