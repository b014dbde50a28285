/* HUGETLB_MORECORE and GLIBC_TUNABLES: which page backing they ask for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hugepages/heap_env.h"
#include "src/sys/sysinfo.h"

#define MIB (1ull << 20)

static const char *pages_for(const char *value, uint64_t default_bytes)
{
    const char *pages = "unset";
    assert_int_equal(morecore_pages(value, default_bytes, &pages), 0);
    return pages;
}

static void morecore_values(void **state)
{
    (void)state;
    assert_null(pages_for(NULL, 2 * MIB));
    assert_null(pages_for("", 2 * MIB));
    assert_null(pages_for("no", 2 * MIB));
    assert_string_equal(pages_for("yes", 2 * MIB), "2m");
    assert_string_equal(pages_for("YES", 0), "2m"); /* unknown default: 2 MiB */
    assert_string_equal(pages_for("y", 2 * MIB), "2m");
    assert_string_equal(pages_for("yes", 1024 * MIB), "1g"); /* default_hugepagesz=1G */
    assert_string_equal(pages_for("thp", 2 * MIB), "thp");
    assert_string_equal(pages_for("2M", 2 * MIB), "2m");
    assert_string_equal(pages_for("2MB", 2 * MIB), "2m");
    assert_string_equal(pages_for("2048k", 2 * MIB), "2m");
    assert_string_equal(pages_for("2097152", 2 * MIB), "2m");
    assert_string_equal(pages_for("1G", 2 * MIB), "1g");
    assert_string_equal(pages_for("1gb", 2 * MIB), "1g");
}

static void morecore_bad_values(void **state)
{
    (void)state;
    const char *bad[] = {"maybe", "3M", "2Mx", "-2M", "M", "64k", "1T"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *pages = "unset";
        if (morecore_pages(bad[i], 2 * MIB, &pages) != -1) fail_msg("'%s' accepted", bad[i]);
    }
}

static void malloc_tunable(void **state)
{
    (void)state;
    char v[32];
    assert_int_equal(glibc_tunable("glibc.malloc.hugetlb=1", "glibc.malloc.hugetlb", v, 32), 0);
    assert_string_equal(v, "1");
    assert_int_equal(glibc_tunable("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2:x.y=3",
                                   "glibc.malloc.hugetlb", v, sizeof(v)),
                     0);
    assert_string_equal(v, "2");
    assert_int_equal(glibc_tunable("glibc.malloc.hugetlbx=1", "glibc.malloc.hugetlb", v, 32), -1);
    assert_int_equal(glibc_tunable("", "glibc.malloc.hugetlb", v, sizeof(v)), -1);
    assert_int_equal(glibc_tunable(NULL, "glibc.malloc.hugetlb", v, sizeof(v)), -1);

    assert_string_equal(malloc_hugetlb_pages("1", 2 * MIB), "thp");
    assert_string_equal(malloc_hugetlb_pages("2", 2 * MIB), "2m");
    assert_null(malloc_hugetlb_pages("0", 2 * MIB));
    assert_null(malloc_hugetlb_pages("7", 2 * MIB));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(morecore_values),
        cmocka_unit_test(morecore_bad_values),
        cmocka_unit_test(malloc_tunable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
