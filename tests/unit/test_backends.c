/* ctest: LABELS hugetlb */
/* The backends on this machine: lengths rounded to the page size, alignment, and what
 * /proc/self/smaps says after touching; that alloc() touches nothing and leaves the advice
 * in place. Backings this machine cannot give are skipped. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "hugepages/backend.h"

#define MIB (1ull << 20)

/* Under qemu-user (MEMBENCH_TEST_EMULATED, set by a cross build's tests) mmap refuses
 * MAP_HUGETLB and madvise() is accepted but not passed on: those checks cannot run there. */
static bool emulation_lacks(const char *name)
{
    if (!getenv("MEMBENCH_TEST_EMULATED")) return false;
    if (strcmp(name, "2m") == 0 || strcmp(name, "1g") == 0) {
        printf("skipped %s: qemu-user's mmap refuses MAP_HUGETLB\n", name);
        return true;
    }
    if (strcmp(name, "madvise") == 0) {
        printf("skipped the VmFlags checks: qemu-user does not pass madvise() on\n");
        return true;
    }
    return false;
}

/* Allocates bytes, touches every page, verifies; returns the region still mapped. */
static int alloc_touch_verify(const char *name, size_t bytes, struct mem_region *r,
                              struct backing_info *info)
{
    const struct mem_backend *b = mem_backend_find(name);
    assert_non_null(b);
    char why[600];
    if (emulation_lacks(name)) return -1;
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

/* Pages of [base, base + bytes) resident now, by mincore(). */
static size_t resident_pages(void *base, size_t bytes)
{
    size_t pages = bytes / 4096, in = 0;
    unsigned char *vec = malloc(pages);
    assert_non_null(vec);
    assert_int_equal(mincore(base, bytes, vec), 0);
    for (size_t i = 0; i < pages; i++)
        in += vec[i] & 1;
    free(vec);
    return in;
}

/* Whether the smaps entry holding addr has the VmFlags flag ("hg": MADV_HUGEPAGE, "nh":
 * MADV_NOHUGEPAGE). */
static bool has_vmflag(void *addr, const char *flag)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    assert_non_null(f);
    char line[512], want[8];
    snprintf(want, sizeof(want), " %s", flag);
    bool inside = false, found = false;
    while (fgets(line, sizeof(line), f)) {
        uintptr_t lo, hi;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && strchr(line, ' ') &&
            strchr(line, '-') < strchr(line, ' '))
            inside = lo <= (uintptr_t)addr && (uintptr_t)addr < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            line[strcspn(line, "\n")] = ' ';
            const char *hit = strstr(line, want);
            found = hit && hit[strlen(want)] == ' '; /* a whole flag, not a prefix */
            break;
        }
    }
    fclose(f);
    return found;
}

/* alloc() maps but never touches: the fault probe counts the first-touch faults itself, and
 * the STREAM arrays are first touched by the threads that use them. The advice is in place. */
static void alloc_leaves_pages_untouched(void **state)
{
    (void)state;
    static const char *const names[] = {"4k", "default", "thp", "2m"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const struct mem_backend *b = mem_backend_find(names[i]);
        char why[600];
        size_t bytes = 8 * MIB;
        if (emulation_lacks(names[i])) continue;
        if (b->probe(&mem_env_system, bytes, why, sizeof(why)) != 0) {
            printf("skipped %s: %s\n", names[i], why);
            continue;
        }
        struct mem_region r = {0};
        if (b->alloc(&r, bytes, why, sizeof(why)) != 0) fail_msg("%s: %s", names[i], why);
        assert_int_equal(r.bytes, bytes);
        if (resident_pages(r.base, r.bytes) != 0) fail_msg("%s: alloc() touched pages", names[i]);
        bool flags = !emulation_lacks("madvise");
        if (flags && strcmp(names[i], "4k") == 0) assert_true(has_vmflag(r.base, "nh"));
        if (flags && strcmp(names[i], "thp") == 0) {
            assert_int_equal((uintptr_t)r.base % (2 * MIB), 0);
            assert_true(has_vmflag(r.base, "hg"));
            assert_false(has_vmflag(r.base, "nh"));
        }
        b->release(&r);
    }
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
        cmocka_unit_test(alloc_leaves_pages_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
