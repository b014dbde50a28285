#ifndef MEMBENCH_LATENCY_MEASUREMENT_H
#define MEMBENCH_LATENCY_MEASUREMENT_H

#include "src/measure/measure.h"

/* --latency: its request is a struct latency_request (src/latency/latency.h). */
extern const struct measurement latency_measurement;

#endif
