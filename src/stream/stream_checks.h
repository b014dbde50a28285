#ifndef MEMBENCH_STREAM_CHECKS_H
#define MEMBENCH_STREAM_CHECKS_H

#include "src/stream/stream_team.h"

/* After the timed loop: where each thread ran against the plan, whether it was bound, where
 * its pages are, and the --per-domain rates; each problem is a warning in out. */
void team_check_threads(const struct team *tm, struct run_result *out);

#endif
