#ifndef MEMBENCH_REPORT_MATRIX_H
#define MEMBENCH_REPORT_MATRIX_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "src/report/report.h"

/* --matrix numa: the report's runs are the matrix's cells (config.numa_cell). */
bool report_is_matrix(const struct report *rep);

/* The cells, one line each with their warnings, then one table per kernel. */
void report_matrix_text(FILE *out, const struct report *rep);

/* matrix {domain, nodes, rows, columns, note, kernels, cells[]} (docs/design.md). */
json_t *report_matrix_json(const struct report *rep);

#endif
