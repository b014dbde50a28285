#ifndef MEMBENCH_STREAM_MEASUREMENT_H
#define MEMBENCH_STREAM_MEASUREMENT_H

#include "src/measure/measure.h"

/* The STREAM runs: their request is a struct stream_request, their plan a struct plan
 * (src/stream/plan.h). They are the report's core: src/node runs the sweep (its
 * --reference-runs repeats feed src/verdict) and src/report writes it. */
extern const struct measurement stream_measurement;

#endif
