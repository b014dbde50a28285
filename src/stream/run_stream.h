#ifndef MEMBENCH_RUN_STREAM_H
#define MEMBENCH_RUN_STREAM_H

#include "src/base/clock.h"
#include "src/stream/results.h"

/* Allocates, first-touches, times and validates one run. Returns an exit status (EXIT_OK even
 * when validation fails: that is in out->validation) after a one-line error otherwise. */
int run_stream(const struct run_config *cfg, const struct topology *topo,
               const struct timer_info *timer, struct run_result *out);

/* Fills the parts of a result that are known before measuring: byte counts and the planned
 * placement (all of --dry-run). */
void run_describe(const struct run_config *cfg, const struct topology *topo,
                  struct run_result *out);

#endif
