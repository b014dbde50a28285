#ifndef MEMBENCH_LATENCY_OPTIONS_H
#define MEMBENCH_LATENCY_OPTIONS_H

#include "src/latency/latency.h"
#include "src/measure/option_row.h"

/* --latency and its options: rows in struct latency_options (latency_measurement's .options). */
extern const struct measure_options latency_option_rows;

#endif
