#include "src/sys/hypervisor.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

void hypervisor_signature(uint32_t ebx, uint32_t ecx, uint32_t edx, char *buf, size_t len)
{
    char sig[13];
    memcpy(sig, &ebx, 4);
    memcpy(sig + 4, &ecx, 4);
    memcpy(sig + 8, &edx, 4);
    sig[12] = '\0';
    for (int i = 0; i < 12; i++)
        if (sig[i] && (sig[i] < 32 || sig[i] > 126)) sig[i] = '?';
    snprintf(buf, len, "%s", sig);
}

int hypervisor_kvm_pv_tlb_flush(uint32_t eax)
{
    return (eax >> 9) & 1;
}

void hypervisor_read(struct hypervisor_info *out)
{
    out->pv_tlb_flush = -1;
    out->signature[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 31) & 1)) return; /* bare metal */
    __cpuid(0x40000000, a, b, c, d);
    hypervisor_signature(b, c, d, out->signature, sizeof(out->signature));
    if (strcmp(out->signature, "KVMKVMKVM") == 0 && a >= 0x40000001) {
        __cpuid(0x40000001, a, b, c, d);
        out->pv_tlb_flush = hypervisor_kvm_pv_tlb_flush(a);
    }
#endif
}
