#ifndef MEMBENCH_PROBES_MEASUREMENT_H
#define MEMBENCH_PROBES_MEASUREMENT_H

#include "src/measure/measure.h"

/* --faults, --shootdown, --timer: their request is a struct probe_options
 * (src/probes/probes.h). */
extern const struct measurement probes_measurement;

#endif
