/* The kernel table (bytes, flops), the kernels' arithmetic, and the validation model that
 * must predict them exactly for every kernel subset, element type and repetition count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/kernel_table.h"
#include "kernels/validate.h"

static void table_rows(void **state)
{
    (void)state;
    static const char *names[] = {"Copy", "Scale", "Add", "Triad"};
    static const unsigned words[] = {2, 2, 3, 3}, flops[] = {0, 1, 1, 2};
    for (int k = 0; k < KERNEL_COUNT; k++) {
        const struct kernel_desc *d = &kernel_table[k];
        assert_int_equal(d->id, k);
        assert_string_equal(d->name, names[k]);
        assert_int_equal(strlen(d->label), 11); /* STREAM's label width */
        assert_int_equal(strncmp(d->label, names[k], strlen(names[k])), 0);
        assert_int_equal(d->words_read + d->words_written, words[k]);
        assert_int_equal(d->flops, flops[k]);
        assert_non_null(d->fn[TYPE_DOUBLE]);
        assert_non_null(d->fn[TYPE_FLOAT]);
    }
}

static void byte_counts(void **state)
{
    (void)state;
    const uint64_t n = 20971520;
    assert_int_equal(kernel_bytes_counted(&kernel_table[KERNEL_COPY], n, TYPE_DOUBLE), 16 * n);
    assert_int_equal(kernel_bytes_counted(&kernel_table[KERNEL_TRIAD], n, TYPE_DOUBLE), 24 * n);
    assert_int_equal(kernel_bytes_counted(&kernel_table[KERNEL_ADD], n, TYPE_FLOAT), 12 * n);
    /* write-allocate: Copy moves 3 words, Triad 4; non-temporal stores as counted */
    assert_int_equal(kernel_bytes_traffic(&kernel_table[KERNEL_COPY], n, TYPE_DOUBLE, 0), 24 * n);
    assert_int_equal(kernel_bytes_traffic(&kernel_table[KERNEL_TRIAD], n, TYPE_DOUBLE, 0), 32 * n);
    assert_int_equal(kernel_bytes_traffic(&kernel_table[KERNEL_TRIAD], n, TYPE_DOUBLE, 1), 24 * n);
}

static void arithmetic_double(void **state)
{
    (void)state;
    enum { N = 1003 }; /* odd: exercises the vector remainder */
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double)),
           *c = malloc(N * sizeof(double));
    for (int j = 0; j < N; j++) {
        a[j] = j;
        b[j] = 2.0 * j;
        c[j] = 3.0 * j;
    }
    kernel_table[KERNEL_TRIAD].fn[TYPE_DOUBLE](a, b, c, 0, N, 0.5);
    for (int j = 0; j < N; j++)
        assert_true(a[j] == 2.0 * j + 0.5 * 3.0 * j);
    kernel_table[KERNEL_ADD].fn[TYPE_DOUBLE](a, b, c, 0, N, 0.5);
    for (int j = 0; j < N; j++)
        assert_true(c[j] == a[j] + b[j]);
    kernel_table[KERNEL_SCALE].fn[TYPE_DOUBLE](a, b, c, 0, N, 0.25);
    for (int j = 0; j < N; j++)
        assert_true(b[j] == 0.25 * c[j]);
    kernel_table[KERNEL_COPY].fn[TYPE_DOUBLE](a, b, c, 0, N, 0.0);
    for (int j = 0; j < N; j++)
        assert_true(c[j] == a[j]);
    free(a);
    free(b);
    free(c);
}

static void arithmetic_float(void **state)
{
    (void)state;
    enum { N = 77 };
    float a[N], b[N], c[N];
    stream_init_arrays(a, b, c, 0, N, TYPE_FLOAT);
    assert_true(a[N - 1] == 2.0f && b[0] == 0.5f && c[40] == 1.0f);
    kernel_table[KERNEL_TRIAD].fn[TYPE_FLOAT](a, b, c, 0, N, 3.0);
    for (int j = 0; j < N; j++)
        assert_true(a[j] == 3.5f);
    stream_scale_arrays(a, b, c, 0, N, TYPE_FLOAT, -3);
    assert_true(a[5] == 3.5f / 8.0f && b[5] == 0.5f / 8.0f && c[5] == 1.0f / 8.0f);
}

