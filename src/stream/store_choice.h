#ifndef MEMBENCH_STORE_CHOICE_H
#define MEMBENCH_STORE_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

/* --stores auto: both store kinds are timed on the real arrays during the discarded first
 * repetition and each kernel runs the measured repetitions with its faster kind. */

enum store_method {
    STORES_FORCED,       /* --stores normal or nt */
    STORES_MEASURED,     /* auto, decided by the calibration */
    STORES_NOT_MEASURED, /* auto without a measurement: a dry run, or no kernel that stores */
    STORES_REFERENCE,    /* auto, checked against --reference: the kind its profile ran with */
};

/* Passes of one kernel during the calibration, in order: nt, normal, normal, nt (ABBA), so that
 * each kind has one pass after a pass of its own kind and drift cancels; the best of each
 * kind's two counts. */
#define STORE_CALIBRATION_PASSES 4
/* Short passes are noisy: rounds repeat until a kernel's best passes add up to this. */
#define STORE_CALIBRATION_MIN_S 0.1
#define STORE_CALIBRATION_ROUNDS_MAX 16
extern const enum store_kind store_calibration_order[STORE_CALIBRATION_PASSES];

struct store_choice {
    enum store_method method;
    const char *why;                     /* STORES_NOT_MEASURED: the reason, in words */
    unsigned kernel_mask;                /* the kernels timed with both kinds */
    double best_s[2][KERNEL_COUNT];      /* [enum store_kind][kernel]: best pass; 0 = none yet */
    double normal_mbps, nt_mbps;         /* the timed kernels' bytes over their best times summed */
    double kernel_mbps[2][KERNEL_COUNT]; /* [enum store_kind][kernel]: each one's best pass */
    enum store_kind chosen[KERNEL_COUNT]; /* the faster kind of each timed kernel */
    int rounds;                           /* the fewest rounds any timed kernel had */
};

/* A kernel whose store kind matters: it writes an array. */
bool store_choice_kernel(enum kernel_id k);

/* Before a run: what the request leaves to measure (auto and some storing kernel), or why
 * nothing is. */
void store_choice_init(struct store_choice *c, const char *stores_requested, bool from_reference,
                       unsigned kernel_mask);

/* One calibration pass of kernel k with kind took seconds. */
void store_choice_record(struct store_choice *c, enum kernel_id k, enum store_kind kind,
                         double seconds);

/* A kernel's calibration ended after rounds ABBA rounds. */
void store_choice_rounds(struct store_choice *c, int rounds);

/* After the calibration: each kernel's rates with each kind and its faster kind (normal on a
 * tie): kernels differ (Copy may prefer normal stores where Triad prefers nt). */
void store_choice_decide(struct store_choice *c, uint64_t elements, enum elem_type type);

/* "Copy+Scale+Add+Triad": the kernels timed. */
void store_choice_kernels(const struct store_choice *c, char *buf, size_t len);

#endif
