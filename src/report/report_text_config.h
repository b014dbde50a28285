#ifndef MEMBENCH_REPORT_TEXT_CONFIG_H
#define MEMBENCH_REPORT_TEXT_CONFIG_H

#include <stdio.h>

#include "src/report/report.h"

/* Run index's configuration in the text report ("Run 2 of 4", the STREAM header lines, the
 * threads, stores, placement, pages and memory locality). */
void report_text_config(FILE *out, const struct report *rep, size_t index);

#endif
