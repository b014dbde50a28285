/* HWLOC_SYNTHETIC sizes, read before hwloc builds (and hangs on) a huge machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "affinity/topology.h"

static void products_of_the_arities(void **state)
{
    (void)state;
    assert_int_equal(synthetic_pus("pack:2 core:4 pu:2"), 16);
    assert_int_equal(synthetic_pus("2 3 4"), 24);
    assert_int_equal(synthetic_pus("  Package:2  L3Cache:1(size=33554432) Core:8 PU:2 "), 32);
    assert_int_equal(synthetic_pus("pack:1 l3:1(size=18446744073709551615) core:2 pu:1"), 2);
    /* memory children in brackets add no PUs */
    assert_int_equal(synthetic_pus("pack:2 [numa(memory=1GB)] core:2 pu:2"), 8);
    assert_int_equal(synthetic_pus("pack:1000 core:1000 pu:1000"), 1000000000);
}

static void beyond_64_bits(void **state)
{
    (void)state;
    assert_true(synthetic_pus("pack:99999999999999999999 pu:1") == UINT64_MAX);
    assert_true(synthetic_pus("pack:4294967296 core:4294967296 pu:2") == UINT64_MAX);
}

static void left_to_hwloc(void **state)
{
    (void)state;
    assert_int_equal(synthetic_pus(""), 0);
    assert_int_equal(synthetic_pus("   "), 0);
    assert_int_equal(synthetic_pus("pack:x pu:2"), 0);
    assert_int_equal(synthetic_pus("pack: pu:2"), 0);
    assert_int_equal(synthetic_pus("nonsense"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(products_of_the_arities),
        cmocka_unit_test(beyond_64_bits),
        cmocka_unit_test(left_to_hwloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
