#ifndef MEMBENCH_STREAM_RESULT_H
#define MEMBENCH_STREAM_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "src/stream/reference_runs.h"
#include "src/stream/results.h"

/* What the STREAM sweep measured: its runs that finished, the page comparisons between them
 * and, with --reference-runs K, the K runs behind a saved reference. */
struct stream_result {
    size_t n_runs; /* those that finished (in a dry run: those described) */
    struct run_result *runs;
    size_t n_comparisons;
    struct page_comparison *comparisons;
    /* --reference-runs K > 1: the K runs' best rates, medians and spreads (runs[0] is the last
     * of them); NULL otherwise */
    const struct reference_runs *saved_runs;
    struct reference_runs reference; /* what saved_runs points at */
    /* --reference-runs K interrupted after this many of the K finished (runs[0] is the last of
     * them); 0 otherwise */
    unsigned reference_runs_finished;
    /* a run after the first could not get its resources: the runs before it are the report */
    bool stopped_early;
};

/* The index of the first memory tier's run (config.tier >= 0): 0 (--matrix tiers), 1 (a
 * verdict's tier runs after the checked run), n_runs (none). */
static inline size_t stream_first_tier_run(const struct stream_result *s)
{
    size_t i = 0;
    while (i < s->n_runs && s->runs[i].config.tier < 0)
        i++;
    return i;
}

#endif
