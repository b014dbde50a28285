#include "src/sys/cpuid_tlb.h"

#include <stdio.h>
#include <string.h>

static void add(struct cpuid_tlb_info *out, int level, char type, unsigned pages, unsigned entries,
                unsigned ways)
{
    if (entries == 0 || out->n == CPUID_TLB_MAX) return;
    out->e[out->n++] = (struct cpuid_tlb_entry){level, type, pages, entries, ways};
}

/* AMD L2 TLB associativity nibble (the L2/L3 cache encoding); 0 = fully associative. */
static unsigned amd_l2_ways(unsigned code)
{
    static const unsigned ways[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
    return ways[code & 15];
}

void cpuid_tlb_decode_amd(const uint32_t l5[4], const uint32_t l6[4], const uint32_t *l19,
                          struct cpuid_tlb_info *out)
{
    /* 0x80000005: eax = 2M/4M pages, ebx = 4K pages; [31:24] dTLB ways (0xFF full),
     * [23:16] dTLB entries, [15:8] iTLB ways, [7:0] iTLB entries */
    for (int r = 0; r < 2; r++) {
        uint32_t v = l5[r];
        unsigned pages = r == 0 ? TLB_PAGE_2M | TLB_PAGE_4M : TLB_PAGE_4K;
        unsigned dways = v >> 24, iways = (v >> 8) & 0xFF;
        add(out, 1, 'D', pages, (v >> 16) & 0xFF, dways == 0xFF ? 0 : dways);
        add(out, 1, 'I', pages, v & 0xFF, iways == 0xFF ? 0 : iways);
    }
    /* 0x80000006: eax = L2 2M/4M, ebx = L2 4K; [31:28] dTLB ways code, [27:16] dTLB entries,
     * [15:12] iTLB ways code, [11:0] iTLB entries (a ways code of 0 = the TLB is off) */
    for (int r = 0; r < 2; r++) {
        uint32_t v = l6[r];
        unsigned pages = r == 0 ? TLB_PAGE_2M | TLB_PAGE_4M : TLB_PAGE_4K;
        if (v >> 28) add(out, 2, 'D', pages, (v >> 16) & 0xFFF, amd_l2_ways(v >> 28));
        if ((v >> 12) & 15) add(out, 2, 'I', pages, v & 0xFFF, amd_l2_ways((v >> 12) & 15));
    }
    /* 0x80000019: eax = L1 1G, ebx = L2 1G, same layout as 0x80000006 */
    for (int r = 0; l19 && r < 2; r++) {
        uint32_t v = l19[r];
        if (v >> 28) add(out, r + 1, 'D', TLB_PAGE_1G, (v >> 16) & 0xFFF, amd_l2_ways(v >> 28));
        if ((v >> 12) & 15)
            add(out, r + 1, 'I', TLB_PAGE_1G, v & 0xFFF, amd_l2_ways((v >> 12) & 15));
    }
    snprintf(out->source, sizeof(out->source), "CPUID 0x80000005/6%s", l19 ? "/19" : "");
}

int cpuid_tlb_decode_leaf18(const uint32_t (*sub)[4], int n, struct cpuid_tlb_info *out)
{
    static const char types[] = {0, 'D', 'I', 'U', 'L', 'S'};
    int before = out->n;
    for (int i = 0; i < n; i++) {
        uint32_t ebx = sub[i][1], ecx = sub[i][2], edx = sub[i][3];
        unsigned type = edx & 31;
        if (type == 0 || type >= sizeof(types)) continue; /* an invalid subleaf */
        unsigned level = (edx >> 5) & 7, ways = ebx >> 16, sets = ecx;
        bool full = (edx >> 8) & 1;
        add(out, (int)level, types[type], ebx & 15, ways * sets, full ? 0 : ways);
    }
    if (out->n > before) snprintf(out->source, sizeof(out->source), "CPUID leaf 0x18");
    return out->n - before;
}

/* Intel SDM vol. 2, table "Encoding of CPUID Leaf 2 Descriptors": the data and shared TLBs. */
static const struct {
    uint8_t code;
    int level;
    char type;
    unsigned pages, entries, ways;
} leaf2_tlbs[] = {
    {0x03, 1, 'D', TLB_PAGE_4K, 64, 4},
    {0x04, 1, 'D', TLB_PAGE_4M, 8, 4},
    {0x05, 1, 'D', TLB_PAGE_4M, 32, 4},
    {0x56, 1, 'D', TLB_PAGE_4M, 16, 4},
    {0x57, 1, 'D', TLB_PAGE_4K, 16, 4},
    {0x59, 1, 'D', TLB_PAGE_4K, 16, 0},
    {0x5A, 1, 'D', TLB_PAGE_2M | TLB_PAGE_4M, 32, 4},
    {0x5B, 1, 'D', TLB_PAGE_4K | TLB_PAGE_4M, 64, 0},
    {0x5C, 1, 'D', TLB_PAGE_4K | TLB_PAGE_4M, 128, 0},
    {0x5D, 1, 'D', TLB_PAGE_4K | TLB_PAGE_4M, 256, 0},
    {0x63, 1, 'D', TLB_PAGE_2M | TLB_PAGE_4M, 32, 4},
    {0x63, 1, 'D', TLB_PAGE_1G, 4, 4},
    {0x64, 1, 'D', TLB_PAGE_4K, 512, 4},
    {0xA0, 1, 'D', TLB_PAGE_4K, 32, 0},
    {0xB3, 1, 'D', TLB_PAGE_4K, 128, 4},
    {0xB4, 1, 'D', TLB_PAGE_4K, 256, 4},
    {0xBA, 1, 'D', TLB_PAGE_4K, 64, 4},
    {0xC0, 1, 'D', TLB_PAGE_4K | TLB_PAGE_4M, 8, 4},
    {0xC1, 2, 'U', TLB_PAGE_4K | TLB_PAGE_2M, 1024, 8},
    {0xC2, 1, 'D', TLB_PAGE_4K | TLB_PAGE_2M, 16, 4},
    {0xC3, 2, 'U', TLB_PAGE_4K | TLB_PAGE_2M, 1536, 6},
    {0xC3, 2, 'U', TLB_PAGE_1G, 16, 4},
    {0xC4, 1, 'D', TLB_PAGE_2M | TLB_PAGE_4M, 32, 4},
    {0xCA, 2, 'U', TLB_PAGE_4K, 512, 4},
};

int cpuid_tlb_decode_leaf2(const uint32_t regs[4], struct cpuid_tlb_info *out, bool *defers_to_18)
{
    int before = out->n;
    *defers_to_18 = false;
    for (int r = 0; r < 4; r++) {
        if (regs[r] >> 31) continue; /* bit 31 set: the register holds no descriptors */
        for (int b = r == 0 ? 1 : 0; b < 4; b++) { /* al is the call count */
            uint8_t code = (uint8_t)(regs[r] >> (8 * b));
            if (code == 0xFE) *defers_to_18 = true;
            for (size_t k = 0; k < sizeof(leaf2_tlbs) / sizeof(leaf2_tlbs[0]); k++)
                if (leaf2_tlbs[k].code == code && code != 0)
                    add(out, leaf2_tlbs[k].level, leaf2_tlbs[k].type, leaf2_tlbs[k].pages,
                        leaf2_tlbs[k].entries, leaf2_tlbs[k].ways);
        }
    }
    if (out->n > before) snprintf(out->source, sizeof(out->source), "CPUID leaf 0x2");
    return out->n - before;
}

unsigned cpuid_tlb_data_entries(const struct cpuid_tlb_info *info, int level, unsigned page)
{
    /* preference: a load-only TLB, then a data TLB, then a unified one */
    static const char order[] = {'L', 'D', 'U'};
    for (size_t o = 0; o < sizeof(order); o++)
        for (int i = 0; i < info->n; i++) {
            const struct cpuid_tlb_entry *e = &info->e[i];
            if (e->level == level && e->type == order[o] && (e->page_sizes & page))
                return e->entries;
        }
    return 0;
}
