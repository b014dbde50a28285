/* warnings_add: the one way a run's result collects its warnings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "src/base/warnings.h"

struct result {
    int n_warnings;
    char warnings[3][12];
};

static void appends_in_order(void **state)
{
    (void)state;
    struct result r = {0};
    WARNINGS_ADD(&r, "first %d", 1);
    WARNINGS_ADD(&r, "%s", "second");
    assert_int_equal(r.n_warnings, 2);
    assert_string_equal(r.warnings[0], "first 1");
    assert_string_equal(r.warnings[1], "second");
    assert_string_equal(r.warnings[2], "");
}

static void cuts_a_long_line(void **state)
{
    (void)state;
    struct result r = {0};
    WARNINGS_ADD(&r, "%s", "0123456789abcdef");
    assert_int_equal(r.n_warnings, 1);
    assert_string_equal(r.warnings[0], "0123456789a");
}

static void drops_past_the_table(void **state)
{
    (void)state;
    struct result r = {0};
    for (int i = 0; i < 5; i++)
        WARNINGS_ADD(&r, "w%d", i);
    assert_int_equal(r.n_warnings, 3);
    assert_string_equal(r.warnings[2], "w2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appends_in_order),
        cmocka_unit_test(cuts_a_long_line),
        cmocka_unit_test(drops_past_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
