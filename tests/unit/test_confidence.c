/* Verdicts with a confidence: where a rate check's shortfall is PASS, FAIL or INCONCLUSIVE, how
 * the checks make the verdict, and the median and spread of a reference's K runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "src/report/report.h"
#include "src/verdict/acceptance.h"
#include "src/verdict/reference.h"

static struct report rep;
static struct run_result run;

/* A validated run of Triad at rate MB/s whose timed repetitions varied spread (a fraction, -1
 * unknown). */
static void triad_run(double rate, double spread)
{
    memset(&rep, 0, sizeof(rep));
    memset(&run, 0, sizeof(run));
    run.config.pages = "default";
    run.measured = true;
    run.validation.passed = true;
    run.backing.verified = true;
    run.backing.page_size_bytes = 4096;
    run.n_results = 1;
    run.results[0].kernel = KERNEL_TRIAD;
    run.results[0].best_rate_mbps = rate;
    run.results[0].rep_spread = spread;
}

/* Judged against Triad 10000 MB/s with tolerance tol; from a reference of K runs whose spread
 * is ref_spread (percent; < 0: none) when from_reference, else from --expect. */
static const struct acceptance_check *judge(double tol, bool from_reference, int k,
                                            double ref_spread, struct acceptance_result *a)
{
    struct expectations e = {.hugepages_2m = -1};
    e.rate_mbps[KERNEL_TRIAD] = 10000.0;
    if (from_reference) {
        e.reference_kernels = e.rated_by_reference = 1u << KERNEL_TRIAD;
        e.reference_runs = k;
        if (ref_spread >= 0) {
            e.spread_kernels = 1u << KERNEL_TRIAD;
            e.reference_spread_pct[KERNEL_TRIAD] = ref_spread;
        }
    }
    acceptance_evaluate(&(struct node_facts){rep.version, &rep.prov, &rep.topo, &rep.sys, NULL, NULL, 0}, &run, &e,
                        tol, a);
    assert_string_equal(a->checks[0].name, "Triad");
    return &a->checks[0];
}

static void at_the_floor_passes_however_noisy(void **state)
{
    (void)state;
    struct acceptance_result a;
    triad_run(7500.0, 0.60); /* exactly the floor of 10000 - 25% */
    const struct acceptance_check *c = judge(25.0, false, 0, -1, &a);
    assert_int_equal(check_state(c), CHECK_PASS);
    assert_int_equal(acceptance_verdict(&a), CHECK_PASS);
    assert_true(a.passed);
    assert_true(c->rep_spread_pct > 59.9 && c->rep_spread_pct < 60.1);
}

static void a_steady_shortfall_fails(void **state)
{
    (void)state;
    struct acceptance_result a;
    triad_run(9000.0, 0.05); /* 10% short, repetitions within the 5% tolerance */
    const struct acceptance_check *c = judge(5.0, false, 0, -1, &a);
    assert_int_equal(check_state(c), CHECK_FAIL);
    assert_int_equal(acceptance_verdict(&a), CHECK_FAIL);
    assert_string_equal(c->why, "");
    triad_run(9000.0, -1.0); /* unknown spread: judged as before */
    assert_int_equal(check_state(judge(5.0, false, 0, -1, &a)), CHECK_FAIL);
}

static void a_shortfall_within_a_noisy_spread_is_inconclusive(void **state)
{
    (void)state;
    struct acceptance_result a;
    triad_run(9000.0, 0.10); /* 10% short, repetitions varied 10% > 5%: noise explains it */
    const struct acceptance_check *c = judge(5.0, false, 0, -1, &a);
    assert_int_equal(check_state(c), CHECK_INCONCLUSIVE);
    assert_false(c->passed);
    assert_false(a.passed);
    assert_true(a.inconclusive);
    assert_int_equal(acceptance_verdict(&a), CHECK_INCONCLUSIVE);
    assert_string_equal(c->why, "Triad varied 10% across repetitions, more than the 5% tolerance");
    assert_string_equal(check_verdict_name(acceptance_verdict(&a)), "INCONCLUSIVE");
    triad_run(8990.0, 0.104); /* near the tolerance: one decimal, never "10%, more than 10%" */
    c = judge(10.0, false, 0, -1, &a);
    assert_string_equal(c->why,
                        "Triad varied 10.4% across repetitions, more than the 10% tolerance");
}

