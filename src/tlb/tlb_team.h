#ifndef MEMBENCH_TLB_TEAM_H
#define MEMBENCH_TLB_TEAM_H

/* Inside the TLB probe: the team of measuring threads, its workers' memory and the current
 * set of points, shared by the measurement (tlb_measure.c), the phases (tlb_phase_*.c) and
 * run_tlb.c, which runs them in order. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/tlb_probe.h"
#include "src/tlb/run_tlb.h"
#include "src/tlb/tlb_region.h"
#include "src/tlb/tlb_result.h"

#define CHUNK_TARGET_S 0.0005 /* one timed chunk: 0.5 ms, 2 clock readings in it */
#define CHUNKS_PER_SAMPLE 20  /* one sample: 10 ms */
#define THROUGHPUT_BYTES (128u << 20)
#define GRID_MAX 128
#define REFINE_MAX 128
#define SMAPS "/proc/self/smaps"

struct tlb_worker {
    struct tlb_region main, control, small_tp, huge_tp;
    uint32_t *order;
    size_t *offsets;
    size_t scratch_n;
    struct tlb_chain chain;
    uint64_t *chunk; /* calibrated chunk per point of the current set (x2: main, control) */
    double *ns;      /* [point][kind][round] */
    int *disturbed;  /* [point][kind] */
    uint64_t sink;
    bool cut; /* a sample of this thread was stopped half-way: the probe stops */
};

struct tlb_team {
    const struct tlb_plan *plan;
    const struct topology *topo;
    struct tlb_result *out;
    struct tlb_worker *w;
    int error;
    char why[300];
    /* the current set of points */
    double xs[GRID_MAX + REFINE_MAX];
    size_t nx;
    bool refined;
    double tp_t0;
    uint64_t tp_accesses[2];
    bool thp_possible;
    bool stop;         /* a signal came: every thread leaves at the next shared check */
    const char *phase; /* what was under way, for the report */
    double stopped_at; /* the point (pages) under way when it stopped; 0 between points */
};

/* Which memory a point of a set lives in. */
enum tlb_set { TLB_SET_SWEEP, TLB_SET_HUGE, TLB_SET_REUSE };
/* Visits per page per traversal in the reuse chase: a whole line of pointers. */
#define TLB_REUSE_SLOTS 8u

/* Called by every thread of the team at the same place: true when a signal came. */
bool tlb_team_should_stop(struct tlb_team *tm);
/* Records the first failure (EXIT_RESOURCE and its reason); any thread may call it. */
void tlb_team_fail(struct tlb_team *tm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

uint64_t tlb_point_seed(double x, int kind, int thread);
/* Builds thread's chain for point x: kind 0 the sweep (of set), 1 the control. */
void tlb_build_point(const struct tlb_team *tm, struct tlb_worker *w, int thread, double x,
                     int kind, enum tlb_set set);
/* Allocates w's per-point buffers for K rounds of the largest set. Returns 0 or -1. */
int tlb_set_buffers(struct tlb_worker *w, unsigned K);
/* Measures the current points (tm->xs) once into thread t's curves: the main sweep, and the
 * control too unless control is NULL. Returns 0, or -1 when the curves cannot grow. */
int tlb_measure_into(struct tlb_team *tm, int t, enum tlb_set set, bool sync,
                     struct tlb_curve *main, struct tlb_curve *control);
/* Adds x to the point set xs[0..n) unless it is there: false when the set is full (cap). */
bool tlb_points_add(double *xs, size_t *n, size_t cap, double x);
/* Refinement points of every thread's analysis, merged into tm->xs. */
void tlb_plan_refinement(struct tlb_team *tm);
void tlb_warm_up(struct tlb_team *tm, int t);

/* Thread 0 only: the 2 MB sweep and the splinter check; then what they say about reach. */
void tlb_huge_phase(struct tlb_team *tm);
void tlb_describe_reach(struct tlb_result *out);
/* Thread 0: the reuse chase's points around every gradually rising level of every thread's
 * 4 KB sweep, into tm->xs (none when no level rose gradually). */
void tlb_reuse_plan(struct tlb_team *tm);
/* Thread 0, after every thread measured them: each planned level sized by the fit. */
void tlb_reuse_apply(struct tlb_team *tm);
/* Thread 0, single-thread runs: the stride probe (tlb_sets.h) into out->sets, sizing the level
 * it finds indexed by the low page-number bits. */
void tlb_sets_phase(struct tlb_team *tm);
/* Why a plan leaves the stride probe out; NULL when it runs it (after a sweep that finds a
 * level). */
const char *tlb_sets_unplanned(const struct tlb_plan *plan);
/* Every thread: page-walk throughput on 4 KB and 2 MB pages. */
void tlb_throughput_phase(struct tlb_team *tm, int t);

#endif
