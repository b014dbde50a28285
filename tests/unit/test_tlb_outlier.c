/* Threads of the TLB probe that differ: the outlier is named against the documented size, else
 * against the other threads' median; two undocumented threads that disagree name nobody. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/tlb/tlb_levels.h"
#include "src/tlb/tlb_outlier.h"

static bool out[4];
static double ref[4];

static void two_undocumented_threads_name_nobody(void **state)
{
    (void)state;
    const double v[2] = {1536, 2048};
    assert_int_equal(tlb_outliers(v, 2, 0, 0.125, 0, out, ref), TLB_OUTLIERS_UNDECIDED);
    assert_false(out[0]);
    assert_false(out[1]);
}

static void the_documented_size_names_the_outlier(void **state)
{
    (void)state;
    const double v[2] = {1536, 2048};
    assert_int_equal(tlb_outliers(v, 2, 2048, 0.125, 0, out, ref), TLB_OUTLIERS_DOCUMENTED);
    assert_true(out[0]);
    assert_false(out[1]);
    assert_true(ref[0] == 2048);
    /* the other way round: the thread off the documentation is the one named */
    assert_int_equal(tlb_outliers(v, 2, 1536, 0.125, 0, out, ref), TLB_OUTLIERS_DOCUMENTED);
    assert_false(out[0]);
    assert_true(out[1]);
}

static void three_threads_name_the_one_off_the_median(void **state)
{
    (void)state;
    const double v[3] = {2048, 1400, 2040};
    assert_int_equal(tlb_outliers(v, 3, 0, 0.125, 0, out, ref), TLB_OUTLIERS_MEDIAN);
    assert_false(out[0]);
    assert_true(out[1]);
    assert_false(out[2]);
    assert_true(ref[1] == 2040); /* the threads' median */
    /* two against two: no majority to call normal */
    const double split[4] = {2048, 1400, 2040, 1410};
    assert_int_equal(tlb_outliers(split, 4, 0, 0.125, 0, out, ref), TLB_OUTLIERS_UNDECIDED);
    assert_false(out[0] || out[1] || out[2] || out[3]);
}

static void agreeing_threads_are_not_flagged(void **state)
{
    (void)state;
    /* both 20% under the documented size, but alike: a shared bias, not a thread's */
    const double v[2] = {2460, 2530};
    assert_int_equal(tlb_outliers(v, 2, 3072, 0.125, 0, out, ref), TLB_OUTLIERS_AGREE);
    assert_false(out[0] || out[1]);
    /* costs 50% apart but under the absolute floor */
    const double ns[3] = {0.2, 0.3, 0.2};
    assert_int_equal(tlb_outliers(ns, 3, 0, 0.25, 0.5, out, ref), TLB_OUTLIERS_AGREE);
}

static void unknown_values_are_left_out(void **state)
{
    (void)state;
    const double v[3] = {1536, NAN, 2048};
    assert_int_equal(tlb_outliers(v, 3, 0, 0.125, 0, out, ref), TLB_OUTLIERS_UNDECIDED);
    assert_false(out[0] || out[1] || out[2]);
    const double one[3] = {NAN, 2048, NAN};
    assert_int_equal(tlb_outliers(one, 3, 0, 0.125, 0, out, ref), TLB_OUTLIERS_AGREE);
}

static struct tlb_thread_result threads[2];

static void two_threads(double l2_a, double l2_b, unsigned documented, struct tlb_result *r)
{
    memset(threads, 0, sizeof(threads));
    memset(r, 0, sizeof(*r));
    const double l2[2] = {l2_a, l2_b};
    for (int t = 0; t < 2; t++) {
        struct knee_analysis *a = &threads[t].small.analysis;
        threads[t].thread = t;
        threads[t].pu = 2 * t + 1;
        a->n_levels = 2;
        a->levels[0] = (struct knee_level){
            .name = "L1 DTLB", .entries = 64, .hit_ns = 1.2, .miss_penalty_ns = 2.5};
        a->levels[1] = (struct knee_level){
            .name = "L2 TLB", .entries = l2[t], .hit_ns = NAN, .miss_penalty_ns = 9.0};
        threads[t].small.documented[1] = documented;
    }
    r->n_threads = 2;
    r->per_thread = threads;
}

static void the_report_names_the_outlier_and_its_pu(void **state)
{
    (void)state;
    struct tlb_result r;
    two_threads(2048, 1536, 2048, &r);
    tlb_compare_threads(&r);
    assert_int_equal(r.n_differ, 1);
    assert_false(threads[0].differs);
    assert_true(threads[1].differs);
    assert_string_equal(threads[1].differs_from, "documented");
    assert_string_equal(threads[1].why_differs, "L2 TLB: 1536 entries, documented 2048");
    assert_string_equal(r.differ_note, "Outlier: thread 1 (PU 3): L2 TLB: 1536 entries, "
                                       "documented 2048");
}

static void the_report_says_when_neither_can_be_named(void **state)
{
    (void)state;
    struct tlb_result r;
    two_threads(2048, 1536, 0, &r);
    tlb_compare_threads(&r);
    assert_int_equal(r.n_differ, 0);
    assert_false(threads[0].differs || threads[1].differs);
    assert_non_null(strstr(r.differ_note, "thread 0 (PU 1): 2048, thread 1 (PU 3): 1536"));
    assert_non_null(strstr(r.differ_note, "neither can be named"));
    two_threads(2048, 2040, 0, &r);
    tlb_compare_threads(&r);
    assert_int_equal(r.n_differ, 0);
    assert_string_equal(r.differ_note, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_undocumented_threads_name_nobody),
        cmocka_unit_test(the_documented_size_names_the_outlier),
        cmocka_unit_test(three_threads_name_the_one_off_the_median),
        cmocka_unit_test(agreeing_threads_are_not_flagged),
        cmocka_unit_test(unknown_values_are_left_out),
        cmocka_unit_test(the_report_names_the_outlier_and_its_pu),
        cmocka_unit_test(the_report_says_when_neither_can_be_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
