/* The stride probe's reading (tlb_sets.h) on synthetic curves: a level indexed by the low
 * page-number bits is sized from where strided pages begin to miss, at two strides that agree; a
 * hashed index, or capacities that do not scale as 1 / stride, size nothing and say why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "src/tlb/tlb_sets.h"

#define BASE_NS 3.0
#define MISS_NS 20.0

/* ns per access of n pages `stride` apart in a low-bit indexed level of `entries`. */
static double direct(double entries, double n, unsigned stride)
{
    return n <= entries / stride ? BASE_NS : BASE_NS + MISS_NS;
}

static void stride_test(struct tlb_sets *s, double pages, double entries, bool hashed)
{
    memset(s, 0, sizeof(*s));
    s->pages = pages;
    for (unsigned k = 1; k <= 256; k *= 2) {
        s->stride[s->n_strides] = k;
        s->ns[s->n_strides++] = hashed ? BASE_NS + 0.1 * (k % 3) : direct(entries, pages, k);
    }
}

/* A scan at stride as tlb_phase_sets.c lays it out, on a level whose capacity at that stride is
 * `holds` pages. */
static void scan(const struct tlb_sets *s, struct tlb_sets_scan *sc, unsigned stride, double holds)
{
    double low, high;
    tlb_sets_scan_range(s, stride, &low, &high);
    double ratio = pow(high / low, 1.0 / (TLB_SETS_SCAN_MAX - 1));
    sc->stride = stride;
    sc->n = 0;
    for (double x = low; x <= high * 1.0001 && sc->n < TLB_SETS_SCAN_MAX; x *= ratio) {
        sc->pages[sc->n] = floor(x + 0.5);
        sc->ns[sc->n] = sc->pages[sc->n] <= holds ? BASE_NS : BASE_NS + MISS_NS;
        sc->n++;
    }
}

static void n_is_a_power_of_two_past_four_first_levels(void **state)
{
    (void)state;
    assert_true(tlb_sets_pages(96) == 512);
    assert_true(tlb_sets_pages(64) == 256);
    assert_true(tlb_sets_pages(NAN) == 256);
    assert_true(tlb_sets_pages(1536) == 8192);
}

static void a_low_bit_index_is_sized_by_two_strides(void **state)
{
    (void)state;
    static struct tlb_sets s;
    stride_test(&s, 512, 4096, false);
    assert_true(tlb_sets_find_conflict(&s, TLB_SETS_MIN_STEP_NS));
    assert_int_equal(s.conflict_stride, 16); /* 4096 / 16 = 256 < 512 pages */
    assert_true(fabs(s.full_ns - s.base_ns - MISS_NS) < 1e-9);
    scan(&s, &s.scan[0], 16, 4096 / 16);
    scan(&s, &s.scan[1], 8, 4096 / 8);
    assert_true(tlb_sets_scan_onset(&s.scan[0], MISS_NS));
    assert_true(tlb_sets_scan_onset(&s.scan[1], MISS_NS));
    tlb_sets_conclude(&s);
    assert_int_equal(s.index, TLB_SETS_LOW_BITS);
    assert_true(fabs(s.entries - 4096) <= 0.03 * 4096);
    assert_string_equal(s.why, "");
}

static void other_sizes_are_found_too(void **state)
{
    (void)state;
    static struct tlb_sets s;
    const double sizes[] = {1024, 1536, 2048, 3072, 12288};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        double e = sizes[i];
        stride_test(&s, 256, e, false);
        assert_true(tlb_sets_find_conflict(&s, TLB_SETS_MIN_STEP_NS));
        unsigned c = s.conflict_stride;
        assert_true(e / c < 256 && e / (c / 2) >= 256);
        scan(&s, &s.scan[0], c, e / c);
        scan(&s, &s.scan[1], c / 2, e / (c / 2));
        tlb_sets_scan_onset(&s.scan[0], MISS_NS);
        tlb_sets_scan_onset(&s.scan[1], MISS_NS);
        tlb_sets_conclude(&s);
        assert_int_equal(s.index, TLB_SETS_LOW_BITS);
        assert_true(fabs(s.entries - e) <= 0.03 * e);
    }
}

