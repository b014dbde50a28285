#include <string.h>

#include "src/sys/dimm_inventory.h"
#include "src/verdict/efficiency.h"

/* Published STREAM results, each configuration stated (CPU, channels, MT/s), as a share of
 * channels x MT/s x 8 bytes. A class without such a publication has no row. */
static const struct typical_efficiency TYPICAL[] = {
    /* Azure HBv3, 2 x EPYC 7V73X (Milan-X): "STREAM Triad 330-350 GB/s" over 16 channels of
     * DDR4-3200 (4 NUMA domains x 4 channels), 409.6 GB/s: 80.6-85.4%. */
    {.vendor = "AuthenticAMD",
     .family = 25,
     .models = {1},
     .cpu_class = "AMD EPYC 7003 (Milan)",
     .min_pct = 80,
     .max_pct = 85,
     .source = "https://learn.microsoft.com/azure/virtual-machines/hbv3-performance"},
};

const struct typical_efficiency *typical_efficiency_of(const struct cpu_identity *cpu)
{
    for (size_t i = 0; i < sizeof(TYPICAL) / sizeof(TYPICAL[0]); i++) {
        const struct typical_efficiency *t = &TYPICAL[i];
        if (!t->vendor || strcmp(t->vendor, cpu->vendor) != 0 || t->family != cpu->family) continue;
        for (int m = 0; m < 8 && t->models[m]; m++)
            if (t->models[m] == cpu->model) return t;
    }
    return NULL;
}
