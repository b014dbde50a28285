/* The spread of the threads' finish times: what a repetition loses waiting for its last thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "src/stream/finish_spread.h"

static void latest_minus_earliest(void **state)
{
    (void)state;
    double finish[] = {0.0105, 0.0102, 0.0131, 0.0110};
    assert_float_equal(finish_spread(finish, 4), 0.0029, 1e-12);
}

static void one_thread_has_no_spread(void **state)
{
    (void)state;
    double finish[] = {0.5};
    assert_float_equal(finish_spread(finish, 1), 0.0, 0.0);
}

/* The warm-up repetition (index 0) is left out, as for the rates. */
static void median_skips_the_warm_up(void **state)
{
    (void)state;
    double spreads[] = {9.0, 0.003, 0.001, 0.002};
    assert_float_equal(finish_spread_median(spreads, 4), 0.002, 1e-12);
    double even[] = {9.0, 0.004, 0.001, 0.002, 0.003};
    assert_float_equal(finish_spread_median(even, 5), 0.0025, 1e-12);
    double only[] = {0.007};
    assert_float_equal(finish_spread_median(only, 1), 0.007, 0.0);
    assert_float_equal(finish_spread_median(only, 0), 0.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latest_minus_earliest),
        cmocka_unit_test(one_thread_has_no_spread),
        cmocka_unit_test(median_skips_the_warm_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
