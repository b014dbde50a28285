#include "src/sys/cpu_memory_channels.h"

#include <string.h>

/* Not in the table: Intel Granite Rapids (family 6 model 173: the Xeon 6900P has 12 channels,
 * the 6700P 8, by model name only), Xeon D and W parts that share a model number with
 * Xeon Scalable, AMD Threadripper and Ryzen parts that share one with EPYC. */
static const struct cpu_memory_row rows[] = {
    {"GenuineIntel", 6, 85, "Platinum|Gold|Silver|Bronze",
     "Xeon Scalable 1st-3rd gen (Skylake-SP, Cascade Lake-SP, Cooper Lake)", 6, "DDR4", 3200,
     "Intel, Third Generation Intel Xeon Processor Scalable Family Technical Overview, table 1: "
     "https://software.intel.com/content/www/us/en/develop/articles/"
     "intel-xeon-processor-scalable-family-overview.html"},
    {"GenuineIntel", 6, 106, NULL, "Xeon Scalable 3rd gen (Ice Lake-SP)", 8, "DDR4", 3200,
     "Intel ark, 3rd Generation Intel Xeon Scalable Processors: Max # of Memory Channels 8: "
     "https://ark.intel.com/content/www/us/en/ark/products/codename/74979/ice-lake.html"},
    {"GenuineIntel", 6, 143, "Platinum|Gold|Silver|Bronze|Max",
     "Xeon Scalable 4th gen (Sapphire Rapids)", 8, "DDR5", 4800,
     "Intel ark, 4th Generation Intel Xeon Scalable Processors: Max # of Memory Channels 8: "
     "https://ark.intel.com/content/www/us/en/ark/products/codename/126212/"
     "sapphire-rapids.html"},
    {"GenuineIntel", 6, 207, "Platinum|Gold|Silver|Bronze",
     "Xeon Scalable 5th gen (Emerald Rapids)", 8, "DDR5", 5600,
     "Intel ark, 5th Generation Intel Xeon Scalable Processors: Max # of Memory Channels 8: "
     "https://ark.intel.com/content/www/us/en/ark/products/codename/130707/"
     "emerald-rapids.html"},
    {"AuthenticAMD", 23, 1, "EPYC", "EPYC 7001 (Naples)", 8, "DDR4", 2666,
     "AMD EPYC 7001 product pages: Memory Channels 8: "
     "https://www.amd.com/en/products/processors/server/epyc/7001-series.html"},
    {"AuthenticAMD", 23, 49, "EPYC", "EPYC 7002 (Rome)", 8, "DDR4", 3200,
     "AMD EPYC 7002 product pages: Memory Channels 8, Per Socket Mem BW 204.8 GB/s: "
     "https://www.amd.com/en/products/processors/server/epyc/7002-series.html"},
    {"AuthenticAMD", 25, 1, "EPYC", "EPYC 7003 (Milan)", 8, "DDR4", 3200,
     "AMD EPYC 7003 product pages: Memory Channels 8, Per Socket Mem BW 204.8 GB/s: "
     "https://www.amd.com/en/products/processors/server/epyc/7003-series.html"},
    {"AuthenticAMD", 25, 17, "EPYC", "EPYC 9004 (Genoa, Genoa-X)", 12, "DDR5", 4800,
     "AMD EPYC 9004 product pages: Memory Channels 12, Per Socket Mem BW 460.8 GB/s: "
     "https://www.amd.com/en/products/processors/server/epyc/4th-generation-9004-and-8004-"
     "series.html"},
    {"AuthenticAMD", 25, 160, "EPYC 97", "EPYC 97x4 (Bergamo)", 12, "DDR5", 4800,
     "AMD EPYC 9004 product pages: Memory Channels 12, Per Socket Mem BW 460.8 GB/s: "
     "https://www.amd.com/en/products/processors/server/epyc/4th-generation-9004-and-8004-"
     "series.html"},
    {"AuthenticAMD", 25, 160, "EPYC 8", "EPYC 8004 (Siena)", 6, "DDR5", 4800,
     "AMD EPYC 8004 product pages: Memory Channels 6: "
     "https://www.amd.com/en/products/processors/server/epyc/4th-generation-9004-and-8004-"
     "series.html"},
    {"AuthenticAMD", 26, 2, "EPYC 9", "EPYC 9005 (Turin)", 12, "DDR5", 6400,
     "AMD EPYC 9005 product pages: Memory Channels 12: "
     "https://www.amd.com/en/products/processors/server/epyc/9005-series.html"},
    {"AuthenticAMD", 26, 17, "EPYC 9", "EPYC 9005 (Turin dense)", 12, "DDR5", 6400,
     "AMD EPYC 9005 product pages: Memory Channels 12: "
     "https://www.amd.com/en/products/processors/server/epyc/9005-series.html"},
};

/* Whether the model name holds one of the "|"-separated words. */
static bool name_matches(const char *model_name, const char *names)
{
    if (!names) return true;
    for (const char *p = names; *p;) {
        size_t len = strcspn(p, "|");
        for (const char *m = model_name; (m = strchr(m, *p)); m++)
            if (!strncmp(m, p, len)) return true;
        p += len + (p[len] == '|');
    }
    return false;
}

const struct cpu_memory_row *cpu_memory_row_find(const struct cpu_identity *cpu)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (!strcmp(rows[i].vendor, cpu->vendor) && rows[i].family == cpu->family &&
            rows[i].model == cpu->model && name_matches(cpu->model_name, rows[i].names))
            return &rows[i];
    return NULL;
}
