#include "src/cli/measurements.h"

#include <stddef.h>

#include "src/latency/latency_measurement.h"
#include "src/probes/probes_measurement.h"
#include "src/stream/stream_measurement.h"
#include "src/tlb/tlb_measurement.h"

static void stream_request(const struct options *o, void *request)
{
    cli_stream_request(o, request);
}

static void probes_request(const struct options *o, void *request)
{
    *(struct probe_options *)request = o->probes;
}

static void tlb_request(const struct options *o, void *request)
{
    cli_tlb_request(o, request);
}

static void latency_request(const struct options *o, void *request)
{
    cli_latency_request(o, request);
}

const struct measurement_row measurement_table[] = {
    /* the kernels */
    {.m = &stream_measurement,
     .request = stream_request,
     .options_at = offsetof(struct options, stream)},
    /* --faults, --shootdown, --timer (run first) */
    {.m = &probes_measurement,
     .request = probes_request,
     .options_at = offsetof(struct options, probes)},
    /* --tlb */
    {.m = &tlb_measurement, .request = tlb_request, .options_at = offsetof(struct options, tlb)},
    /* --latency */
    {.m = &latency_measurement,
     .request = latency_request,
     .options_at = offsetof(struct options, latency)},
};

const size_t measurement_count = sizeof(measurement_table) / sizeof(measurement_table[0]);
