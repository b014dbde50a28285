#ifndef MEMBENCH_STREAM_SWEEP_H
#define MEMBENCH_STREAM_SWEEP_H

#include <stdbool.h>

#include "src/cli/cli.h"
#include "src/report/report.h"

/* Whether the text report (on stdout) shows the warnings: else they go to stderr. */
bool report_shows_warnings(const struct options *opts);

/* Runs the STREAM plan into rep->runs (rep->n_runs: those that finished). A run that cannot
 * get its resources ends the sweep with its exit status; *stopped_early then says that the
 * runs before it finished and are to be reported. --save-reference --reference-runs K fills
 * k and points rep->saved_runs at it. */
int stream_sweep(const struct options *opts, const struct plan *plan, const struct topology *topo,
                 struct report *rep, bool *stopped_early, struct reference_runs *k);

#endif
