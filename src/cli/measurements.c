#include "src/cli/measurements.h"

#include "src/latency/latency_measurement.h"
#include "src/probes/probes_measurement.h"
#include "src/stream/stream_measurement.h"
#include "src/tlb/tlb_measurement.h"

const struct measurement_row measurement_table[] = {
    {.m = &stream_measurement},  /* the kernels */
    {.m = &probes_measurement},  /* --faults, --shootdown, --timer (run first) */
    {.m = &tlb_measurement},     /* --tlb */
    {.m = &latency_measurement}, /* --latency */
};

const size_t measurement_count = sizeof(measurement_table) / sizeof(measurement_table[0]);
