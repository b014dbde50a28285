#ifndef MEMBENCH_REPORT_PROBES_RAN_H
#define MEMBENCH_REPORT_PROBES_RAN_H

#include <stdbool.h>

#include "src/probes/probes.h"

/* Whether probe p was measured: only those have a section, a table or a JSON object. */
static inline bool ran(const struct probe_results *r, enum probe_id p)
{
    return r && (r->ran & PROBE_BIT(p));
}

#endif