static void a_shortfall_beyond_the_spread_fails(void **state)
{
    (void)state;
    struct acceptance_result a;
    triad_run(6000.0, 0.30); /* 40% short: more than 30% of noise explains */
    assert_int_equal(check_state(judge(5.0, false, 0, -1, &a)), CHECK_FAIL);
}

static void the_reference_runs_spread_counts_only_for_its_rates(void **state)
{
    (void)state;
    struct acceptance_result a;
    triad_run(9000.0, 0.02);
    const struct acceptance_check *c = judge(5.0, true, 5, 12.0, &a);
    assert_int_equal(check_state(c), CHECK_INCONCLUSIVE);
    assert_int_equal(c->ref_runs, 5);
    assert_non_null(strstr(c->why, "the reference's own runs varied 12%, more than the 5% "
                                   "tolerance: save it on a quiet node or widen --tolerance"));
    c = judge(5.0, true, 5, 4.0, &a); /* a quiet reference: the shortfall fails */
    assert_int_equal(check_state(c), CHECK_FAIL);
    c = judge(5.0, true, 0, -1, &a); /* an older reference: no spread, judged as before */
    assert_int_equal(check_state(c), CHECK_FAIL);
    assert_true(c->from_reference);
    assert_true(c->ref_spread_pct < 0);
    c = judge(5.0, false, 0, -1, &a); /* --expect's rate: no reference spread applies */
    assert_false(c->from_reference);
    assert_int_equal(check_state(c), CHECK_FAIL);
}

static void any_failed_check_makes_the_verdict_fail(void **state)
{
    (void)state;
    struct acceptance_result a;
    triad_run(9000.0, 0.10);       /* inconclusive alone ... */
    run.validation.passed = false; /* ... beside a failed validation, which is never in doubt */
    judge(5.0, false, 0, -1, &a);
    assert_int_equal(check_state(&a.checks[0]), CHECK_INCONCLUSIVE);
    assert_false(a.inconclusive);
    assert_int_equal(acceptance_verdict(&a), CHECK_FAIL);
}

static void a_spread_equal_to_the_tolerance_is_not_above_it(void **state)
{
    (void)state;
    struct acceptance_result a;
    triad_run(7499.0, 0.25); /* just below the floor, repetitions varied exactly 25% */
    assert_int_equal(check_state(judge(25.0, false, 0, -1, &a)), CHECK_FAIL);
}

static void k_runs_give_the_median_and_the_spread(void **state)
{
    (void)state;
    static const double bests[5] = {40000.0, 52000.0, 51000.0, 80000.0, 50000.0};
    struct reference_runs k;
    memset(&k, 0, sizeof(k));
    for (int i = 0; i < 5; i++) {
        triad_run(bests[i], 0.01);
        reference_runs_add(&k, &run);
    }
    reference_runs_finish(&k);
    assert_int_equal(k.runs, 5);
    assert_true(k.median_mbps[KERNEL_TRIAD] == 51000.0);
    assert_true(k.spread[KERNEL_TRIAD] == 0.5);           /* (80000 - 40000) / 80000 */
    assert_true(k.best_mbps[KERNEL_TRIAD][3] == 80000.0); /* kept in run order */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(at_the_floor_passes_however_noisy),
        cmocka_unit_test(a_steady_shortfall_fails),
        cmocka_unit_test(a_shortfall_within_a_noisy_spread_is_inconclusive),
        cmocka_unit_test(a_shortfall_beyond_the_spread_fails),
        cmocka_unit_test(the_reference_runs_spread_counts_only_for_its_rates),
        cmocka_unit_test(any_failed_check_makes_the_verdict_fail),
        cmocka_unit_test(a_spread_equal_to_the_tolerance_is_not_above_it),
        cmocka_unit_test(k_runs_give_the_median_and_the_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
