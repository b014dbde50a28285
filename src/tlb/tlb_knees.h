#ifndef MEMBENCH_TLB_KNEES_H
#define MEMBENCH_TLB_KNEES_H

/* Knee and plateau detection for the TLB sweep: a pure function of the measured curves.
 *
 * Inputs: the sweep M (ns per access against pages touched, one line per page) and, when
 * measured, the control C (ns per access against the same number of cache lines packed into
 * 64x fewer pages). C has the sweep's data-cache behaviour without its translations, so
 *   T(x) = M(x) - C(x)
 * is the translation cost alone: its knees are TLB levels; a knee that M and C share is a
 * data-cache knee. C stays free of TLB misses while its x/64 pages fit the first TLB level,
 * i.e. up to 64 x (the end of the first plateau); beyond that its own first-level misses are
 * added back (their cost is T's first step), so T stays a translation cost.
 *
 * Plateaus: maximal runs whose points stay within a tolerance (relative to M, with an absolute
 * floor) of the run's median, spanning at least a doubling of x (or 4 points over 1.4x); one
 * isolated point off the level with the next back on it is an outlier. Knees: a rise of at least
 * min_step between consecutive plateaus, or from the last plateau into a rising tail. A knee's
 * bracket is (last x on the lower plateau, first x above it); its entries estimate is the lower
 * end. */

#include <stdbool.h>
#include <stddef.h>

#define KNEES_MAX 16
#define KNEE_POINTS_MAX 1024 /* points of one curve at most */
/* A rise that completes (90%) within this factor of its onset is a sharp knee: a W-way LRU
 * level filled with contiguous pages completes by E (W + 1) / W, within 4/3 for W >= 3. */
#define KNEE_SHARP_RATIO 1.4
#define KNEE_LEVELS_MAX 4

struct knee_params {
    double rel_tol;        /* plateau tolerance as a fraction of M (0.10) */
    double abs_tol_ns;     /* ... never below this (0.15 ns) */
    double min_step_rel;   /* a knee raises the level by this fraction of M (0.15) */
    double min_step_ns;    /* ... and by at least this (0.30 ns) */
    double lines_per_page; /* lines of one control page (64 for 4 KB pages) */
    double approx_ratio;   /* a bracket wider than this ratio makes the entries "~" (1.125) */
    int max_tlb_levels;    /* TLB levels when no step stands out as the one into page walks (2) */
    bool control_random_order; /* the control visits its lines in random order (true) */
    /* The first TLB level the control's own pages go through (entries, first x past them,
     * penalty). 0 = derive it from this curve; set when the sweep's pages are not the
     * control's (a 2 MB sweep against a 4 KB control). */
    double control_tlb_entries, control_tlb_high, control_tlb_penalty_ns;
    /* A step at least this large goes into page walks, whatever came before it (0 = only the
     * 3x rule): set for a 2 MB sweep from the 4 KB sweep's second-level hit, so that a walk
     * cost plateau just past the 2 MB first level is not taken for a second TLB level. */
    double walk_step_ns;
};

void knee_params_default(struct knee_params *p);

enum knee_kind {
    KNEE_TLB,          /* T rises: a translation level was exceeded */
    KNEE_CACHE,        /* the control rises the same: a data-cache knee */
    KNEE_WALK,         /* T rises again past the last TLB level: page-table entries leave a cache */
    KNEE_UNCLASSIFIED, /* no control, or neither explains it */
};

struct knee {
    enum knee_kind kind;
    double last_low, first_high; /* the bracket, in the curve's x */
    double low_ns, high_ns;      /* level before; level after (or first tail point) */
    double step_ns;              /* high - low on the curve it was found on */
    double complete_x;           /* first x that has risen 80% of the step: a wide gap to
                                    last_low means misses set in gradually */
    /* The rise on a monotone (pool-adjacent-violators) fit of the points from last_low up:
     * where it crosses half and nine tenths of the step (linear in log x between points), and
     * the first measured x at or past nine tenths. Sharp: 10% -> 90% between two neighbouring
     * points, or the 90% crossing within KNEE_SHARP_RATIO of last_low. */
    double mid_x, x90, top_x;
    double mid_after; /* the first measured x at or past half the step: mid_x lies before it */
    bool sharp;
    double control_step_ns; /* the control's rise over the bracket; NAN without control */
    double tlb_step_ns;     /* T's rise over the bracket; NAN without control */
    bool to_tail;           /* rises into a tail that never levels off */
};

