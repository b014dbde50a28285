#ifndef MEMBENCH_STREAM_SWEEP_H
#define MEMBENCH_STREAM_SWEEP_H

#include "src/measure/measure.h"
#include "src/stream/plan.h"
#include "src/stream/stream_result.h"

/* Runs the plan's runs one after the other into res (res->runs holds plan->n_runs), the first
 * --reference-runs times. A run that cannot get its resources ends the sweep with its exit
 * status; res->stopped_early then says that the runs before it finished and are reported. */
int stream_sweep(const struct plan *plan, const struct measure_context *ctx,
                 struct stream_result *res);

#endif
