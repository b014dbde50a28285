#ifndef MEMBENCH_TLB_SETS_H
#define MEMBENCH_TLB_SETS_H

/* The stride probe: how a TLB level picks its set, and from that its size, by an experiment
 * rather than from the shape of the cyclic sweep's rise (Saavedra-Barrera's stride method
 * applied to pages).
 *
 * N pages `stride` base pages apart, visited in one random cycle. A level of E entries in S
 * sets of W ways indexed by the low page-number bits (S a power of two) gives pages that are a
 * power-of-two stride s <= S apart only S / s of its sets, so it holds W S / s = E / s of them:
 * N pages miss from the stride on where E / s < N, and at a stride s that holds them the
 * capacity E / s is where the misses begin as N grows, sharply (every set fills at once). Two
 * strides a factor 2 apart give E twice; they agree when the index is the low bits. A level
 * whose set is a hash of the page number spreads strided pages over all its sets: no stride
 * makes N pages miss, or the capacities do not scale as 1 / stride. That says the index is not
 * the low bits, and the size is then read from the sweep (tlb_model_fit.h).
 *
 * N is several times the first level's entries, so the first level misses at every stride
 * and the step seen is the next level's. Pure functions; tlb_phase_sets.c measures. */

#include <stdbool.h>
#include <stddef.h>

#define TLB_SETS_STRIDES_MAX 12  /* room for strides 1, 2, 4 ... 2048 base pages */
#define TLB_SETS_STRIDE_MAX 256u /* the largest stride run: sizes up to 256 N are found */
#define TLB_SETS_CHUNKS 8        /* timed chunks per sample: 4 ms */
#define TLB_SETS_PLAN_L1 128.0   /* the plan's L1 DTLB before one is measured (x86: 64-96) */
#define TLB_SETS_SCAN_MAX 64
#define TLB_SETS_AGREE 0.06      /* two strides' sizes within this of their mean: low-bit index */
#define TLB_SETS_ONSET 0.15      /* a stride makes the pages miss past this share of the step */
#define TLB_SETS_RISE 0.05       /* a scan's misses begin past this share of the step */
#define TLB_SETS_MIN_STEP_NS 3.0 /* the least step that counts as a miss */

enum tlb_sets_index { TLB_SETS_UNDECIDED, TLB_SETS_LOW_BITS, TLB_SETS_NOT_LOW_BITS };

/* N pages at one stride, as N grows: where the misses begin. */
struct tlb_sets_scan {
    unsigned stride;
    size_t n;
    double pages[TLB_SETS_SCAN_MAX], ns[TLB_SETS_SCAN_MAX];
    double capacity; /* pages held at this stride (onset); NAN none found */
    double entries;  /* capacity x stride */
};

struct tlb_sets {
    bool run;
    char why[240]; /* not run, or why it decides nothing */
    double pages;  /* N of the stride test */
    size_t n_strides;
    unsigned stride[TLB_SETS_STRIDES_MAX];
    double ns[TLB_SETS_STRIDES_MAX]; /* per access, N pages at each stride */
    double base_ns, full_ns;         /* no miss (stride 1); every page missing */
    unsigned conflict_stride;        /* the first stride where N pages miss; 0 none */
    struct tlb_sets_scan scan[2];    /* at the conflict stride and half of it */
    enum tlb_sets_index index;
    double entries;   /* low-bit index: the two scans' mean; NAN otherwise */
    int level;        /* the sweep's level it sized (low bits), or the one the model sized
                         told a hashed index (tlb_model_apply_hashed); -1 none */
    double level_was; /* that level's size from the sweep before */
    int threads;      /* the threads whose sweeps took its index: thread 0 and those on its
                         kind of core (a hybrid CPU's kinds have TLBs of their own) */
    double seconds;   /* the probe's own time, set-up included */
};

/* The stride test's N for a first level of l1_entries (NAN unknown): a power of two of at least
 * 4 x l1_entries and 256. */
double tlb_sets_pages(double l1_entries);

/* The most pages a probe of N = pages touches at once (the last point of the scan at half the
 * conflict stride), and the points it measures in all. */
double tlb_sets_pages_touched(double pages);
size_t tlb_sets_points(void);

/* After the stride test (stride[], ns[] filled): the first stride whose cost is past
 * TLB_SETS_ONSET of the step to the full cost, which is the cost one stride further (every page
 * missing there). Fills base_ns, full_ns, conflict_stride; false, with why, when no stride
 * made the pages miss by at least min_step_ns (a hashed index) or none lies past it. */
bool tlb_sets_find_conflict(struct tlb_sets *s, double min_step_ns);

/* The pages a scan at `stride` covers: its capacity lies within [low, high). */
void tlb_sets_scan_range(const struct tlb_sets *s, unsigned stride, double *low, double *high);

/* A scan's onset: the first point past TLB_SETS_RISE of the step (full - base) over the scan's
 * own points below its range (where every page is held), held by the next two points too,
 * interpolated; fills capacity and entries. The misses begin sharply at the capacity, but a
 * level whose replacement is not LRU keeps some pages past it and rises gradually, so the
 * threshold sits low. */
bool tlb_sets_scan_onset(struct tlb_sets_scan *scan, double step_ns);

/* From the two scans: the index kind and, for a low-bit index, the entries. */
void tlb_sets_conclude(struct tlb_sets *s);

#endif
