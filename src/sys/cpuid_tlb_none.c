#include "src/sys/cpuid_tlb.h"

#include <stdio.h>
#include <string.h>

void cpuid_tlb_read(struct cpuid_tlb_info *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->why, sizeof(out->why),
             "this architecture does not expose TLB geometry to user space and membench has no "
             "table for it");
}
