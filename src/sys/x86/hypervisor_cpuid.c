#include "src/sys/hypervisor.h"

#include <cpuid.h>
#include <string.h>

void hypervisor_read(struct hypervisor_info *out)
{
    out->pv_tlb_flush = -1;
    out->signature[0] = '\0';
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 31) & 1)) return; /* bare metal */
    __cpuid(0x40000000, a, b, c, d);
    hypervisor_signature(b, c, d, out->signature, sizeof(out->signature));
    if (strcmp(out->signature, "KVMKVMKVM") == 0 && a >= 0x40000001) {
        __cpuid(0x40000001, a, b, c, d);
        out->pv_tlb_flush = hypervisor_kvm_pv_tlb_flush(a);
    }
}
