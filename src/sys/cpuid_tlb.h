#ifndef MEMBENCH_CPUID_TLB_H
#define MEMBENCH_CPUID_TLB_H

/* What the CPU documents about its TLBs ("documented TLB geometry"; `source` names where it
 * comes from). On x86 from the cpuid instruction (src/sys/x86/cpuid_tlb_read.c):
 *   AMD:   leaves 0x80000005 (L1, 4K and 2M/4M), 0x80000006 (L2), 0x80000019 (1G pages);
 *   Intel: leaf 0x18 (deterministic address translation parameters), else the leaf 0x2
 *          descriptor bytes.
 * On aarch64 from a table of public manuals keyed by the MIDR part (src/sys/arm/midr_tlb.c);
 * elsewhere nothing (src/sys/cpuid_tlb_none.c). The decoders are pure functions of register
 * values (unit-tested). Nothing is guessed: when the CPU (or a hypervisor) reports nothing,
 * `why` says so and the entry list stays empty. */

#include <stdbool.h>
#include <stdint.h>

enum {
    TLB_PAGE_4K = 1u << 0,
    TLB_PAGE_2M = 1u << 1,
    TLB_PAGE_4M = 1u << 2,
    TLB_PAGE_1G = 1u << 3,
    TLB_PAGE_16K = 1u << 4, /* the aarch64 granules and their block sizes */
    TLB_PAGE_64K = 1u << 5,
    TLB_PAGE_32M = 1u << 6,
    TLB_PAGE_512M = 1u << 7,
};

struct cpuid_tlb_entry {
    int level;           /* 1, 2 */
    char type;           /* 'D' data, 'I' instruction, 'U' unified, 'L' load-only, 'S' store-only */
    unsigned page_sizes; /* TLB_PAGE_* bits */
    unsigned entries;
    unsigned ways; /* 0 = fully associative */
};

#define CPUID_TLB_MAX 32

struct cpuid_tlb_info {
    char vendor[13];                  /* aarch64: the MIDR implementer's name ("ARM") */
    unsigned family, model, stepping; /* aarch64: MIDR implementer and part number */
    bool from_midr;                   /* family and model are MIDR fields (aarch64) */
    bool hypervisor;
    /* "CPUID leaf 0x18", "CPUID leaf 0x2", "CPUID 0x80000005/6/19"; aarch64: the core and the
     * manual its row cites */
    char source[96];
    char why[200]; /* set when the list is empty */
    int n;
    struct cpuid_tlb_entry e[CPUID_TLB_MAX];
};

/* x86: runs cpuid on this CPU; aarch64: reads /proc/cpuinfo's MIDR parts and looks them up;
 * elsewhere `why` says nothing is documented. */
void cpuid_tlb_read(struct cpuid_tlb_info *out);

/* AMD: regs of 0x80000005, 0x80000006 and (has_1g) 0x80000019, as {eax, ebx, ecx, edx}. */
void cpuid_tlb_decode_amd(const uint32_t l5[4], const uint32_t l6[4], const uint32_t *l19,
                          struct cpuid_tlb_info *out);

/* Intel leaf 0x18: sub[i] = {eax, ebx, ecx, edx} of subleaf i, i < n (n = eax of subleaf 0
 * plus 1). Returns the number of entries added. */
int cpuid_tlb_decode_leaf18(const uint32_t (*sub)[4], int n, struct cpuid_tlb_info *out);

/* Intel leaf 0x2 descriptor bytes ({eax, ebx, ecx, edx} of one call). Returns the number of
 * entries added; *defers_to_18 is set when a byte says "see leaf 0x18" (0xFE). */
int cpuid_tlb_decode_leaf2(const uint32_t regs[4], struct cpuid_tlb_info *out, bool *defers_to_18);

/* Documented entries of the data TLB at `level` (1 or 2) for a page size (TLB_PAGE_*), as a
 * load sees it (load-only or data TLB at level 1; unified or data at level 2). 0 if unknown. */
unsigned cpuid_tlb_data_entries(const struct cpuid_tlb_info *info, int level, unsigned page);

#endif
