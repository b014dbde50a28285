#include "kernels/cycle_counter.h"
#include "kernels/timer_kernel.h"

#include <cpuid.h>
#include <string.h>

void cycle_counter_describe(struct cycle_counter_facts *f)
{
    memset(f, 0, sizeof(*f));
    f->available = true;
    unsigned a, b, c, d;
    unsigned max_basic = __get_cpuid_max(0, NULL);
    if (max_basic >= 0x15) {
        __cpuid_count(0x15, 0, a, b, c, d);
        f->hz_documented = tsc_hz_from_leaf15(a, b, c);
        f->hz_source = "CPUID leaf 0x15";
    }
    if (max_basic >= 0x16) {
        __cpuid_count(0x16, 0, a, b, c, d);
        f->hz_nominal = (double)(a & 0xffff) * 1e6;
    }
    unsigned max_ext = __get_cpuid_max(0x80000000, NULL);
    if (max_ext >= 0x80000001) {
        __cpuid(0x80000001, a, b, c, d);
        f->ordered_available = (d >> 27) & 1;
    }
    if (!f->ordered_available)
        f->ordered_missing = "this CPU has no rdtscp (CPUID 0x80000001 EDX bit 27)";
    if (max_ext >= 0x80000007) {
        __cpuid(0x80000007, a, b, c, d);
        f->invariant_known = true;
        f->invariant = (d >> 8) & 1;
    }
}
