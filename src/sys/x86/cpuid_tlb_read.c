#include "src/sys/cpuid_tlb.h"

#include <cpuid.h>
#include <stdio.h>
#include <string.h>

/* The cpuid instruction's TLB leaves on this CPU; the decoding is in src/sys/cpuid_tlb.c. */
void cpuid_tlb_read(struct cpuid_tlb_info *out)
{
    memset(out, 0, sizeof(*out));
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) {
        snprintf(out->why, sizeof(out->why), "the cpuid instruction reports nothing");
        return;
    }
    unsigned max_leaf = a;
    memcpy(out->vendor, &b, 4);
    memcpy(out->vendor + 4, &d, 4);
    memcpy(out->vendor + 8, &c, 4);
    out->vendor[12] = '\0';
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        unsigned family = (a >> 8) & 15, model = (a >> 4) & 15;
        if (family == 15) family += (a >> 20) & 0xFF;
        if (family == 6 || family >= 15) model += ((a >> 16) & 15) << 4;
        out->family = family;
        out->model = model;
        out->stepping = a & 15;
        out->hypervisor = (c >> 31) & 1;
    }
    const char *hv = out->hypervisor ? " under this hypervisor" : "";
    if (strcmp(out->vendor, "AuthenticAMD") == 0 || strcmp(out->vendor, "HygonGenuine") == 0) {
        unsigned ext = __get_cpuid_max(0x80000000, NULL);
        if (ext < 0x80000006) {
            snprintf(out->why, sizeof(out->why), "CPUID leaf 0x80000006 is not available%s", hv);
            return;
        }
        uint32_t l5[4], l6[4], l19[4];
        __cpuid(0x80000005, l5[0], l5[1], l5[2], l5[3]);
        __cpuid(0x80000006, l6[0], l6[1], l6[2], l6[3]);
        if (ext >= 0x80000019) __cpuid(0x80000019, l19[0], l19[1], l19[2], l19[3]);
        cpuid_tlb_decode_amd(l5, l6, ext >= 0x80000019 ? l19 : NULL, out);
        if (out->n == 0)
            snprintf(out->why, sizeof(out->why),
                     "CPUID leaves 0x80000005/6 report no TLB entries%s", hv);
        return;
    }
    if (strcmp(out->vendor, "GenuineIntel") != 0) {
        snprintf(out->why, sizeof(out->why), "no TLB decoding for CPU vendor '%s'", out->vendor);
        return;
    }
    if (max_leaf >= 0x18) {
        uint32_t sub[64][4];
        __cpuid_count(0x18, 0, sub[0][0], sub[0][1], sub[0][2], sub[0][3]);
        int n = sub[0][0] + 1 > 64 ? 64 : (int)sub[0][0] + 1;
        for (int i = 1; i < n; i++)
            __cpuid_count(0x18, i, sub[i][0], sub[i][1], sub[i][2], sub[i][3]);
        if (cpuid_tlb_decode_leaf18((const uint32_t(*)[4])sub, n, out) > 0) return;
    }
    bool defers = false;
    if (max_leaf >= 2) {
        uint32_t r[4];
        __cpuid(2, r[0], r[1], r[2], r[3]);
        if (cpuid_tlb_decode_leaf2(r, out, &defers) > 0) return;
    }
    if (defers)
        snprintf(out->why, sizeof(out->why),
                 "CPUID leaf 0x2 defers TLB information to leaf 0x18, which reports no TLB%s", hv);
    else
        snprintf(out->why, sizeof(out->why),
                 "CPUID leaves 0x18 and 0x2 report no data TLB (max leaf 0x%x)%s", max_leaf, hv);
}