static void a_hashed_index_sizes_nothing(void **state)
{
    (void)state;
    static struct tlb_sets s;
    stride_test(&s, 512, 4096, true);
    assert_false(tlb_sets_find_conflict(&s, TLB_SETS_MIN_STEP_NS));
    assert_int_equal(s.index, TLB_SETS_NOT_LOW_BITS);
    assert_int_equal(s.conflict_stride, 0);
    assert_non_null(strstr(s.why, "not the low page-number bits"));
}

static void capacities_that_do_not_scale_are_not_low_bits(void **state)
{
    (void)state;
    static struct tlb_sets s;
    stride_test(&s, 512, 4096, false);
    assert_true(tlb_sets_find_conflict(&s, TLB_SETS_MIN_STEP_NS));
    scan(&s, &s.scan[0], 16, 256);
    scan(&s, &s.scan[1], 8, 600); /* 4800 entries against 4096 */
    tlb_sets_scan_onset(&s.scan[0], MISS_NS);
    tlb_sets_scan_onset(&s.scan[1], MISS_NS);
    tlb_sets_conclude(&s);
    assert_int_equal(s.index, TLB_SETS_NOT_LOW_BITS);
    assert_true(isnan(s.entries));
    assert_non_null(strstr(s.why, "does not scale as 1 / stride"));
}

static void one_slow_point_is_not_the_onset(void **state)
{
    (void)state;
    static struct tlb_sets s;
    stride_test(&s, 512, 4096, false);
    assert_true(tlb_sets_find_conflict(&s, TLB_SETS_MIN_STEP_NS));
    struct tlb_sets_scan *sc = &s.scan[0];
    scan(&s, sc, 16, 256);
    sc->ns[8] += MISS_NS; /* a burst of other work, well before the onset */
    assert_true(sc->pages[8] < 256);
    assert_true(tlb_sets_scan_onset(sc, MISS_NS));
    assert_true(fabs(sc->capacity - 256) <= 0.03 * 256);
}

static void no_onset_in_a_scan_is_undecided(void **state)
{
    (void)state;
    static struct tlb_sets s;
    stride_test(&s, 512, 4096, false);
    assert_true(tlb_sets_find_conflict(&s, TLB_SETS_MIN_STEP_NS));
    scan(&s, &s.scan[0], 16, 256);
    scan(&s, &s.scan[1], 8, 1e9); /* never misses within its range */
    tlb_sets_scan_onset(&s.scan[0], MISS_NS);
    assert_false(tlb_sets_scan_onset(&s.scan[1], MISS_NS));
    tlb_sets_conclude(&s);
    assert_int_equal(s.index, TLB_SETS_UNDECIDED);
    assert_true(isnan(s.entries));
    assert_non_null(strstr(s.why, "at stride 8 no onset of misses"));
}

static void no_stride_one_decides_nothing(void **state)
{
    (void)state;
    static struct tlb_sets s;
    stride_test(&s, 512, 4096, false);
    s.ns[0] = NAN;
    assert_false(tlb_sets_find_conflict(&s, TLB_SETS_MIN_STEP_NS));
    assert_int_equal(s.index, TLB_SETS_UNDECIDED);
    assert_string_equal(s.why, "no measurement at stride 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(n_is_a_power_of_two_past_four_first_levels),
        cmocka_unit_test(a_low_bit_index_is_sized_by_two_strides),
        cmocka_unit_test(other_sizes_are_found_too),
        cmocka_unit_test(a_hashed_index_sizes_nothing),
        cmocka_unit_test(capacities_that_do_not_scale_are_not_low_bits),
        cmocka_unit_test(one_slow_point_is_not_the_onset),
        cmocka_unit_test(no_onset_in_a_scan_is_undecided),
        cmocka_unit_test(no_stride_one_decides_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
