/* --stores auto: what is measured, and how the faster store kind is chosen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "src/stream/store_choice.h"

#define STREAM4                                                                                    \
    ((1u << KERNEL_COPY) | (1u << KERNEL_SCALE) | (1u << KERNEL_ADD) | (1u << KERNEL_TRIAD))

static void forced_kinds_measure_nothing(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "nt", false, STREAM4);
    assert_int_equal(c.method, STORES_FORCED);
    store_choice_init(&c, "normal", false, STREAM4);
    assert_int_equal(c.method, STORES_FORCED);
}

static void a_reference_decides(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", true, STREAM4);
    assert_int_equal(c.method, STORES_REFERENCE);
    assert_int_equal(c.kernel_mask, 0);
}

static void auto_times_only_kernels_that_store(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, STREAM4 | (1u << KERNEL_DOT) | (1u << KERNEL_NSTREAM));
    assert_int_equal(c.method, STORES_MEASURED);
    assert_int_equal(c.kernel_mask, STREAM4 | (1u << KERNEL_NSTREAM));
    store_choice_init(&c, "auto", false, (1u << KERNEL_DOT) | (1u << KERNEL_READ));
    assert_int_equal(c.method, STORES_NOT_MEASURED);
    assert_string_equal(c.why, "no kernel of this run stores");
}

/* The ABBA order: each kind twice, one of them right after a pass of its own kind. */
static void order_is_abba(void **state)
{
    (void)state;
    assert_int_equal(store_calibration_order[0], STORES_NT);
    assert_int_equal(store_calibration_order[1], STORES_NORMAL);
    assert_int_equal(store_calibration_order[2], STORES_NORMAL);
    assert_int_equal(store_calibration_order[3], STORES_NT);
}

/* The best pass of each kind counts: one pass slowed by another process does not decide. */
static void best_pass_of_each_kind_decides(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, 1u << KERNEL_COPY);
    store_choice_record(&c, KERNEL_COPY, STORES_NT, 0.50); /* disturbed */
    store_choice_record(&c, KERNEL_COPY, STORES_NORMAL, 0.20);
    store_choice_record(&c, KERNEL_COPY, STORES_NORMAL, 0.21);
    store_choice_record(&c, KERNEL_COPY, STORES_NT, 0.10);
    /* Copy moves 2 words: 1e6 doubles = 16e6 bytes */
    store_choice_decide(&c, 1000000, TYPE_DOUBLE);
    assert_int_equal(c.chosen[KERNEL_COPY], STORES_NT);
    assert_float_equal(c.nt_mbps, 160.0, 1e-9);
    assert_float_equal(c.normal_mbps, 80.0, 1e-9);
}

/* Each kernel runs its own faster kind (Copy may prefer normal stores where Triad prefers
 * nt); the run's summary rates are bytes over summed time. */
static void each_kernel_gets_its_faster_kind(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, (1u << KERNEL_COPY) | (1u << KERNEL_TRIAD));
    store_choice_record(&c, KERNEL_COPY, STORES_NT, 0.11);
    store_choice_record(&c, KERNEL_COPY, STORES_NORMAL, 0.10);
    store_choice_record(&c, KERNEL_TRIAD, STORES_NT, 0.20);
    store_choice_record(&c, KERNEL_TRIAD, STORES_NORMAL, 0.30);
    store_choice_decide(&c, 1000000, TYPE_DOUBLE);
    assert_int_equal(c.chosen[KERNEL_COPY], STORES_NORMAL);
    assert_int_equal(c.chosen[KERNEL_TRIAD], STORES_NT);
    assert_float_equal(c.kernel_mbps[STORES_NORMAL][KERNEL_COPY], 160.0, 1e-9);
    assert_float_equal(c.kernel_mbps[STORES_NT][KERNEL_TRIAD], 120.0, 1e-9);
    assert_float_equal(c.nt_mbps, 1e-6 * 40e6 / 0.31, 1e-9);
    assert_float_equal(c.normal_mbps, 1e-6 * 40e6 / 0.40, 1e-9);
    char text[64];
    store_choice_kernels(&c, text, sizeof(text));
    assert_string_equal(text, "Copy+Triad");
}

static void a_tie_keeps_normal_stores(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, 1u << KERNEL_TRIAD);
    store_choice_record(&c, KERNEL_TRIAD, STORES_NT, 0.1);
    store_choice_record(&c, KERNEL_TRIAD, STORES_NORMAL, 0.1);
    store_choice_decide(&c, 1000, TYPE_FLOAT);
    assert_int_equal(c.chosen[KERNEL_TRIAD], STORES_NORMAL);
}

static void rounds_keep_the_fewest(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, STREAM4);
    store_choice_rounds(&c, 16);
    store_choice_rounds(&c, 3);
    store_choice_rounds(&c, 5);
    assert_int_equal(c.rounds, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forced_kinds_measure_nothing),
        cmocka_unit_test(auto_times_only_kernels_that_store),
        cmocka_unit_test(a_reference_decides),
        cmocka_unit_test(order_is_abba),
        cmocka_unit_test(best_pass_of_each_kind_decides),
        cmocka_unit_test(each_kernel_gets_its_faster_kind),
        cmocka_unit_test(a_tie_keeps_normal_stores),
        cmocka_unit_test(rounds_keep_the_fewest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
