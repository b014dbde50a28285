/* The machine's page sizes at 4, 16 and 64 KB base pages, from injected /sys and /proc trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/scratch_tree.h"

#include "hugepages/backend.h"
#include "hugepages/pool.h"
#include "src/base/page_sizes.h"

static char root[64];

static int setup(void **state)
{
    (void)state;
    return scratch_make(root, sizeof(root), "pages");
}

static int teardown(void **state)
{
    (void)state;
    page_sizes_inject(0, NULL, NULL);
    return scratch_remove(root);
}

/* A kernel tree: the hugetlb pools of sizes_kb (0-terminated), hpage_pmd_size (0: absent) and a
 * meminfo whose Hugepagesize is default_kb (0: no such line). */
static void tree(uint64_t base, const unsigned *sizes_kb, uint64_t pmd, unsigned default_kb)
{
    char path[256], text[64];
    scratch_remove(root);
    scratch_dirs(root);
    snprintf(path, sizeof(path), "%s/sys/kernel/mm/transparent_hugepage", root);
    scratch_dirs(path);
    if (pmd) {
        snprintf(path, sizeof(path), "%s/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", root);
        snprintf(text, sizeof(text), "%llu\n", (unsigned long long)pmd);
        scratch_write(path, text);
    }
    for (const unsigned *kb = sizes_kb; *kb; kb++) {
        snprintf(path, sizeof(path), "%s/sys/kernel/mm/hugepages/hugepages-%ukB", root, *kb);
        scratch_dirs(path);
    }
    snprintf(path, sizeof(path), "%s/meminfo", root);
    snprintf(text, sizeof(text), "MemTotal: 1000 kB\n");
    if (default_kb)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "Hugepagesize: %u kB\n",
                 default_kb);
    scratch_write(path, text);
    static char sys[128], meminfo[128];
    snprintf(sys, sizeof(sys), "%s/sys", root);
    snprintf(meminfo, sizeof(meminfo), "%s/meminfo", root);
    page_sizes_inject(base, sys, meminfo);
}

static void formatter(void **state)
{
    (void)state;
    char buf[PAGE_TEXT_LEN];
    assert_string_equal(page_size_text(4096, buf), "4 KB");
    assert_string_equal(page_size_text(16384, buf), "16 KB");
    assert_string_equal(page_size_text(65536, buf), "64 KB");
    assert_string_equal(page_size_text(2ull << 20, buf), "2 MB");
    assert_string_equal(page_size_text(32ull << 20, buf), "32 MB");
    assert_string_equal(page_size_text(512ull << 20, buf), "512 MB");
    assert_string_equal(page_size_text(1ull << 30, buf), "1 GB");
    assert_string_equal(page_size_text(16ull << 30, buf), "16 GB");
    assert_string_equal(page_size_text(1536ull << 10, buf), "1536 KB");
    assert_string_equal(page_size_text(100, buf), "100 B");
    assert_string_equal(page_size_iec(2ull << 20, buf), "2 MiB");
    assert_string_equal(page_size_iec(65536, buf), "64 KiB");
}

static void x86_4k(void **state)
{
    (void)state;
    static const unsigned sizes[] = {1048576, 2048, 0};
    tree(4096, sizes, 2097152, 2048);
    char text[128];
    uint64_t got[4];
    assert_int_equal(page_base_bytes(), 4096);
    assert_int_equal(page_pmd_bytes(), 2ull << 20);
    assert_int_equal(page_huge_default_bytes(), 2ull << 20);
    assert_int_equal(page_huge_sizes(NULL, got, 4), 2);
    assert_int_equal(got[0], 2ull << 20);
    assert_int_equal(got[1], 1ull << 30);
    page_huge_sizes_text(NULL, text, sizeof(text));
    assert_string_equal(text, "2 MB, 1 GB");
    assert_true(page_huge_size_offered(NULL, PAGE_2M));
    assert_false(page_huge_size_offered(NULL, 64 << 10));
}

/* arm64 with 4 KB pages: the contiguous-bit sizes 64 KB and 32 MB are pools too. */
static void arm64_4k(void **state)
{
    (void)state;
    static const unsigned sizes[] = {64, 2048, 32768, 1048576, 0};
    tree(4096, sizes, 0, 2048);
    char text[128];
    assert_int_equal(page_pmd_bytes(), 2ull << 20);
    page_huge_sizes_text(NULL, text, sizeof(text));
    assert_string_equal(text, "64 KB, 2 MB, 32 MB, 1 GB");
}