/* Runs the real kernels and the model side by side for one subset of kernels. */
static void model_matches(unsigned mask, enum elem_type type, unsigned reps)
{
    enum { N = 515 };
    double store[3][N];
    void *a = store[0], *b = store[1], *c = store[2];
    stream_init_arrays(a, b, c, 0, N, type);
    struct expected_values e;
    expected_init(&e);
    for (unsigned r = 0; r < reps; r++) {
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (mask & (1u << k)) {
                kernel_table[k].fn[type](a, b, c, 0, N, STREAM_SCALAR);
                expected_step(&e, (enum kernel_id)k, type, STREAM_SCALAR);
            }
        int x = expected_rescale_exponent(&e);
        if (x) {
            stream_scale_arrays(a, b, c, 0, N, type, x);
            expected_rescale(&e, x);
        }
    }
    assert_true(isfinite(e.a) && isfinite(e.b) && isfinite(e.c));
    assert_true(fabs(e.a) > 1e-12 && fabs(e.c) > 1e-12); /* never validates against zero */
    struct validation_result v;
    validate_arrays(a, b, c, N, type, &e, validation_tolerance(type, reps), &v);
    if (!v.passed)
        fail_msg("mask %x type %d reps %u: %c[%zu] = %g, expected %g", mask, type, reps,
                 v.failed_array, v.first_bad_index, v.first_bad_value, v.first_bad_expected);
}

static void model_every_subset(void **state)
{
    (void)state;
    for (unsigned mask = 1; mask <= KERNEL_MASK_ALL; mask++) {
        model_matches(mask, TYPE_DOUBLE, 10);
        model_matches(mask, TYPE_FLOAT, 10);
        model_matches(mask, TYPE_DOUBLE, 3000); /* STREAM's q=3 would overflow here */
        model_matches(mask, TYPE_FLOAT, 500);   /* ... and at 33 repetitions in float */
    }
}

static void detects_wrong_values(void **state)
{
    (void)state;
    enum { N = 1000 };
    double a[N], b[N], c[N];
    stream_init_arrays(a, b, c, 0, N, TYPE_DOUBLE);
    struct expected_values e;
    expected_init(&e);
    struct validation_result v;
    validate_arrays(a, b, c, N, TYPE_DOUBLE, &e, 1e-13, &v);
    assert_true(v.passed);
    assert_true(v.max_rel_error == 0.0);

    b[617] *= 1.0 + 1e-12; /* one element, barely off */
    validate_arrays(a, b, c, N, TYPE_DOUBLE, &e, 1e-13, &v);
    assert_false(v.passed);
    assert_int_equal(v.failed_array, 'b');
    assert_int_equal(v.first_bad_index, 617);
    b[617] = 0.5;

    c[3] = NAN;
    validate_arrays(a, b, c, N, TYPE_DOUBLE, &e, 1e-13, &v);
    assert_false(v.passed);
    assert_int_equal(v.failed_array, 'c');
    assert_int_equal(v.first_bad_index, 3);
}

static void chunks_cover_and_align(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 7, 8, 9, 1000, 1003, 20971520, 20971523};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int threads = 1; threads <= 67; threads += 3)
            for (int type = TYPE_DOUBLE; type <= TYPE_FLOAT; type++) {
                size_t n = sizes[i], line = 64 / elem_size(type), prev = 0;
                assert_int_equal(stream_chunk_begin(n, threads, 0, type), 0);
                for (int t = 1; t < threads; t++) {
                    size_t b = stream_chunk_begin(n, threads, t, type);
                    assert_true(b >= prev); /* ordered, so ranges never overlap */
                    assert_true(b == n || b % line == 0);
                    assert_true(b - prev <= (n + line - 1) / line / threads * line + line);
                    prev = b;
                }
                assert_true(prev <= n);
            }
}

static void tolerances(void **state)
{
    (void)state;
    assert_true(validation_tolerance(TYPE_DOUBLE, 10) == 1e-13);
    assert_true(validation_tolerance(TYPE_DOUBLE, 100) == 1e-13);
    assert_true(validation_tolerance(TYPE_DOUBLE, 1000) > 1e-13);
    /* per-element max error, stricter than STREAM's average: a few ulp per repetition */
    assert_true(validation_tolerance(TYPE_FLOAT, 1) == 1e-6);
    assert_true(validation_tolerance(TYPE_FLOAT, 10) > 1e-6);
    assert_true(validation_tolerance(TYPE_FLOAT, 1000) > 1e-6); /* widens with repetitions */
    assert_true(validation_tolerance(TYPE_FLOAT, 1000) < 1e-3);
}

static void rescale_is_exact_and_rare(void **state)
{
    (void)state;
    struct expected_values e = {3.0, 1e-3, 7.0};
    assert_int_equal(expected_rescale_exponent(&e), 0);
    e.a = ldexp(1.5, 40);
    int x = expected_rescale_exponent(&e);
    assert_true(x < 0);
    expected_rescale(&e, x);
    assert_true(e.c == ldexp(7.0, x));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_rows),
        cmocka_unit_test(byte_counts),
        cmocka_unit_test(arithmetic_double),
        cmocka_unit_test(arithmetic_float),
        cmocka_unit_test(model_every_subset),
        cmocka_unit_test(detects_wrong_values),
        cmocka_unit_test(tolerances),
        cmocka_unit_test(chunks_cover_and_align),
        cmocka_unit_test(rescale_is_exact_and_rare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
