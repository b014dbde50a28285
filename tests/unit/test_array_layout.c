/* Array byte counts: exact where they fit, refused where 64 bits would wrap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "src/stream/array_layout.h"

#define MiB2 (2ull << 20)

static void layout_of_ordinary_arrays(void **state)
{
    (void)state;
    struct array_layout l;
    assert_int_equal(array_layout(1000000, 8, 0, MiB2, &l), 0);
    assert_int_equal(l.array_bytes, 8000000);
    assert_int_equal(l.total_bytes, 24000000);
    assert_int_equal(l.stride_bytes, 4 * MiB2); /* 8 000 000 rounded up to 2 MiB */
    assert_int_equal(l.region_bytes, 12 * MiB2);
    assert_int_equal(array_layout(1000, 4, 3, MiB2, &l), 0);
    assert_int_equal(l.array_bytes, 4000);
    assert_int_equal(l.total_bytes, 12000 + 36);
    assert_int_equal(l.stride_bytes, MiB2);
}

static void layout_refuses_what_wraps(void **state)
{
    (void)state;
    struct array_layout l;
    assert_int_equal(array_layout(UINT64_MAX / 8 + 1, 8, 0, MiB2, &l), -1);  /* one array */
    assert_int_equal(array_layout(UINT64_MAX / 16, 8, 0, MiB2, &l), -1);     /* three of them */
    assert_int_equal(array_layout(UINT64_MAX / 24 - 1, 8, 0, MiB2, &l), -1); /* 2 MiB rounding */
    assert_int_equal(array_layout(1, 8, UINT64_MAX / 8, MiB2, &l), -1);      /* the offsets */
    assert_int_equal(array_layout(1, 8, 0, 0, &l), -1);
    /* the largest that fits still fits */
    assert_int_equal(array_layout((1ull << 61) / 8, 8, 0, MiB2, &l), 0);
    assert_int_equal(l.region_bytes, 3ull << 61);
}

static void llc_rule(void **state)
{
    (void)state;
    uint64_t n;
    assert_int_equal(llc_rule_elements(32ull << 20, 4, 8, 1000000, &n), 0);
    assert_int_equal(n, (128ull << 20) / 8);
    assert_int_equal(llc_rule_elements(1000, 4, 8, 1000000, &n), 0);
    assert_int_equal(n, 1000000); /* the STREAM minimum */
    assert_int_equal(llc_rule_elements(1000001, 4, 8, 1, &n), 0);
    assert_int_equal(n, 500001); /* rounded up: never below 4x */
    assert_int_equal(llc_rule_elements(UINT64_MAX, 4, 8, 1, &n), -1);
    assert_int_equal(llc_rule_elements(1ull << 62, 4, 8, 1, &n), -1);
    assert_int_equal(llc_rule_elements(1, 4, 0, 1, &n), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_of_ordinary_arrays),
        cmocka_unit_test(layout_refuses_what_wraps),
        cmocka_unit_test(llc_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
