#ifndef MEMBENCH_STREAM_OPTIONS_H
#define MEMBENCH_STREAM_OPTIONS_H

#include "src/measure/option_row.h"
#include "src/stream/plan.h"

/* The STREAM runs' options: rows in struct stream_options (stream_measurement's .options). */
extern const struct measure_options stream_option_rows;

/* --isa, or MEMBENCH_ISA (source names which): 0, or 1 after a usage error. */
int stream_force_isa(struct stream_options *s, const char *source, const char *arg);

#endif
