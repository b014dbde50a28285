#ifndef MEMBENCH_TLB_MODEL_FIT_H
#define MEMBENCH_TLB_MODEL_FIT_H

/* Sizing a TLB level from a model of how it is built: a pure function of the cyclic sweep's
 * translation cost (sweep minus control, tlb_knees.h).
 *
 * A set-associative level of E entries and W ways has E / W sets. The sweep visits N pages
 * (contiguous page numbers, visited in one random cycle) once per traversal, so every set
 * sees its own pages in a fixed cyclic order, and under LRU a set holding more pages than ways
 * misses on every access to it while the others always hit. The miss fraction m(N) is the
 * share of pages that land in overfull sets:
 *  - hashed index (the set a hash of the page number): each page's set holds it and a
 *    Binomial(N - 1, W / E) number of others, so m(N) = P(Binomial(N - 1, W / E) >= W); misses
 *    begin well before E and are half-way near E;
 *  - direct index (the low page-number bits): contiguous pages fill the sets evenly, so
 *    m(N) = 0 up to E, then (N - E)(W + 1) / N, and 1 from E (W + 1) / W;
 *  - fully associative: 0 up to E, 1 past it.
 * The translation cost is base + walk x m(N), the walk the step just past the level. A walk
 * costs more as the pages grow (page-table entries leave the data caches); that later climb is
 * no part of the level, so the walk is held constant over the level's own rise and may only
 * grow past its end (m >= TLB_MODEL_END), linearly in the pages, never below its step.
 *
 * The fit: least squares in base, walk and that growth at every candidate E TLB_MODEL_STEP
 * apart on a window around where the misses begin, for every index kind and every candidate
 * associativity (the documented one where CPUID gives it); the smallest residual wins. The
 * range where the curve does not decide: every E of the winning model whose residual lies
 * within the noise of the best, RSS(E) <= RSS_best (1 + 4 / (n - 3)), about two standard
 * errors.
 *
 * Where the stride probe (tlb_sets.h) has told how the level picks its set, only that index is
 * fitted: the low page-number bits, the direct model; no low-bit conflicts at any stride, the
 * hashed model, with the default ways (its ways then describe how evenly the hash spreads the
 * sweep's pages under LRU, which CPUID's associativity does not: docs/tlb.md) and never fully
 * associative. The cyclic sweep alone cannot tell the two apart near the onset. */

#include <stdbool.h>
#include <stddef.h>

#define TLB_MODEL_WAYS_MAX 12
#define TLB_MODEL_END 0.95
#define TLB_MODEL_STEP 1.005
/* the window, in the onset's pages */
#define TLB_MODEL_FROM 0.5
#define TLB_MODEL_TO 1.5
#define TLB_MODEL_TO_MAX 2.5

enum tlb_model_index { TLB_INDEX_HASHED, TLB_INDEX_DIRECT, TLB_INDEX_FULL };

struct tlb_model_input {
    const double *pages, *translation_ns; /* ascending pages; NAN where unknown */
    size_t n;
    double onset_pages;    /* where the sweep's misses begin: centres the window */
    double rise_end_pages; /* where the sweep's rise reaches 90% (NAN unknown): the window
                              reaches it, up to TLB_MODEL_TO_MAX x the onset */
    double min_walk_ns;    /* the walk step is at least this (0: any) */
    /* candidate ways (0 = fully associative); n_ways 0: the default set */
    unsigned ways[TLB_MODEL_WAYS_MAX];
    size_t n_ways;
    bool index_known; /* the stride probe told the index: fit `index` only */
    enum tlb_model_index index;
};

struct tlb_model_fit {
    bool ok;
    char why[160]; /* !ok: why the curve gives no size */
    enum tlb_model_index index;
    unsigned ways;                    /* 0: fully associative */
    double sets;                      /* entries / ways; 1 when fully associative */
    double entries;                   /* E of the best model */
    double entries_low, entries_high; /* the range where the curve does not decide */
    double base_ns, walk_ns;          /* translation with every page held; the step past it */
    double walk_growth_ns;            /* added per E pages past the level's end */
    double rms_ns;
    size_t points;
    double window_low, window_high; /* pages */
};

/* The model's miss fraction at `pages` for a level of `entries` and `ways`. */
double tlb_model_miss_fraction(double pages, double entries, unsigned ways,
                               enum tlb_model_index index);

void tlb_model_fit_run(const struct tlb_model_input *in, struct tlb_model_fit *out);

/* "hashed", "direct", "fully associative" */
const char *tlb_model_index_name(enum tlb_model_index index);

#endif
