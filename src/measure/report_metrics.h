#ifndef MEMBENCH_REPORT_METRICS_H
#define MEMBENCH_REPORT_METRICS_H

#include <stdio.h>

/* The pieces of the OpenMetrics report (Prometheus text format 0.0.4) that the report and the
 * measurements' metrics writers share: every family a gauge, every sample labelled with the
 * node's hostname first. */

/* # HELP and # TYPE gauge of a family. */
void metrics_family(FILE *out, const char *name, const char *help);
/* NAME{hostname="..." (then the caller's labels): opens a sample; metrics_value closes it. */
void metrics_sample_begin(FILE *out, const char *hostname, const char *name);
void metrics_label(FILE *out, const char *key, const char *value);
void metrics_value(FILE *out, double v);

#endif
