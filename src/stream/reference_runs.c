/* --reference-runs K: the K runs' best rates, their medians and spreads. */
#include "src/stream/reference_runs.h"

#include <string.h>

#include "src/base/stats.h"
#include "src/stream/results.h"

void reference_runs_add(struct reference_runs *r, const struct run_result *run)
{
    if (r->runs == REFERENCE_RUNS_MAX) return;
    for (int i = 0; i < run->n_results; i++)
        r->best_mbps[run->results[i].kernel][r->runs] = run->results[i].best_rate_mbps;
    r->runs++;
}

void reference_runs_finish(struct reference_runs *r)
{
    for (int k = 0; k < KERNEL_COUNT && r->runs > 0; k++) {
        double v[REFERENCE_RUNS_MAX];
        memcpy(v, r->best_mbps[k], sizeof(v[0]) * (size_t)r->runs);
        r->median_mbps[k] = median_sorting(v, (size_t)r->runs);
        double hi = v[r->runs - 1], lo = v[0]; /* sorted */
        r->spread[k] = hi > 0.0 ? (hi - lo) / hi : 0.0;
    }
}
