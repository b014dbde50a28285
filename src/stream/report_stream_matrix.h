#ifndef MEMBENCH_REPORT_STREAM_MATRIX_H
#define MEMBENCH_REPORT_STREAM_MATRIX_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "src/stream/stream_result.h"

/* --matrix numa: the runs are the matrix's cells (config.numa_cell). */
bool report_stream_is_matrix(const struct stream_result *stream);

/* The cells, one line each with their warnings, then one table per kernel (not in a dry run). */
void report_stream_matrix_text(FILE *out, const struct stream_result *stream, bool dry_run);

/* The end of a cell's or a tier's line: planned, or its validation and where its pages are
 * (against: the node they were meant for), then its warnings one a line. */
void report_stream_line_end(FILE *out, const struct run_result *r, const char *against);

/* matrix {domain, nodes, rows, columns, note, kernels, cells[]} (docs/design.md). */
json_t *report_stream_matrix_json(const struct stream_result *stream);

#endif
