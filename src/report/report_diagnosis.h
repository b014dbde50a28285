#ifndef MEMBENCH_REPORT_DIAGNOSIS_H
#define MEMBENCH_REPORT_DIAGNOSIS_H

/* The efficiency against the ceiling and the likely causes, in each format. */
#include <jansson.h>
#include <stdio.h>

#include "src/report/report.h"

/* "Efficiency: ..." when known, then the causes with their evidence and remedies. */
void report_diagnosis_text(FILE *out, const struct report *rep);
/* "; likely: a, b" after the quiet verdict; nothing without causes. */
void report_diagnosis_quiet(FILE *out, const struct report *rep);
/* "efficiency", "diagnosed_because" and "diagnosis" on the root object. */
void report_diagnosis_json(json_t *root, const struct report *rep);
/* membench_likely_cause, one sample per cause; nothing without causes. */
void report_diagnosis_metrics(FILE *out, const struct report *rep);

#endif
