#ifndef MEMBENCH_VALIDATE_H
#define MEMBENCH_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

/* STREAM's scalar is 3.0, which makes the four-kernel sequence grow 15x per repetition
 * (float overflows after 32 repetitions). sqrt(2)-1 makes a -> (2q + q^2) a = a. */
#define STREAM_SCALAR 0.41421356237309515

/* Every element of an array holds the same value, so the expected result of a whole run is
 * three scalars, stepped with the same arithmetic, in the same type, as the kernels. */
struct expected_values {
    double a, b, c;
};

void expected_init(struct expected_values *e);
void expected_step(struct expected_values *e, enum kernel_id k, enum elem_type type, double q);

/* The scalar reference of kernel k: the formula of its row (kernels/kernel_list.h) element by
 * element, in the element type, rounding as the SIMD variants do. */
kernel_fn kernel_reference(enum kernel_id k, enum elem_type type);

/* What a reduction kernel (Dot, Read) over n elements with the runner's scalar
 * (STREAM_SCALAR) must return for the current values. */
double expected_reduction(const struct expected_values *e, enum kernel_id k, enum elem_type type,
                          uint64_t n);
double reduction_tolerance(enum elem_type type);

/* Power of two to multiply everything by so values stay far from overflow and underflow;
 * 0 when no rescaling is needed. Scaling by 2^k is exact. */
int expected_rescale_exponent(const struct expected_values *e);
void expected_rescale(struct expected_values *e, int exponent);

/* Relative error allowed per element: STREAM's epsilon (1e-13 double, 1e-6 float), widened
 * by a few rounding errors per repetition so long float runs cannot fail falsely. */
double validation_tolerance(enum elem_type type, unsigned ntimes);
/* STREAM 5.10's epsilon for its average-error check: 1e-13 double, 1e-6 float. */
double stream_epsilon(enum elem_type type);

/* One array's errors as STREAM 5.10 reports them, so the report can print STREAM's lines. */
struct array_errors {
    double expected;
    double avg_abs_error; /* STREAM's AvgAbsErr: mean |x - expected|, inf with a NaN */
    double avg_rel_error; /* STREAM's AvgRelAbsErr: avg_abs_error / |expected| */
    size_t n_bad;         /* elements beyond the tolerance */
};

struct validation_result {
    bool passed;
    double max_rel_error;
    double tolerance;
    double stream_epsilon;
    struct array_errors arrays[3]; /* a, b, c */
    char failed_array;             /* 'a', 'b', 'c' or 0 */
    size_t first_bad_index;
    double first_bad_value, first_bad_expected;
    int failed_reduction; /* kernel id of a reduction off its closed form, else -1 */
};

/* Checks every element on the run's own number of threads (never the environment's). */
void validate_arrays(const void *a, const void *b, const void *c, size_t n, enum elem_type type,
                     const struct expected_values *e, double tolerance, unsigned threads,
                     struct validation_result *out);

#endif
