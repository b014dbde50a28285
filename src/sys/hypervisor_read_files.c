#include "src/sys/hypervisor.h"

/* No CPUID off x86: what the kernel and firmware say (src/sys/hypervisor.c). */
void hypervisor_read(struct hypervisor_info *out)
{
    hypervisor_read_root("", out);
}
