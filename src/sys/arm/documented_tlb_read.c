#include "src/sys/arm/midr_tlb.h"
#include "src/sys/hypervisor.h"

void cpuid_tlb_read(struct cpuid_tlb_info *out)
{
    midr_tlb_read_root("", out);
    struct hypervisor_info hv;
    hypervisor_read(&hv);
    out->hypervisor = hv.signature[0] != '\0';
}
