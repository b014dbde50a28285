#ifndef MEMBENCH_STREAM_MEASUREMENT_H
#define MEMBENCH_STREAM_MEASUREMENT_H

#include "src/measure/measure.h"

/* The STREAM runs: their request is a struct stream_request, their plan a struct plan
 * (src/stream/plan.h), their result a struct stream_result (src/stream/stream_result.h), which
 * the report writes and the verdict judges (its --reference-runs repeats feed a saved
 * reference). */
extern const struct measurement stream_measurement;

#endif
