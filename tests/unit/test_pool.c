/* The backends' probes on fake sysfs trees: pools with enough, too few, missing page sizes,
 * and THP modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "tests/unit/scratch_tree.h"

#include "hugepages/backend.h"
#include "hugepages/pool.h"

#define MIB (1ull << 20)

static char root[64], meminfo[128];
static struct mem_env env;
static char why[600];

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    scratch_write(path, text);
}

/* One pool: nr total pages, free, resv reserved, overcommit. */
static void set_pool(unsigned long kb, int nr, int free, int resv, int overcommit)
{
    char dir[300], v[32];
    snprintf(dir, sizeof(dir), "%s/kernel/mm/hugepages/hugepages-%lukB", root, kb);
    scratch_dirs(dir);
    snprintf(v, sizeof(v), "%d\n", nr);
    write_file(dir, "nr_hugepages", v);
    snprintf(v, sizeof(v), "%d\n", free);
    write_file(dir, "free_hugepages", v);
    snprintf(v, sizeof(v), "%d\n", resv);
    write_file(dir, "resv_hugepages", v);
    write_file(dir, "surplus_hugepages", "0\n");
    snprintf(v, sizeof(v), "%d\n", overcommit);
    write_file(dir, "nr_overcommit_hugepages", v);
}

static void set_thp(const char *line)
{
    char dir[300];
    snprintf(dir, sizeof(dir), "%s/kernel/mm/transparent_hugepage", root);
    scratch_dirs(dir);
    write_file(dir, "enabled", line);
}

static void set_default_hugepage_kb(unsigned kb)
{
    char text[128];
    snprintf(text, sizeof(text), "MemTotal:       24576000 kB\nHugepagesize:    %u kB\n", kb);
    write_file(root, "meminfo", text);
}

static int fresh_root(void **state)
{
    (void)state;
    if (scratch_make(root, sizeof(root), "pool") != 0) return -1;
    snprintf(meminfo, sizeof(meminfo), "%s/meminfo", root);
    env = (struct mem_env){root, meminfo};
    set_default_hugepage_kb(2048);
    why[0] = '\0';
    return 0;
}

static int remove_root(void **state)
{
    (void)state;
    return scratch_remove(root);
}

static int probe(const char *name, uint64_t bytes)
{
    const struct mem_backend *b = mem_backend_find(name);
    assert_non_null(b);
    return b->probe(&env, bytes, why, sizeof(why));
}

static void assert_one_line_with(const char *const *words)
{
    assert_null(strchr(why, '\n'));
    for (; *words; words++)
        if (!strstr(why, *words)) fail_msg("'%s' not in: %s", *words, why);
}

static void enough_2m_pages(void **state)
{
    (void)state;
    set_pool(2048, 64, 64, 0, 0);
    assert_int_equal(probe("2m", 24 * MIB), 0);
    assert_int_equal(probe("2m", 128 * MIB), 0); /* exactly the pool */
    assert_int_equal(probe("2m", 1), 0);         /* rounded up to one page */
}

static void too_few_2m_pages(void **state)
{
    (void)state;
    set_pool(2048, 64, 64, 0, 0);
    assert_int_equal(probe("2m", 128 * MIB + 1), -1);
    /* 65 needed, 64 available: the pool must grow by one to 65 */
    assert_one_line_with((const char *[]){
        "the 2 MiB hugetlb pool has too few free pages: 65 needed, 64 available",
        "free_hugepages 64", "resv_hugepages 0", "echo 65 > /proc/sys/vm/nr_hugepages",
        "hugeadm --pool-pages-min 2MB:65", NULL});
}

static void reserved_pages_are_not_free(void **state)
{
    (void)state;
    set_pool(2048, 64, 40, 30, 0); /* another process holds 30 of the 40 free */
    assert_int_equal(probe("2m", 10 * 2 * MIB), 0);
    assert_int_equal(probe("2m", 11 * 2 * MIB), -1);
    assert_one_line_with((const char *[]){"11 needed, 10 available",
                                          "free_hugepages 40 - resv_hugepages 30",
                                          "echo 65 > /proc/sys/vm/nr_hugepages", NULL});
}

