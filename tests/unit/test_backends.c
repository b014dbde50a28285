/* The backends on this machine: lengths rounded to the page size, alignment, and what
 * /proc/self/smaps says after touching. Backings this machine cannot give are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "hugepages/backend.h"

#define MIB (1ull << 20)

/* Allocates bytes, touches every page, verifies; returns the region still mapped. */
static int alloc_touch_verify(const char *name, size_t bytes, struct mem_region *r,
                              struct backing_info *info)
{
    const struct mem_backend *b = mem_backend_find(name);
    assert_non_null(b);
    char why[600];
    if (b->probe(&mem_env_system, bytes, why, sizeof(why)) != 0) {
        printf("skipped %s: %s\n", name, why);
        return -1;
    }
    memset(r, 0, sizeof(*r));
    if (b->alloc(r, bytes, why, sizeof(why)) != 0) fail_msg("%s: %s", name, why);
    memset(r->base, 1, r->bytes);
    backing_verify("/proc/self/smaps", b, (uintptr_t)r->base, (uintptr_t)r->base + r->bytes, r->how,
                   info);
    return 0;
}

static void release(const char *name, struct mem_region *r)
{
    mem_backend_find(name)->release(r);
    assert_null(r->base);
    assert_int_equal(r->bytes, 0);
}

static void small_pages(void **state)
{
    (void)state;
    struct mem_region r;
    struct backing_info info;
    assert_int_equal(alloc_touch_verify("4k", 5000, &r, &info), 0);
    assert_int_equal(r.bytes, 8192);
    assert_true(info.verified);
    assert_int_equal(info.page_size_bytes, 4096);
    assert_int_equal(info.anon_huge_bytes, 0);
    assert_string_equal(info.how, "anonymous mmap + MADV_NOHUGEPAGE");
    release("4k", &r);

    assert_int_equal(alloc_touch_verify("4k", 16 * MIB, &r, &info), 0);
    assert_true(info.verified); /* MADV_NOHUGEPAGE holds even where THP is "always" */
    release("4k", &r);

    assert_int_equal(alloc_touch_verify("default", 3 * MIB, &r, &info), 0);
    assert_true(info.verified);
    release("default", &r);
}

static void transparent_huge_pages(void **state)
{
    (void)state;
    struct mem_region r;
    struct backing_info info;
    if (alloc_touch_verify("thp", 1, &r, &info) != 0) skip();
    assert_int_equal(r.bytes, 2 * MIB);
    assert_int_equal((uintptr_t)r.base % (2 * MIB), 0);
    assert_true(info.verified);
    assert_true(info.thp_fraction >= 0.0 && info.thp_fraction <= 1.0);
    if (info.thp_fraction == 1.0) assert_int_equal(info.page_size_bytes, 2 * MIB);
    release("thp", &r);
}

static void hugetlb_2m(void **state)
{
    (void)state;
    struct mem_region r;
    struct backing_info info;
    if (alloc_touch_verify("2m", 1, &r, &info) != 0) skip();
    assert_int_equal(r.bytes, 2 * MIB);
    assert_true(info.verified);
    assert_int_equal(info.page_size_bytes, 2 * MIB);
    assert_int_equal(info.hugetlb_bytes, 2 * MIB);
    assert_true(strstr(info.how, "MAP_HUGETLB") || strstr(info.how, "get_huge_pages"));
    release("2m", &r);
}

static void hugetlb_1g(void **state)
{
    (void)state;
    struct mem_region r;
    struct backing_info info;
    if (alloc_touch_verify("1g", 1, &r, &info) != 0) skip();
    assert_int_equal(r.bytes, 1024 * MIB);
    assert_true(info.verified);
    assert_int_equal(info.page_size_bytes, 1024 * MIB);
    release("1g", &r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_pages),
        cmocka_unit_test(transparent_huge_pages),
        cmocka_unit_test(hugetlb_2m),
        cmocka_unit_test(hugetlb_1g),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
