#ifndef MEMBENCH_STREAM_TEAM_H
#define MEMBENCH_STREAM_TEAM_H

#include "src/base/test_hooks.h"
#include "src/stream/results.h"
#include "src/stream/stream_hooks.h"

/* What the master decides for the whole team, read by every thread after the next barrier;
 * aligned apart from the fields the kernels read, which the master's writes would evict. */
struct team_sync {
    double t0;    /* timer_now() when the current kernel started */
    int exponent; /* the power of two the arrays are scaled by before the next pass; 0 = none */
    bool stop;    /* a signal or the time limit: no more kernels */
    bool warm_up; /* the first repetition runs another pass */
};

/* Everything the threads of one run share; written by the master between barriers. */
struct team {
    const struct run_config *cfg;
    const struct topology *topo;
    void *a, *b, *c;
    size_t n;
    double *times;       /* [kernel][rep] */
    double *finish;      /* per thread, seconds after the kernel's start */
    double *spread;      /* [kernel][rep] latest minus earliest finish */
    int *thread_domain;  /* per thread, index into domains; NULL without --per-domain */
    double *domain_best; /* [kernel][domain] best time */
    double *partial;     /* per thread, a reduction's partial sum */
    double reduction_err[KERNEL_COUNT]; /* worst relative error of each reduction */
    kernel_fn fns[KERNEL_COUNT];
    kernel_fn fns_kind[2][KERNEL_COUNT]; /* [enum store_kind]: both variants, for auto */
    struct store_choice *choice;         /* auto: measuring on the first repetition; else NULL */
    int candidate;                       /* auto: the assignment the current repetition runs */
    const char *kinds;                   /* the store kinds the current repetition runs */
    bool reset;                /* the warm-up is over: the arrays set again for the last pass */
    double warm_up_start;      /* timer_now() when the first repetition began */
    double warm_up_s;          /* from then to the end of its last pass */
    unsigned warm_up_passes;   /* passes of the first repetition (calibration included) */
    double warm_up_extra_s;    /* the kernel time of the passes beyond the first */
    double warm_up_pass_max_s; /* the longest pass */
    double settle_start;       /* timer_now() when the warm-up with the run's stores began */
    unsigned settle_passes;    /* its passes so far */
    double settle_s;           /* and how long they took */
    struct expected_values expect;
    int team_size;
    unsigned reps_done;
    double loop_start;        /* timer_now() when team_run began */
    double touch_s;           /* first touch: binding and initialising the arrays */
    int *pus_start, *pus_end; /* per thread, the PU it ran on first and last */
    _Alignas(64) struct team_sync sync;
};

/* Test-only kernel hooks; NULL in membench (src/base/test_hooks.h). */
static inline const struct stream_hooks *kernel_hooks(void)
{
    return test_hooks ? test_hooks->stream : NULL;
}

/* STREAM's first repetition is not timed. On every path it is repeated (under --stores auto,
 * first calibrating the stores) with the run's own stores until that has lasted WARM_UP_MIN_S
 * or run WARM_UP_PASSES_MAX passes; then the arrays are set as at the
 * first touch and one pass of the run's own kernels precedes the timed repetitions. What ran
 * before must not change them: auto's calibration ran for a second and could end with the
 * other store kind, leaving other arrays in the cache, where a forced kind ran one pass right
 * after the first touch. */
#define WARM_UP_MIN_S 1.0
#define WARM_UP_PASSES_MAX 64u

/* --stores auto: the kernels of the candidate assignment cand run the next repetition. */
void team_use_candidate(struct team *tm, int cand);

/* The timed loop: one parallel region, each thread bound once and working on the same range
 * it first touched; every kernel starts together after a barrier and ends at the next.
 * Between passes, untimed, the master runs the warm-up and auto's calibration and the arrays
 * are rescaled. */
void team_run(struct team *tm, struct run_result *out);

#endif
