/* Decoding of the TLB sizes the CPU documents: AMD extended leaves, Intel leaf 0x18 and the
 * leaf 0x2 descriptor bytes, from register values (the layouts of the vendors' manuals). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/sys/cpuid_tlb.h"

/* Zen 4 as seed 000 documents it: L1 DTLB 72 entries (fully associative), L2 DTLB 3072. */
static void amd_zen4(void **state)
{
    (void)state;
    uint32_t l5[4] = {0xFF48FF40u, 0xFF48FF40u, 0, 0};
    uint32_t l6[4] = {(0x6u << 28) | (3072u << 16) | (0x6u << 12) | 512u,
                      (0x6u << 28) | (3072u << 16) | (0x6u << 12) | 512u, 0, 0};
    uint32_t l19[4] = {(0xFu << 28) | (72u << 16) | (0xFu << 12) | 64u, (0x6u << 28) | (64u << 16),
                       0, 0};
    struct cpuid_tlb_info info;
    memset(&info, 0, sizeof(info));
    cpuid_tlb_decode_amd(l5, l6, l19, &info);
    assert_string_equal(info.source, "CPUID 0x80000005/6/19");
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_4K), 72);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 3072);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_2M), 72);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_2M), 3072);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_1G), 72);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_1G), 64);
    int full = 0, eight = 0;
    for (int i = 0; i < info.n; i++) {
        if (info.e[i].level == 1 && info.e[i].type == 'D') full += info.e[i].ways == 0;
        if (info.e[i].level == 2 && info.e[i].page_sizes == TLB_PAGE_4K && info.e[i].type == 'D')
            eight += info.e[i].ways == 8;
    }
    assert_true(full >= 2);
    assert_int_equal(eight, 1);

    /* an L2 ways code of 0 means that TLB is off: no entry */
    uint32_t off[4] = {0, (3072u << 16), 0, 0};
    memset(&info, 0, sizeof(info));
    cpuid_tlb_decode_amd(l5, off, NULL, &info);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 0);
    assert_string_equal(info.source, "CPUID 0x80000005/6");
}

/* Leaf 0x18: a load-only and a store-only first level, a shared second level. */
static void intel_leaf18(void **state)
{
    (void)state;
    const uint32_t sub[4][4] = {
        {3, 0, 0, 0},                                         /* max subleaf 3, no TLB here */
        {0, (4u << 16) | 1u, 16, 4u | (1u << 5)},             /* L1 load-only, 4K, 4 x 16 */
        {0, (16u << 16) | 1u, 1, 5u | (1u << 5) | (1u << 8)}, /* L1 store-only, full, 16 */
        {0, (8u << 16) | 3u, 256, 3u | (2u << 5)},            /* L2 unified 4K+2M, 8 x 256 */
    };
    struct cpuid_tlb_info info;
    memset(&info, 0, sizeof(info));
    assert_int_equal(cpuid_tlb_decode_leaf18(sub, 4, &info), 3);
    assert_string_equal(info.source, "CPUID leaf 0x18");
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_4K), 64); /* loads, not stores */
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 2048);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_2M), 2048);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_2M), 0);
    assert_int_equal(info.e[1].type, 'S');
    assert_int_equal(info.e[1].ways, 0);

    /* what this project's KVM guest returns: every subleaf empty */
    const uint32_t empty[1][4] = {{0, 0, 0, 0}};
    memset(&info, 0, sizeof(info));
    assert_int_equal(cpuid_tlb_decode_leaf18(empty, 1, &info), 0);
    assert_int_equal(info.n, 0);
}

/* Leaf 0x2 descriptors 0x63, 0xC3 (in eax after the call count) and 0x03 (in ebx). */
static void intel_leaf2(void **state)
{
    (void)state;
    const uint32_t regs[4] = {0x00C36301u, 0x00000003u, 0, 0};
    struct cpuid_tlb_info info;
    memset(&info, 0, sizeof(info));
    bool defers = true;
    assert_int_equal(cpuid_tlb_decode_leaf2(regs, &info, &defers), 5);
    assert_false(defers);
    assert_string_equal(info.source, "CPUID leaf 0x2");
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_4K), 64);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 1536);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_2M), 32);
    assert_int_equal(cpuid_tlb_data_entries(&info, 1, TLB_PAGE_1G), 4);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_1G), 16);

    /* the build machine: 0xFF (caches in leaf 4), 0xFE (TLBs in leaf 0x18), 0xF0 (prefetch) */
    const uint32_t vm[4] = {0x00FEFF01u, 0x000000F0u, 0, 0};
    memset(&info, 0, sizeof(info));
    assert_int_equal(cpuid_tlb_decode_leaf2(vm, &info, &defers), 0);
    assert_true(defers);

    /* a register with bit 31 set carries no descriptors; the call count byte is not one */
    const uint32_t invalid[4] = {0x00000003u, 0x80000003u, 0, 0};
    memset(&info, 0, sizeof(info));
    assert_int_equal(cpuid_tlb_decode_leaf2(invalid, &info, &defers), 0);
}

/* The recorded leaves of tests/fixtures/machines/intel-xeon-m167 (a KVM guest of a Sapphire
 * Rapids class part, family 6 model 167 as the hypervisor shows it): leaf 0x2 defers to leaf
 * 0x18, whose only subleaf is empty, so nothing is documented and nothing is made up. */
static void intel_m167_recorded(void **state)
{
    (void)state;
    char path[512], line[256];
    snprintf(path, sizeof(path), "%s/fixtures/machines/intel-xeon-m167/cpuid.csv", TESTS_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    uint32_t leaf1[4] = {0}, leaf2[4] = {0}, sub[16][4];
    int n18 = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned leaf, subleaf, r[4];
        if (sscanf(line, "0x%x,%u,0x%x,0x%x,0x%x,0x%x", &leaf, &subleaf, &r[0], &r[1], &r[2],
                   &r[3]) != 6)
            continue;
        uint32_t *to = leaf == 1 ? leaf1 : leaf == 2 ? leaf2 : NULL;
        if (leaf == 0x18 && n18 < 16) to = sub[n18++];
        if (to)
            for (int i = 0; i < 4; i++)
                to[i] = r[i];
    }
    fclose(f);
    unsigned family = (leaf1[0] >> 8) & 0xF,
             model = ((leaf1[0] >> 4) & 0xF) | ((leaf1[0] >> 12) & 0xF0);
    assert_int_equal(family, 6);
    assert_int_equal(model, 167);
    struct cpuid_tlb_info info;
    memset(&info, 0, sizeof(info));
    bool defers = false;
    assert_int_equal(cpuid_tlb_decode_leaf2(leaf2, &info, &defers), 0);
    assert_true(defers);
    assert_int_equal(n18, 1);
    memset(&info, 0, sizeof(info));
    assert_int_equal(cpuid_tlb_decode_leaf18((const uint32_t(*)[4])sub, n18, &info), 0);
    assert_int_equal(cpuid_tlb_data_entries(&info, 2, TLB_PAGE_4K), 0);
}

/* On this machine the reader either decodes something or says why not, never both. */
static void read_this_cpu(void **state)
{
    (void)state;
    struct cpuid_tlb_info info;
    cpuid_tlb_read(&info);
    assert_true((info.n > 0) != (info.why[0] != '\0'));
    if (info.n > 0) assert_true(info.source[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(amd_zen4),      cmocka_unit_test(intel_leaf18),
        cmocka_unit_test(intel_leaf2),   cmocka_unit_test(intel_m167_recorded),
        cmocka_unit_test(read_this_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
