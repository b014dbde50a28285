/* The aarch64 documented TLB table: /proc/cpuinfo's MIDR parts, injected under a scratch root,
 * looked up row by row. Portable: runs on every host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "src/sys/arm/midr_tlb.h"
#include "tests/unit/scratch_tree.h"

static char root[64];

static int make_root(void **state)
{
    (void)state;
    if (scratch_make(root, sizeof(root), "midr") != 0) return -1;
    char dir[128];
    snprintf(dir, sizeof(dir), "%s/proc", root);
    scratch_dirs(dir);
    return 0;
}

static int remove_root(void **state)
{
    (void)state;
    return scratch_remove(root);
}

/* A /proc/cpuinfo of `cpus` processors, each "CPU implementer"/"CPU part" from parts[i % n]. */
static void write_cpuinfo(int cpus, const struct midr_part *parts, int n)
{
    char text[4096], path[128];
    size_t used = 0;
    for (int i = 0; i < cpus; i++)
        used += (size_t)snprintf(text + used, sizeof(text) - used,
                                 "processor\t: %d\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd sve\n"
                                 "CPU implementer\t: 0x%02x\nCPU architecture: 8\n"
                                 "CPU variant\t: 0x1\nCPU part\t: 0x%03x\nCPU revision\t: 1\n\n",
                                 i, parts[i % n].implementer, parts[i % n].part);
    snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
    scratch_write(path, text);
}

static void read_one(unsigned implementer, unsigned part, struct cpuid_tlb_info *info)
{
    struct midr_part p = {implementer, part};
    write_cpuinfo(4, &p, 1);
    midr_tlb_read_root(root, info);
}

static void cortex_a76_row(void **state)
{
    (void)state;
    struct cpuid_tlb_info info;
    read_one(0x41, 0xd0b, &info);
    assert_int_equal(info.n, 3);
    assert_string_equal(info.vendor, "ARM");
    assert_int_equal(info.family, 0x41);
    assert_int_equal(info.model, 0xd0b);
    assert_true(info.from_midr);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_4K), 48);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_64K), 48);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 1280);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_2M), 1280);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_1G), 0); /* not in the L1 */
    assert_non_null(strstr(info.source, "Cortex-A76"));
    assert_non_null(strstr(info.source, "100798"));
    assert_string_equal(info.why, "");
}

static void cortex_a55_row(void **state)
{
    (void)state;
    struct cpuid_tlb_info info;
    read_one(0x41, 0xd05, &info);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_4K), 16);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 1024);
    assert_non_null(strstr(info.source, "814346"));
}

static void cortex_a35_row(void **state)
{
    (void)state;
    struct cpuid_tlb_info info;
    read_one(0x41, 0xd04, &info);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_4K), 10);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_16K), 512);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_1G), 0); /* split into 512MB */
    assert_non_null(strstr(info.source, "100236"));
}

static void cortex_a53_row_has_no_l1_figure(void **state)
{
    (void)state;
    struct cpuid_tlb_info info;
    read_one(0x41, 0xd03, &info);
    assert_int_equal(info.n, 1);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_4K), 0);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 512);
    assert_non_null(strstr(info.source, "DDI 0500"));
}

static void unknown_part_says_so(void **state)
{
    (void)state;
    struct cpuid_tlb_info info;
    read_one(0x41, 0xd4f, &info); /* Neoverse V2: not in the table */
    assert_int_equal(info.n, 0);
    assert_string_equal(info.source, "");
    assert_string_equal(info.why, "aarch64 does not expose TLB geometry to user space (CPU part "
                                  "0x41/0xd4f not in membench's table)");
    assert_int_equal(info.model, 0xd4f);
}

static void missing_cpuinfo(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
    remove(path);
    struct cpuid_tlb_info info;
    midr_tlb_read_root(root, &info);
    assert_int_equal(info.n, 0);
    assert_non_null(strstr(info.why, "does not expose TLB geometry"));
    assert_non_null(strstr(info.why, "cannot be read"));
}

static void cpuinfo_without_parts(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
    scratch_write(path, "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: x86\n\n");
    struct cpuid_tlb_info info;
    midr_tlb_read_root(root, &info);
    assert_int_equal(info.n, 0);
    assert_string_equal(info.why, "aarch64 does not expose TLB geometry to user space (no 'CPU "
                                  "part' in /proc/cpuinfo)");
}

static void big_little_is_said(void **state)
{
    (void)state;
    struct midr_part parts[] = {{0x41, 0xd05}, {0x41, 0xd0b}}; /* A55 + A76, both in the table */
    write_cpuinfo(8, parts, 2);
    struct cpuid_tlb_info info;
    midr_tlb_read_root(root, &info);
    assert_int_equal(info.n, 0);
    assert_non_null(strstr(info.why, "mixes core types"));
    assert_non_null(strstr(info.why, "0x41/0xd05 0x41/0xd0b"));
}

static void parser_keeps_distinct_pairs(void **state)
{
    (void)state;
    struct midr_part parts[] = {{0x41, 0xd0b}, {0x41, 0xd0b}, {0x46, 0x001}};
    write_cpuinfo(6, parts, 3);
    char path[128];
    snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    struct midr_part got[MIDR_PARTS_MAX];
    int n = midr_parse_cpuinfo(f, got, MIDR_PARTS_MAX);
    fclose(f);
    assert_int_equal(n, 2);
    assert_int_equal(got[0].implementer, 0x41);
    assert_int_equal(got[0].part, 0xd0b);
    assert_int_equal(got[1].implementer, 0x46);
    assert_int_equal(got[1].part, 0x001);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cortex_a76_row),
        cmocka_unit_test(cortex_a55_row),
        cmocka_unit_test(cortex_a35_row),
        cmocka_unit_test(cortex_a53_row_has_no_l1_figure),
        cmocka_unit_test(unknown_part_says_so),
        cmocka_unit_test(missing_cpuinfo),
        cmocka_unit_test(cpuinfo_without_parts),
        cmocka_unit_test(big_little_is_said),
        cmocka_unit_test(parser_keeps_distinct_pairs),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
