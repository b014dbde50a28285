#ifndef MEMBENCH_TLB_COST_H
#define MEMBENCH_TLB_COST_H

/* What the TLB probe will map and about how long it takes, sweep by sweep, worked out from its
 * plan before anything is measured (tlb_plan.c fills it, the header of every report states it).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The default probe maps at most this share of min(MemAvailable, the memory cgroup's
 * headroom); an explicit --tlb-max-pages may go beyond it (the header then says how far). */
#define TLB_MEMORY_SHARE 0.10
/* The shortest 4 KB sweep worth running: twice the largest documented L2 TLB (4096 entries).
 * A default plan that cannot fit even this under the share is exit 3. */
#define TLB_MIN_SWEEP_PAGES 8192u

/* The time estimate's assumptions (docs/tlb.md, "Memory and time"): */
#define TLB_EST_NS_PER_ACCESS 50.0 /* an access past every TLB level: a walk that misses caches */
#define TLB_EST_SMALL_SETS 4.0     /* grid, refinement, reuse chase (about two grids) */
#define TLB_EST_HUGE_SETS 2.0      /* grid and refinement */
#define TLB_EST_HUGE_CURVES 1.5    /* the sweep; the control only at refinement points */
#define TLB_EST_OVERHEAD 2.2       /* recorded runs: 1.9-2.4x their points' sample time */
#define TLB_EST_TOUCH_BYTES_PER_S (2.0 * (1u << 30)) /* first touch (page faults, zeroing) */
#define TLB_EST_THROUGHPUT_S 0.1 /* page-walk throughput: two timed rounds of >= 50 ms */

enum tlb_cost_kind {
    TLB_COST_SMALL,
    TLB_COST_HUGE,
    TLB_COST_THROUGHPUT,
    TLB_COST_SETS, /* the stride probe */
    TLB_COST_KINDS
};

struct tlb_cost_item {
    bool planned;
    const char *source; /* where its pages come from: "4k", "thp", "hugetlb pool" ... */
    uint64_t page_bytes;
    uint64_t pages; /* the last point (the throughput phase: its pages per thread) */
    int threads;    /* how many threads map it at once */
    uint64_t bytes; /* mapped, all threads together */
    double seconds; /* estimated */
};

struct tlb_cost {
    bool known; /* filled from a plan */
    double share;
    uint64_t basis_bytes; /* min(MemAvailable, cgroup headroom); 0 = unknown */
    bool by_cgroup;       /* the basis is the cgroup's headroom */
    uint64_t bound_bytes; /* share x basis; 0 = unknown */
    bool explicit_size;   /* --tlb-max-pages or --tlb-pages: the share is not imposed */
    bool single_point;    /* --tlb-pages: the main part is one point, not a sweep */
    struct tlb_cost_item item[TLB_COST_KINDS];
    uint64_t peak_bytes; /* the most mapped at once: the 2 MB sweep, the throughput phase and
                          * the stride probe each beside the 4 KB sweep, never together */
    double seconds;
    char note[640]; /* a shortened sweep, or an explicit size beyond the share; "" none */
};

/* Bytes per page of a sweep beyond the page itself: its control's line and the reuse chase's
 * scratch entries. */
uint64_t tlb_cost_small_extra_bytes(void);

/* Estimated seconds of a sweep to max_pages (grid, refinement, reuse for a 4 KB one; huge:
 * the 2 MB sweep's grid and refinement), K samples a point, touching bytes first. */
double tlb_cost_sweep_seconds(uint64_t max_pages, unsigned repeat, bool huge, uint64_t bytes);

/* Estimated seconds of a single point: K samples of x pages, each of trials traversals, or
 * (trials 0) of timed chunks. */
double tlb_cost_point_seconds(uint64_t pages, uint64_t trials, unsigned repeat, uint64_t bytes);

/* Estimated seconds of the stride probe: K samples of TLB_SETS_CHUNKS chunks at each of its
 * points, touching bytes first. */
double tlb_cost_sets_seconds(size_t points, unsigned repeat, uint64_t bytes);

/* Sums the items into peak_bytes and seconds. */
void tlb_cost_total(struct tlb_cost *c);

/* A share of the basis as a percentage, NAN when the basis is unknown. */
double tlb_cost_percent(const struct tlb_cost *c, uint64_t bytes);

#endif
