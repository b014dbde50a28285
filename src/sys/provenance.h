#ifndef MEMBENCH_PROVENANCE_H
#define MEMBENCH_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

#include "src/sys/dimm_inventory.h"

/* Under which conditions the numbers were measured: recorded in every JSON report. */
struct provenance {
    char microcode[32];       /* "unknown" when /proc/cpuinfo has none */
    char governor[32];        /* cpufreq scaling governor, "unknown" without cpufreq */
    double cur_mhz, max_mhz;  /* 0 when unknown */
    uint64_t mem_total_bytes; /* MemTotal */
    char compiler[96];
    char cflags[256];
    char omp_env[512]; /* OMP_*, GOMP_*, KMP_* variables as "NAME=value; ..." */
    char start_iso[40];
    double duration_s;
    double peak_mbps;      /* --peak or SMBIOS estimate; 0 when unknown */
    char peak_source[256]; /* "--peak", dimm_inventory.source, or "unknown: why; give --peak" */
};

void provenance_read(struct provenance *p);

/* peak_mbps/peak_source from the DIMMs' ceiling, or unknown with the inventory's reason. */
void peak_from_inventory(const struct dimm_inventory *inv, struct provenance *p);

#endif
