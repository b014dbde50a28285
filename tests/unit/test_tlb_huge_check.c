/* The TLB probe reports a 2 MB result only for a region smaps shows on 2 MB pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/tlb/tlb_huge_check.h"

static char why[300];

static void unreadable_smaps_is_not_a_2mb_result(void **state)
{
    (void)state;
    struct backing_info b = {0}; /* what backing_verify leaves when smaps cannot be read */
    snprintf(b.mismatch, sizeof(b.mismatch),
             "--pages thp: cannot verify the pages: /proc/self/smaps is unreadable or has no "
             "entry for the arrays");
    assert_int_equal(tlb_huge_confirmed(&b, 0.9, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "cannot be verified"));
    assert_non_null(strstr(why, "smaps is unreadable"));
    assert_null(strstr(why, "pages0"));
    memset(&b, 0, sizeof(b));
    assert_int_equal(tlb_huge_confirmed(&b, 0.99, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "cannot be verified"));
}

static void verified_huge_pages_pass(void **state)
{
    (void)state;
    struct backing_info thp = {.verified = true, .thp_fraction = 1.0, .page_size_bytes = 2u << 20};
    assert_int_equal(tlb_huge_confirmed(&thp, 0.99, why, sizeof(why)), 0);
    struct backing_info hugetlb = {
        .verified = true, .hugetlb_bytes = 128u << 20, .page_size_bytes = 2u << 20};
    assert_int_equal(tlb_huge_confirmed(&hugetlb, 0.99, why, sizeof(why)), 0);
}

static void partial_thp_is_refused(void **state)
{
    (void)state;
    struct backing_info b = {.verified = true, .thp_fraction = 0.5, .page_size_bytes = 4096};
    assert_int_equal(tlb_huge_confirmed(&b, 0.9, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "only 50% of the region came on 2 MB pages"));
    b.thp_fraction = 0.95;
    assert_int_equal(tlb_huge_confirmed(&b, 0.9, why, sizeof(why)), 0);
    assert_int_equal(tlb_huge_confirmed(&b, 0.99, why, sizeof(why)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unreadable_smaps_is_not_a_2mb_result),
        cmocka_unit_test(verified_huge_pages_pass),
        cmocka_unit_test(partial_thp_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
