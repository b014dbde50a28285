#ifndef MEMBENCH_PROVENANCE_H
#define MEMBENCH_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

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
    char peak_source[160]; /* "--peak", "SMBIOS: 8 DIMMs x 1600 MT/s x 64 bit ..." */
};

void provenance_read(struct provenance *p);

/* Fills peak_mbps/peak_source from SMBIOS type 17 records under dmi_entries (normally
 * /sys/firmware/dmi/entries); leaves them unknown with a reason in peak_source otherwise. */
void peak_from_smbios(const char *dmi_entries, struct provenance *p);

#endif