static void arm64_16k(void **state)
{
    (void)state;
    static const unsigned sizes[] = {2048, 32768, 1048576, 0};
    tree(16384, sizes, 0, 32768);
    char text[128];
    assert_int_equal(page_base_bytes(), 16384);
    assert_int_equal(page_pmd_bytes(), 32ull << 20);
    assert_int_equal(page_huge_default_bytes(), 32ull << 20);
    page_huge_sizes_text(NULL, text, sizeof(text));
    assert_string_equal(text, "2 MB, 32 MB, 1 GB");
}

static void arm64_64k(void **state)
{
    (void)state;
    static const unsigned sizes[] = {16777216, 2048, 524288, 0};
    tree(65536, sizes, 536870912, 524288);
    char text[128], one[PAGE_TEXT_LEN];
    assert_int_equal(page_base_bytes(), 65536);
    assert_string_equal(page_size_text(page_base_bytes(), one), "64 KB");
    assert_int_equal(page_pmd_bytes(), 512ull << 20);
    assert_int_equal(page_huge_default_bytes(), 512ull << 20);
    page_huge_sizes_text(NULL, text, sizeof(text));
    assert_string_equal(text, "2 MB, 512 MB, 16 GB");
    assert_true(page_huge_size_offered(NULL, PAGE_2M));
    assert_false(page_huge_size_offered(NULL, PAGE_1G));
}

/* No hpage_pmd_size, no Hugepagesize line, no pools: the PMD size follows from the base page. */
static void nothing_there(void **state)
{
    (void)state;
    static const unsigned none[] = {0};
    char text[32];
    uint64_t got[1];
    tree(65536, none, 0, 0);
    assert_int_equal(page_pmd_bytes(), 512ull << 20);
    assert_int_equal(page_huge_default_bytes(), 512ull << 20);
    assert_int_equal(page_huge_sizes(NULL, got, 1), 0);
    page_huge_sizes_text(NULL, text, sizeof(text));
    assert_string_equal(text, "none");
    tree(16384, none, 0, 0);
    assert_int_equal(page_pmd_bytes(), 32ull << 20);
}

/* The 4k and thp backings take the base page and the PMD size; 2m and 1g keep their sizes. */
static void backends_at_64k(void **state)
{
    (void)state;
    static const unsigned sizes[] = {2048, 524288, 16777216, 0};
    tree(65536, sizes, 536870912, 524288);
    assert_int_equal(mem_backend_find("4k")->page_bytes, 65536);
    assert_int_equal(mem_backend_find("thp")->page_bytes, 512ull << 20);
    assert_string_equal(mem_backend_find("thp")->how,
                        "512 MiB-aligned anonymous mmap + MADV_HUGEPAGE");
    assert_int_equal(mem_backend_find("2m")->page_bytes, PAGE_2M);
    assert_int_equal(mem_backend_find("1g")->page_bytes, PAGE_1G);
    page_sizes_inject(0, NULL, NULL);
    assert_int_equal(mem_backend_find("4k")->page_bytes, (uint64_t)sysconf(_SC_PAGESIZE));
}

/* No 2 MB pool where the kernel's sizes are 512 MB and 16 GB: the reason names them. */
static void missing_2m_pool_names_the_sizes(void **state)
{
    (void)state;
    static const unsigned sizes[] = {524288, 16777216, 0};
    tree(65536, sizes, 536870912, 524288);
    char sys[128], meminfo[128], why[600];
    snprintf(sys, sizeof(sys), "%s/sys", root);
    snprintf(meminfo, sizeof(meminfo), "%s/meminfo", root);
    const struct mem_env env = {sys, meminfo};
    assert_int_equal(hugetlb_pool_check(&env, PAGE_2M, 4 << 20, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "no 2 MiB hugetlb pool"));
    assert_non_null(strstr(why, "the hugetlb sizes here: 512 MB, 16 GB"));
}

/* Without an injected base page, the machine's own. */
static void real_base(void **state)
{
    (void)state;
    page_sizes_inject(0, NULL, NULL);
    assert_int_equal(page_base_bytes(), (uint64_t)sysconf(_SC_PAGESIZE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formatter),
        cmocka_unit_test_setup_teardown(x86_4k, setup, teardown),
        cmocka_unit_test_setup_teardown(arm64_4k, setup, teardown),
        cmocka_unit_test_setup_teardown(arm64_16k, setup, teardown),
        cmocka_unit_test_setup_teardown(arm64_64k, setup, teardown),
        cmocka_unit_test_setup_teardown(nothing_there, setup, teardown),
        cmocka_unit_test_setup_teardown(backends_at_64k, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_2m_pool_names_the_sizes, setup, teardown),
        cmocka_unit_test(real_base),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
