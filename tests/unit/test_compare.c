/* A/B of page backings: which runs are paired and the relative change per kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/stream/stream_result.h"
#include "src/stream/compare.h"

static void make_run(struct run_result *r, const char *pages, unsigned threads, double scale)
{
    memset(r, 0, sizeof(*r));
    r->config.pages = pages;
    r->config.threads = threads;
    snprintf(r->config.bind, sizeof(r->config.bind), "none");
    r->config.stores = "normal";
    r->config.elements = 1000000;
    r->config.ntimes = 5;
    r->config.kernel_mask = KERNEL_MASK_ALL;
    r->measured = true;
    r->validation.passed = true;
    r->backing.verified = true;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        r->results[r->n_results].kernel = (enum kernel_id)k;
        r->results[r->n_results++].best_rate_mbps = 1000.0 * (k + 1) * scale;
    }
}

static void pairs_otherwise_identical_runs(void **state)
{
    (void)state;
    /* --threads 1,2 --pages 4k,2m: the plan puts the page loop outside the thread loop */
    struct run_result runs[4];
    make_run(&runs[0], "4k", 1, 1.0);
    make_run(&runs[1], "4k", 2, 2.0);
    make_run(&runs[2], "2m", 1, 1.05);
    make_run(&runs[3], "2m", 2, 1.8);
    struct stream_result rep = {.runs = runs, .n_runs = 4};
    assert_int_equal(
        compare_pages(rep.runs, rep.n_runs, "4k", &rep.comparisons, &rep.n_comparisons), 0);
    assert_int_equal(rep.n_comparisons, 2 * KERNEL_COUNT);
    for (size_t i = 0; i < rep.n_comparisons; i++) {
        const struct page_comparison *c = &rep.comparisons[i];
        assert_int_equal(runs[c->baseline].config.threads, runs[c->variant].config.threads);
        assert_string_equal(runs[c->baseline].config.pages, "4k");
        assert_string_equal(runs[c->variant].config.pages, "2m");
        double want = c->variant == 2 ? 0.05 : -0.1;
        assert_true(fabs(c->relative_change - want) < 1e-12);
    }
    assert_int_equal(rep.comparisons[0].kernel, KERNEL_COPY);
    assert_int_equal(rep.comparisons[KERNEL_COUNT - 1].kernel, KERNEL_COUNT - 1);
    compare_free(&rep.comparisons, &rep.n_comparisons);
    assert_null(rep.comparisons);
}

static void failed_runs_are_not_compared(void **state)
{
    (void)state;
    struct run_result runs[3];
    make_run(&runs[0], "4k", 2, 1.0);
    make_run(&runs[1], "2m", 2, 1.1);
    make_run(&runs[2], "thp", 2, 1.1);
    snprintf(runs[1].backing.mismatch, sizeof(runs[1].backing.mismatch), "smaps shows 4 KiB");
    runs[2].validation.passed = false;
    struct stream_result rep = {.runs = runs, .n_runs = 3};
    assert_int_equal(
        compare_pages(rep.runs, rep.n_runs, "4k", &rep.comparisons, &rep.n_comparisons), 0);
    assert_int_equal(rep.n_comparisons, 0);
    compare_free(&rep.comparisons, &rep.n_comparisons);

    runs[0].validation.passed = false; /* no usable baseline either */
    runs[2].validation.passed = true;
    assert_int_equal(
        compare_pages(rep.runs, rep.n_runs, "4k", &rep.comparisons, &rep.n_comparisons), 0);
    assert_int_equal(rep.n_comparisons, 0);
    compare_free(&rep.comparisons, &rep.n_comparisons);
}

static void baseline_is_the_first_value(void **state)
{
    (void)state;
    struct run_result runs[2];
    make_run(&runs[0], "thp", 2, 1.0);
    make_run(&runs[1], "4k", 2, 0.5);
    struct stream_result rep = {.runs = runs, .n_runs = 2};
    assert_int_equal(
        compare_pages(rep.runs, rep.n_runs, "thp", &rep.comparisons, &rep.n_comparisons),
        0); /* the baseline is the first value */
    assert_int_equal(rep.n_comparisons, KERNEL_COUNT);
    assert_int_equal(rep.comparisons[0].baseline, 0);
    assert_int_equal(rep.comparisons[0].variant, 1);
    assert_true(fabs(rep.comparisons[0].relative_change + 0.5) < 1e-12);
    compare_free(&rep.comparisons, &rep.n_comparisons);

    runs[1].config.elements = 2000000; /* a different size is not an A/B */
    assert_int_equal(
        compare_pages(rep.runs, rep.n_runs, "thp", &rep.comparisons, &rep.n_comparisons), 0);
    assert_int_equal(rep.n_comparisons, 0);
    compare_free(&rep.comparisons, &rep.n_comparisons);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pairs_otherwise_identical_runs),
        cmocka_unit_test(failed_runs_are_not_compared),
        cmocka_unit_test(baseline_is_the_first_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
