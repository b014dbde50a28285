#ifndef MEMBENCH_PROBES_OPTIONS_H
#define MEMBENCH_PROBES_OPTIONS_H

#include "src/measure/option_row.h"
#include "src/probes/probes.h"

/* --faults, --shootdown, --timer and their options: rows in struct probe_options
 * (probes_measurement's .options). */
extern const struct measure_options probes_option_rows;

#endif
