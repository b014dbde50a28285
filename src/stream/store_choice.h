#ifndef MEMBENCH_STORE_CHOICE_H
#define MEMBENCH_STORE_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

/* --stores auto: during the discarded first repetition, whole repetitions (every kernel of the
 * run, in the order the measured repetitions run them) are timed with each candidate
 * assignment of store kinds to the kernels, and the assignment fastest in total runs the
 * measured repetitions. Kernels share the cache: a non-temporal Triad can evict the arrays the
 * next Copy reads, so a kernel timed alone can mislead. */

enum store_method {
    STORES_FORCED,       /* --stores normal or nt */
    STORES_MEASURED,     /* auto, decided by the calibration */
    STORES_NOT_MEASURED, /* auto without a measurement: a dry run, or no kernel that stores */
    STORES_REFERENCE,    /* auto, checked against --reference: the kind its profile ran with */
};

/* The candidates: every storing kernel normal, every one nt, and the mix of each kernel's own
 * faster kind (as timed in the first two), when that differs from both. */
enum store_assignment { ASSIGN_NORMAL, ASSIGN_NT, ASSIGN_MIXED, STORE_ASSIGNMENTS };

/* Each round times every candidate twice in a row; only a repetition that follows one of the
 * same assignment counts, since the previous repetition decides what the caches hold. Round 0
 * runs normal, nt and then the mix; later rounds alternate reversed and forward order so that
 * drift cancels. At least 2 rounds, repeated until the counted repetitions add up to
 * STORE_CALIBRATION_MIN_S, unless one round's already add up to STORE_CALIBRATION_LONG_S; a
 * mix that changed is timed in one more round; at most STORE_CALIBRATION_ROUNDS_MAX. */
#define STORE_CALIBRATION_MIN_S 1.0
#define STORE_CALIBRATION_LONG_S 2.0
#define STORE_CALIBRATION_ROUNDS_MAX 16

struct store_candidate {
    enum store_kind kind[KERNEL_COUNT]; /* each storing kernel's kind */
    double kernel_best_s[KERNEL_COUNT]; /* each kernel's fastest pass in counted repetitions */
    double best_s; /* their sum over the run's kernels, as the best rates count; 0 = none */
    double mbps;   /* the run's bytes over best_s */
    int passes;    /* repetitions that counted */
};

struct store_choice {
    enum store_method method;
    const char *why;      /* STORES_NOT_MEASURED: the reason, in words */
    unsigned kernel_mask; /* the kernels whose store kind is chosen */
    unsigned run_mask;    /* every kernel of the run: a repetition runs them all */
    int n_candidates;     /* 2, or 3 with the mix */
    struct store_candidate cand[STORE_ASSIGNMENTS];
    enum store_assignment assignment;     /* the one chosen */
    double kernel_mbps[2][KERNEL_COUNT];  /* [kind][kernel]: in the all-normal / all-nt runs */
    enum store_kind chosen[KERNEL_COUNT]; /* each storing kernel's kind in the assignment */
    int rounds;                           /* rounds completed */
    /* the calibration's course */
    int round, slot, last; /* last: the candidate of the previous repetition, -1 = none */
};

/* A kernel whose store kind matters: it writes an array. */
bool store_choice_kernel(enum kernel_id k);

/* Before a run: what the request leaves to measure (auto and some storing kernel), or why
 * nothing is. */
void store_choice_init(struct store_choice *c, const char *stores_requested, bool from_reference,
                       unsigned kernel_mask);

/* The candidate to time in the next repetition, or -1 when the calibration is complete. */
int store_choice_next(struct store_choice *c);

/* One repetition with candidate cand took kernel_s[k] for each kernel k of the run. */
void store_choice_record(struct store_choice *c, int cand, const double kernel_s[KERNEL_COUNT]);

/* Both uniform candidates have a counted repetition: the calibration may stop early (a time
 * limit) and still choose by measurement. */
bool store_choice_can_stop(const struct store_choice *c);

/* The fastest of n candidate assignments by total time (0 = not timed, never chosen); on a
 * tie the one with fewer non-temporal kernels. -1 when none was timed. */
int store_assignment_pick(const double total_s[], const int nt_kernels[], int n);

/* After the calibration: each candidate's rate, each kernel's rates in the all-normal and
 * all-nt repetitions, and the assignment chosen. */
void store_choice_decide(struct store_choice *c, uint64_t elements, enum elem_type type);

/* "normal", "nt" or "mixed". */
const char *store_assignment_name(enum store_assignment a);

/* "Copy+Scale+Add+Triad": the kernels whose kind is chosen. */
void store_choice_kernels(const struct store_choice *c, char *buf, size_t len);

#endif
