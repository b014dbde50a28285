/* The option rule's measurements: what a run measures (enum measure_bit) and their names. */
#include <stdio.h>
#include <string.h>

#include "src/cli/option_table.h"

unsigned option_measures(const struct options *o)
{
    const unsigned probes = o->probes.mask;
    return (o->stream.kernel_mask ? MEASURE_STREAM : 0u) | (o->tlb.enabled ? MEASURE_TLB : 0u) |
           (o->latency.enabled ? MEASURE_LATENCY : 0u) |
           (probes & PROBE_BIT(PROBE_FAULTS) ? MEASURE_FAULTS : 0u) |
           (probes & PROBE_BIT(PROBE_SHOOTDOWN) ? MEASURE_SHOOTDOWN : 0u) |
           (probes & PROBE_BIT(PROBE_TIMER) ? MEASURE_TIMER : 0u);
}

void option_measures_text(unsigned mask, char *buf, size_t len)
{
    static const char *const names[] = {"the kernels", "--tlb",       "--latency",
                                        "--faults",    "--shootdown", "--timer"};
    _Static_assert(sizeof(names) / sizeof(names[0]) == __builtin_ctz(MEASURE_ALL + 1u),
                   "one name per enum measure_bit");
    size_t n = 0, total = (size_t)__builtin_popcount(mask & MEASURE_ALL);
    buf[0] = '\0';
    for (size_t b = 0; b < sizeof(names) / sizeof(names[0]); b++) {
        if (!(mask & (1u << b))) continue;
        const char *sep = n == 0 ? "" : n + 1 == total ? " and " : ", ";
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", sep, names[b]);
        n++;
    }
}
