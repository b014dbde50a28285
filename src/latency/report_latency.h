#ifndef MEMBENCH_REPORT_LATENCY_H
#define MEMBENCH_REPORT_LATENCY_H

#include <jansson.h>
#include <stdio.h>

#include "src/latency/latency.h"

/* Writers of the --latency result: they only format it. */
void report_latency_text(FILE *out, const struct latency_result *l);
void report_latency_quiet(FILE *out, const struct latency_result *l);
void report_latency_csv(FILE *out, const struct latency_result *l);
json_t *report_latency_json(const struct latency_result *l);

/* "2 MiB", "4 KiB", "1 GiB"; "unknown" for 0. */
void report_latency_page_words(uint64_t bytes, char *buf, size_t len);

#endif
