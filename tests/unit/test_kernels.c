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
    static const char *names[] = {"Copy", "Scale", "Add",   "Triad",
                                  "Dot",  "Read",  "Write", "Nstream"};
    static const unsigned words[] = {2, 2, 3, 3, 2, 1, 1, 4}, flops[] = {0, 1, 1, 2, 2, 1, 0, 3};
    static const unsigned written[] = {1, 1, 1, 1, 0, 0, 1, 1};
    static const int dst[] = {2, 1, 2, 0, -1, -1, 2, 0};
    for (int k = 0; k < (int)(sizeof(names) / sizeof(names[0])); k++) {
        const struct kernel_desc *d = &kernel_table[k];
        assert_string_equal(d->name, names[k]);
        assert_int_equal(d->words_read + d->words_written, words[k]);
        assert_int_equal(d->words_written, written[k]);
        assert_int_equal(d->flops, flops[k]);
        assert_int_equal(d->reduction, k == KERNEL_DOT || k == KERNEL_READ);
        assert_int_equal(d->dst, dst[k]);
    }
    for (int k = 0; k < KERNEL_COUNT; k++) {
        const struct kernel_desc *d = &kernel_table[k];
        assert_int_equal(d->id, k);
        assert_int_equal(strlen(d->label), 11); /* STREAM's label width */
        assert_int_equal(strncmp(d->label, d->name, strlen(d->name)), 0);
        assert_int_equal(d->reduction, d->dst < 0);
        for (int isa = 0; isa < ISA_COUNT; isa++)
            for (int t = 0; t < 2; t++) {
                assert_non_null(kernel_function(k, isa, STORES_NORMAL, t));
                assert_non_null(kernel_function(k, isa, STORES_NT, t));
            }
    }
    enum isa isa;
    assert_int_equal(isa_parse("avx2", &isa), 0);
    assert_int_equal(isa, ISA_AVX2);
    assert_int_equal(isa_parse("neon", &isa), 0); /* a name of any architecture */
    assert_int_equal(isa, ISA_NEON);
    assert_int_equal(isa_parse("avx1024", &isa), -1);
    assert_true(isa_supported(isa_best()));
    assert_true(isa_compiled(ISA_SCALAR) && isa_supported(ISA_SCALAR));
    assert_false(isa_has_nt(ISA_SCALAR));
    assert_true(isa_compiled(isa_best()) && isa_has_nt(isa_best()) == (isa_best() != ISA_SCALAR));
    assert_true(strstr(isa_build_list(), "scalar") != NULL);
#if defined(__x86_64__)
    assert_false(isa_compiled(ISA_NEON) || isa_compiled(ISA_SVE));
    assert_string_equal(isa_build_list(), "sse2, avx2, avx512, scalar");
#elif defined(__aarch64__)
    assert_false(isa_compiled(ISA_SSE2) || isa_compiled(ISA_AVX512));
    assert_string_equal(isa_build_list(), "scalar, neon, sve");
#endif
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

/* A kernel by name, in any case; only the whole name. */
static void find_by_name(void **state)
{
    (void)state;
    for (int k = 0; k < KERNEL_COUNT; k++)
        assert_int_equal(kernel_find(kernel_table[k].name), k);
    assert_int_equal(kernel_find("triad"), KERNEL_TRIAD);
    assert_int_equal(kernel_find("COPY"), KERNEL_COPY);
    assert_int_equal(kernel_find("Tri"), -1);
    assert_int_equal(kernel_find("Triads"), -1);
    assert_int_equal(kernel_find(""), -1);
    assert_int_equal(kernel_find_n("scale=5", 5), KERNEL_SCALE);
    assert_int_equal(kernel_find_n("scale=5", 4), -1);
    assert_int_equal(kernel_find_n("scale=5", 6), -1);
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
    kernel_function(KERNEL_TRIAD, ISA_SSE2, STORES_NORMAL, TYPE_DOUBLE)(a, b, c, 0, N, 0.5);
    for (int j = 0; j < N; j++)
        assert_true(a[j] == 2.0 * j + 0.5 * 3.0 * j);
    kernel_function(KERNEL_ADD, ISA_SSE2, STORES_NORMAL, TYPE_DOUBLE)(a, b, c, 0, N, 0.5);
    for (int j = 0; j < N; j++)
        assert_true(c[j] == a[j] + b[j]);
    kernel_function(KERNEL_SCALE, ISA_SSE2, STORES_NORMAL, TYPE_DOUBLE)(a, b, c, 0, N, 0.25);
    for (int j = 0; j < N; j++)
        assert_true(b[j] == 0.25 * c[j]);
    kernel_function(KERNEL_COPY, ISA_SSE2, STORES_NORMAL, TYPE_DOUBLE)(a, b, c, 0, N, 0.0);
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
    kernel_function(KERNEL_TRIAD, ISA_SSE2, STORES_NORMAL, TYPE_FLOAT)(a, b, c, 0, N, 3.0);
    for (int j = 0; j < N; j++)
        assert_true(a[j] == 3.5f);
    stream_scale_arrays(a, b, c, 0, N, TYPE_FLOAT, -3);
    assert_true(a[5] == 3.5f / 8.0f && b[5] == 0.5f / 8.0f && c[5] == 1.0f / 8.0f);
}

