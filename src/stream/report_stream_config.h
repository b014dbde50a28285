#ifndef MEMBENCH_REPORT_STREAM_CONFIG_H
#define MEMBENCH_REPORT_STREAM_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "src/stream/stream_result.h"

/* Run index's configuration in the text report ("Run 2 of 4", the STREAM header lines, the
 * threads, stores, placement, pages and memory locality). */
void report_stream_config(FILE *out, const struct stream_result *stream, size_t index);

#endif