struct plateau {
    size_t first, last; /* indices into the curve */
    double level_ns;
};

/* A TLB level as reported: "L1 DTLB: 64 entries, 1.1 ns", "L2 TLB: ~2048 entries, +x ns",
 * "page walk: +y ns". NAN where the sweep could not measure it. */
struct knee_level {
    char name[16];
    double entries;      /* sharp knee: the onset; gradual rise: its midpoint; either may be
                            replaced by the reuse chase's fit (src/tlb/tlb_phase_reuse.c);
                            NAN unknown */
    double midpoint;     /* gradual rise: where it crosses half its step; NAN for a sharp knee */
    bool reuse_sized;    /* entries come from the reuse chase's fit (tlb_reuse_fit.h) */
    bool stride_sized;   /* entries come from the stride probe (tlb_sets.h) */
    bool model_sized;    /* entries come from the model told a hashed index by the stride
                            probe (tlb_model_fit.h, tlb_phase_sets.c) */
    double entries_low;  /* the onset: last x within a tenth of the step (bracket's low end) */
    double entries_high; /* first x past the onset (the bracket's upper end) */
    double rise_high;    /* x where the rise reaches 90% of the step */
    bool sharp;          /* sharp knee (entries = onset) or gradual rise (entries = midpoint) */
    /* The sizes the curves allow: from the onset (where a random-replacement level of that
     * size starts missing) to the first measured point past the midpoint (where an LRU-like,
     * hash-indexed one is half-way; for a sharp knee the bracket's end), widened to take in
     * the reuse fit. A range wider than TLB_DECIDED_RATIO leaves the size undecided. */
    double size_low, size_high;
    double half_x;              /* where the rise crosses half its step, sharp or gradual */
    unsigned set_conflict_ways; /* > 0: the knee is one set's associativity, not a size */
    double complete_x;          /* first x past 80% of the rise to the next level */
    bool approx;                /* bracket wider than approx_ratio */
    double hit_ns;              /* ns per access when translations hit here (data in L1) */
    double miss_penalty_ns;     /* added per access when this level misses and the next serves */
    double max_penalty_ns;      /* page walk: the translation cost at the largest x, over the last
                                   TLB level's hit */
    double at_x;                /* page walk: that largest x */
};

struct knee_analysis {
    bool has_control;
    /* T at each point of the sweep (M less the control less its own first-level misses);
     * NAN where unusable (outlier, no control) */
    double translation_ns[KNEE_POINTS_MAX];
    double control_clean_until; /* x up to which C needs no more than the first TLB level */
    size_t n_points;
    size_t n_outliers;
    size_t n_plateaus; /* on M */
    struct plateau plateaus[KNEES_MAX];
    size_t n_main_knees; /* on M, classified */
    struct knee main_knees[KNEES_MAX];
    size_t n_tlb_knees; /* on T: TLB and then walk knees */
    struct knee tlb_knees[KNEES_MAX];
    size_t n_cache_knees; /* on C, minus the control's own TLB knee */
    struct knee cache_knees[KNEES_MAX];
    bool walk_step_found; /* the last TLB knee is a step into page walks */
    size_t n_levels;      /* L1 DTLB, L2 TLB ..., page walk */
    struct knee_level levels[KNEE_LEVELS_MAX + 1];
};

/* x ascending, y > 0, n >= 1; cx/cy (the control, lines) may be NULL with cn = 0.
 * Returns 0, or -1 when the input is unusable (too few points, x not ascending). */
int knees_analyse(const double *x, const double *y, size_t n, const double *cx, const double *cy,
                  size_t cn, const struct knee_params *p, struct knee_analysis *out);

/* Extra x values (whole numbers, not already in x) that split each knee's bracket in eight, for
 * the brackets wider than approx_ratio, and for a gradual rise the stretch from the bracket to
 * the first point past 90% of the rise in six: TLB knees, data-cache knees and the sweep's
 * knees that are one or the other (not the walk region, where more points only measure noise).
 * Returns how many were written (at most max). */
size_t knees_refine(const struct knee_analysis *a, const struct knee_params *p, const double *x,
                    size_t n, double *out, size_t max);

const char *knee_kind_name(enum knee_kind kind);

#endif
