#ifndef MEMBENCH_TLB_RESULT_H
#define MEMBENCH_TLB_RESULT_H

/* Plain result structs of the TLB probe (--tlb): run_tlb.c fills them, report_tlb.c formats
 * them. NAN or 0 where a figure could not be measured; a `why` string says why. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "affinity/page_locality.h"
#include "hugepages/backend.h"
#include "src/sys/cpuid_tlb.h"
#include "src/tlb/tlb_cost.h"
#include "src/tlb/tlb_knees.h"
#include "src/tlb/tlb_model_fit.h"
#include "src/tlb/tlb_options.h"
#include "src/tlb/tlb_reuse_fit.h"
#include "src/tlb/tlb_sets.h"

struct tlb_point {
    double pages; /* pages touched; for the control: cache lines */
    double min_ns, median_ns;
    double ns_per_access; /* the reported figure: min over the repeats */
    int samples;
    int disturbed_chunks; /* chunks > 1.5x their sample's median, over all samples */
    bool refined;         /* added around a knee */
};

struct tlb_curve {
    size_t n;
    struct tlb_point *pts; /* ascending pages */
};

#define TLB_LEVELS_MAX (KNEE_LEVELS_MAX + 1)
#define TLB_CACHE_KNEES_MAX 8

/* A data-cache knee of the control, named from the topology's caches where one fits. */
struct tlb_cache_knee {
    double last_low, first_high; /* lines */
    double step_ns;
    char label[64]; /* "L1d 48 KiB = 768 lines" or "" */
};

/* The reuse chase around one level (tlb_phase_reuse.c): the pages it spanned and its fit. */
struct tlb_reuse_level {
    bool planned;
    double pages_low, pages_high;
    struct reuse_fit fit;
};

/* One sweep: a page size, one thread. */
struct tlb_sweep {
    uint64_t page_bytes;
    struct tlb_curve main;
    struct tlb_curve control; /* lines packed into 4 KB pages (may be shared, not owned) */
    bool control_owned;
    bool analysed;
    struct knee_analysis analysis;
    /* per analysis.levels[i]: what CPUID documents, and whether the bracket agrees */
    unsigned documented[TLB_LEVELS_MAX];
    int agrees[TLB_LEVELS_MAX];         /* 1 yes, 0 no, -1 nothing documented */
    double reach_bytes[TLB_LEVELS_MAX]; /* entries x page size; NAN unknown */
    size_t n_cache_knees;
    struct tlb_cache_knee cache_knees[TLB_CACHE_KNEES_MAX];
    char note[240]; /* e.g. where the sweep stopped and why */
    /* the reuse chase (4 KB sweep only): every page visited `slots` times per traversal */
    unsigned reuse_slots; /* 0: not run */
    struct tlb_curve reuse, reuse_control;
    struct tlb_reuse_level reuse_levels[TLB_LEVELS_MAX];
    /* per analysis.levels[i]: the model fit of a base-page sweep (tlb_model_fit.h; !ok when
     * not fitted), and whether its candidate ways came from CPUID */
    struct tlb_model_fit model[TLB_LEVELS_MAX];
    bool model_ways_documented[TLB_LEVELS_MAX];
    /* the index the stride probe found for analysis.levels[i], which the model then fits
     * alone (tlb_phase_sets.c); false where it did not decide or did not run */
    bool model_index_known[TLB_LEVELS_MAX];
    enum tlb_model_index model_index[TLB_LEVELS_MAX];
};

struct tlb_thread_result {
    int thread;
    int planned_pu, pu, core; /* pu = where it ran; -1 unknown */
    bool bound, migrated;
    struct tlb_sweep small; /* the 4 KB (or --pages) sweep */
    bool differs;           /* its levels differ from its peers' */
    char why_differs[200];
    const char *differs_from; /* "documented", "threads_median"; NULL when it does not differ */
};

/* Random independent loads, one per 4 KB page of a region far beyond the TLB's reach, on every
 * thread at once: how many translations the machine completes per second. */
struct tlb_throughput {
    uint64_t page_bytes; /* backing of the region: 4 KiB or 2 MiB */
    bool measured;
    char why[200];
    uint64_t region_bytes; /* per thread */
    int threads;
    double best_accesses_per_s; /* aggregate, best of the repeats */
    double median_accesses_per_s;
    double thp_fraction;
};

/* Does the hardware translate a 2 MB page as one 2 MB translation? 512 distinct 4 KB pieces
 * of one huge page against 512 separate 4 KB pages and the control. */
struct tlb_splinter {
    bool measured;
    double at;                            /* pieces (and pages) compared */
    double huge_ns, small_ns, control_ns; /* per access at 512 */
    int verdict; /* 1 whole 2 MB translations; 0 split into 4 KB pieces; -1 unclear */
};

#define TLB_WARNINGS_MAX 8

struct tlb_result {
    bool measured; /* false under --dry-run */
    struct tlb_options opts;
    const char *pages_name; /* the backing of the main sweep: "4k", "default" ... */
    bool single_point;
    bool multi; /* --threads given: every placed thread at once */
    int threads;
    char bind[72];
    uint64_t max_pages, max_huge_pages;
    struct tlb_cost cost; /* what the plan maps and about how long it takes */
    double chunk_target_s;
    int chunks_per_sample;
    double seconds;           /* wall time of the whole probe */
    double tsc_ghz, core_ghz; /* 0 = unknown */
    double timer_call_s;
    struct backing_info backing; /* the main sweep's memory (thread 0) */
    /* the main sweep's pages (thread 0), sampled once per MiB, against the NUMA node of the PU
     * that first touched them */
    struct page_locality locality;
    struct cpuid_tlb_info cpuid;
    uint64_t l1d_bytes, l2_bytes, l3_bytes; /* of thread 0's PU, 0 unknown */
    int n_threads;
    struct tlb_thread_result *per_thread; /* [0] is the one reported as tlb.points/levels */
    int n_differ;
    char differ_note[300]; /* the outliers named with their PUs, or why none can be */
    /* huge pages: the same sweep, one access per 2 MB page (single-thread runs) */
    bool huge_measured;
    char huge_why[240];
    struct backing_info huge_backing;
    struct tlb_sweep huge;
    struct tlb_sets sets; /* the stride probe (4 KB sweep, one thread): how a level indexes */
    struct tlb_splinter splinter;
    int huge_extends_reach; /* 1 yes, 0 no, -1 unknown */
    char reach_note[512];
    struct tlb_throughput walk[2]; /* [0] 4 KB, [1] 2 MB */
    /* single point (--tlb-pages): the one point and its trials */
    uint64_t trials;              /* traversals per sample; 0 = timed in chunks */
    double sample_s, timer_share; /* single point: time of one sample, timer cost share */
    int n_warnings;
    char warnings[TLB_WARNINGS_MAX][240];
    /* interrupted (SIGINT/SIGTERM): where it stopped and what is reported, e.g. "the TLB
     * probe stopped in the 4 KB sweep at 1024 pages; reporting the 23 points measured" */
    bool stopped;
    char stopped_note[200];
    uint64_t sink_; /* the loops' folded results: used, so no access is optimised away */
};

void tlb_result_free(struct tlb_result *r);

#endif