static void overcommit_counts(void **state)
{
    (void)state;
    set_pool(2048, 0, 0, 0, 16); /* no pool, but 16 surplus pages may be allocated */
    assert_int_equal(probe("2m", 16 * 2 * MIB), 0);
    assert_int_equal(probe("2m", 17 * 2 * MIB), -1);
    assert_one_line_with((const char *[]){"17 needed, 16 available", "overcommit 16", NULL});
}

static void empty_pool(void **state)
{
    (void)state;
    set_pool(2048, 0, 0, 0, 0);
    assert_int_equal(probe("2m", 24 * MIB), -1);
    assert_one_line_with(
        (const char *[]){"12 needed, 0 available", "echo 12 > /proc/sys/vm/nr_hugepages", NULL});
}

static void not_the_default_size(void **state)
{
    (void)state;
    set_default_hugepage_kb(1048576); /* default_hugepagesz=1G: nr_hugepages means 1 GiB */
    set_pool(2048, 0, 0, 0, 0);
    assert_int_equal(probe("2m", 4 * MIB), -1);
    assert_one_line_with(
        (const char *[]){"hugepages-2048kB/nr_hugepages", "hugeadm --pool-pages-min 2MB:2", NULL});
    assert_null(strstr(why, "/proc/sys/vm/nr_hugepages"));
}

static void missing_1g_size(void **state)
{
    (void)state;
    set_pool(2048, 64, 64, 0, 0);
    assert_int_equal(probe("1g", 24 * MIB), -1);
    assert_one_line_with((const char *[]){"no 1 GiB hugetlb pool", "hugepages-1048576kB", "pdpe1gb",
                                          "--pages 2m", NULL});
}

static void missing_2m_size(void **state)
{
    (void)state;
    assert_int_equal(probe("2m", 24 * MIB), -1);
    assert_one_line_with((const char *[]){"no 2 MiB hugetlb pool", "--pages thp", NULL});
}

static void empty_1g_pool_names_boot_parameters(void **state)
{
    (void)state;
    set_pool(1048576, 0, 0, 0, 0);
    assert_int_equal(probe("1g", 24 * MIB), -1);
    assert_one_line_with(
        (const char *[]){"the 1 GiB hugetlb pool has too few free pages: 1 needed, 0 available",
                         "default_hugepagesz=1G hugepagesz=1G hugepages=1",
                         "hugepages-1048576kB/nr_hugepages", NULL});
    set_pool(1048576, 4, 4, 0, 0);
    assert_int_equal(probe("1g", 3 * 1024 * MIB), 0);
    assert_int_equal(probe("1g", 5 * 1024 * MIB), -1);
    assert_one_line_with((const char *[]){"5 needed, 4 available", "hugepages=5", NULL});
}

static void thp_modes(void **state)
{
    (void)state;
    assert_int_equal(probe("thp", 24 * MIB), -1); /* no THP in this kernel */
    assert_one_line_with((const char *[]){"no transparent huge pages", "--pages 2m", NULL});
    set_thp("always [madvise] never\n");
    assert_int_equal(probe("thp", 24 * MIB), 0);
    set_thp("[always] madvise never\n");
    assert_int_equal(probe("thp", 24 * MIB), 0);
    set_thp("always madvise [never]\n");
    assert_int_equal(probe("thp", 24 * MIB), -1);
    assert_one_line_with((const char *[]){"disabled", "'never'", "echo madvise >",
                                          "transparent_hugepage/enabled", "--pages 2m", NULL});
}

static void small_pages_need_nothing(void **state)
{
    (void)state; /* an empty tree: 4k and default have nothing to check */
    assert_int_equal(probe("4k", 24 * MIB), 0);
    assert_int_equal(probe("default", 24 * MIB), 0);
}

static void unknown_backing(void **state)
{
    (void)state;
    assert_null(mem_backend_find("3m"));
    assert_null(mem_backend_find(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(enough_2m_pages, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(too_few_2m_pages, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(reserved_pages_are_not_free, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(overcommit_counts, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(empty_pool, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(not_the_default_size, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(missing_1g_size, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(missing_2m_size, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(empty_1g_pool_names_boot_parameters, fresh_root,
                                        remove_root),
        cmocka_unit_test_setup_teardown(thp_modes, fresh_root, remove_root),
        cmocka_unit_test_setup_teardown(small_pages_need_nothing, fresh_root, remove_root),
        cmocka_unit_test(unknown_backing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