/* Runs the real kernels and the model side by side for one subset of kernels. */
static void model_matches(unsigned mask, enum elem_type type, unsigned reps, enum isa isa)
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
                double sum =
                    kernel_function(k, isa, STORES_NORMAL, type)(a, b, c, 0, N, STREAM_SCALAR);
                if (kernel_table[k].reduction) {
                    double want = expected_reduction(&e, k, type, N);
                    if (fabs(sum - want) > reduction_tolerance(type) * fabs(want))
                        fail_msg("%s: %.17g, expected %.17g", kernel_table[k].name, sum, want);
                }
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
    validate_arrays(a, b, c, N, type, &e, validation_tolerance(type, reps), 2, &v);
    if (!v.passed)
        fail_msg("mask %x type %d reps %u: %c[%zu] = %g, expected %g", mask, type, reps,
                 v.failed_array, v.first_bad_index, v.first_bad_value, v.first_bad_expected);
}

static void model_every_subset(void **state)
{
    (void)state;
    enum isa best = isa_best();
    for (unsigned mask = 1; mask <= KERNEL_MASK_ALL; mask++) {
        model_matches(mask, TYPE_DOUBLE, 10, best);
        model_matches(mask, TYPE_FLOAT, 10, ISA_SSE2);
        if (mask <= KERNEL_MASK_STREAM || mask == KERNEL_MASK_ALL) {
            model_matches(mask, TYPE_DOUBLE, 3000, best); /* STREAM's q=3 overflows here */
            model_matches(mask, TYPE_FLOAT, 500, best);   /* ... and at 33 in float */
        }
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
    validate_arrays(a, b, c, N, TYPE_DOUBLE, &e, 1e-13, 2, &v);
    assert_true(v.passed);
    assert_true(v.max_rel_error == 0.0);
    assert_true(v.stream_epsilon == 1e-13);
    for (int i = 0; i < 3; i++) {
        assert_true(v.arrays[i].avg_abs_error == 0.0);
        assert_int_equal(v.arrays[i].n_bad, 0);
    }

    b[617] *= 1.0 + 1e-12; /* one element, barely off: STREAM's average error stays below */
    validate_arrays(a, b, c, N, TYPE_DOUBLE, &e, 1e-13, 2, &v);
    assert_false(v.passed);
    assert_int_equal(v.failed_array, 'b');
    assert_int_equal(v.first_bad_index, 617);
    assert_int_equal(v.arrays[1].n_bad, 1);
    assert_true(v.arrays[1].expected == 0.5);
    assert_true(v.arrays[1].avg_rel_error > 0.0 && v.arrays[1].avg_rel_error < 1e-14);

    b[100] = b[101] = 1.0; /* two elements off by 100%: the average is 2e-3 of the value */
    validate_arrays(a, b, c, N, TYPE_DOUBLE, &e, 1e-13, 2, &v);
    assert_int_equal(v.arrays[1].n_bad, 3);
    assert_true(fabs(v.arrays[1].avg_abs_error - 1.0e-3) < 1e-12);
    assert_true(fabs(v.arrays[1].avg_rel_error - 2.0e-3) < 1e-12);
    b[100] = b[101] = 0.5;
    b[617] = 0.5;

    c[3] = NAN;
    validate_arrays(a, b, c, N, TYPE_DOUBLE, &e, 1e-13, 2, &v);
    assert_false(v.passed);
    assert_int_equal(v.failed_array, 'c');
    assert_int_equal(v.first_bad_index, 3);
    assert_true(isinf(v.arrays[2].avg_abs_error));
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

static void fill_distinct(void *x, size_t n, enum elem_type type, double seed)
{
    for (size_t j = 0; j < n; j++) {
        double v = seed + (double)(j % 97) * 0.125;
        if (type == TYPE_FLOAT)
            ((float *)x)[j] = (float)v;
        else
            ((double *)x)[j] = v;
    }
}

/* Every ISA the CPU has x stores x type x kernel, on odd sizes, misaligned starts (offsets)
 * and ranges split like 1..4 threads, equals the scalar reference element for element. */
static void every_variant_matches_reference(void **state)
{
    (void)state;
    /* under an emulator (cross builds: tests/CMakeLists.txt) a smaller large size, still
     * many vectors per thread */
    const char *emulated = getenv("MEMBENCH_TEST_EMULATED");
    const size_t large = emulated && *emulated == '1' ? 20011 : 1000003;
    const size_t sizes[] = {1, 7, large};
    const size_t max_n = large + 8;
    const size_t bytes = (max_n * 8 + 64 + 63) / 64 * 64; /* aligned_alloc: a multiple of 64 */
    void *got[3], *want[3];
    for (int i = 0; i < 3; i++) {
        got[i] = aligned_alloc(64, bytes);
        want[i] = aligned_alloc(64, bytes);
    }
    for (int isa = 0; isa < ISA_COUNT; isa++) {
        if (!isa_supported(isa)) continue;
        for (int stores = 0; stores < 2; stores++)
            for (int type = 0; type < 2; type++)
                for (int k = 0; k < KERNEL_COUNT; k++)
                    for (size_t si = 0; si < 3; si++)
                        for (size_t offset = 0; offset < 3; offset++) {
                            size_t n = sizes[si], es = elem_size(type);
                            int threads = (int)(1 + (si + offset + (size_t)k) % 4);
                            char *g[3], *w[3];
                            for (int i = 0; i < 3; i++) {
                                g[i] = (char *)got[i] + (size_t)i * offset * es;
                                w[i] = (char *)want[i] + (size_t)i * offset * es;
                                fill_distinct(g[i], n, type, 1.0 + i);
                                fill_distinct(w[i], n, type, 1.0 + i);
                            }
                            kernel_fn fn = kernel_function(k, isa, stores, type);
                            double sum = 0.0, ref = 0.0;
                            for (int t = 0; t < threads; t++) {
                                size_t lo = stream_chunk_begin(n, threads, t, type);
                                size_t hi = t + 1 < threads
                                                ? stream_chunk_begin(n, threads, t + 1, type)
                                                : n;
                                sum += fn(g[0], g[1], g[2], lo, hi, STREAM_SCALAR);
                                ref += kernel_reference(k, type)(w[0], w[1], w[2], lo, hi,
                                                                 STREAM_SCALAR);
                            }
                            for (int i = 0; i < 3; i++)
                                if (memcmp(g[i], w[i], n * es) != 0)
                                    fail_msg("%s isa %s stores %d type %d n %zu offset %zu: "
                                             "array %c differs",
                                             kernel_table[k].name, isa_name(isa), stores, type, n,
                                             offset, 'a' + i);
                            if (fabs(sum - ref) > 1e-6 * fabs(ref))
                                fail_msg("%s isa %s n %zu: sum %.17g, reference %.17g",
                                         kernel_table[k].name, isa_name(isa), n, sum, ref);
                        }
    }
    for (int i = 0; i < 3; i++) {
        free(got[i]);
        free(want[i]);
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

#ifdef MEMBENCH_EXTRA_KERNEL_ROW
/* The throw-away row of tests/unit/extra_kernel_row.h is a kernel like the others: in the
 * table, computing its formula on every ISA; the tests above validate it in every subset. */
static void extra_row_is_a_kernel(void **state)
{
    (void)state;
    assert_int_equal(KERNEL_AXPY, KERNEL_COUNT - 1); /* the list's last row, whatever its length */
    const struct kernel_desc *d = &kernel_table[KERNEL_AXPY];
    assert_string_equal(d->name, "Axpy");
    assert_string_equal(d->flag, "--axpy");
    assert_int_equal(d->words_read, 2);
    assert_int_equal(d->dst, 1);
    assert_true(KERNEL_MASK_ALL & (1u << KERNEL_AXPY));
    enum { N = 37 };
    double a[N], b[N], c[N];
    for (int isa = 0; isa < ISA_COUNT; isa++)
        for (int stores = 0; isa_supported(isa) && stores < 2; stores++) {
            for (int j = 0; j < N; j++) {
                a[j] = j + 0.5;
                b[j] = 0.0;
                c[j] = 3.0;
            }
            kernel_function(KERNEL_AXPY, isa, stores, TYPE_DOUBLE)(a, b, c, 0, N, 0.25);
            for (int j = 0; j < N; j++)
                assert_true(b[j] == j + 0.5 + 0.75);
        }
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_rows),
        cmocka_unit_test(byte_counts),
        cmocka_unit_test(find_by_name),
        cmocka_unit_test(arithmetic_double),
        cmocka_unit_test(arithmetic_float),
        cmocka_unit_test(model_every_subset),
        cmocka_unit_test(detects_wrong_values),
        cmocka_unit_test(tolerances),
        cmocka_unit_test(every_variant_matches_reference),
        cmocka_unit_test(chunks_cover_and_align),
        cmocka_unit_test(rescale_is_exact_and_rare),
#ifdef MEMBENCH_EXTRA_KERNEL_ROW
        cmocka_unit_test(extra_row_is_a_kernel),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
