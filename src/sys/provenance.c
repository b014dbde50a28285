#include "src/sys/provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/base/text_list.h"
#include "src/sys/sysinfo.h"
#include "version.h"

extern char **environ;

/* The first whitespace-separated word of a file's first line. */
static int read_word(const char *path, char *buf, size_t len)
{
    char line[64], word[32];
    if (read_first_line(path, line, sizeof(line)) != 0 || sscanf(line, "%31s", word) != 1)
        return -1;
    snprintf(buf, len, "%s", word);
    return 0;
}

static double read_khz_as_mhz(const char *path)
{
    char buf[32];
    return read_word(path, buf, sizeof(buf)) == 0 ? atof(buf) / 1000.0 : 0.0;
}

static void cpuinfo_fields(struct provenance *p)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        char value[64];
        if (sscanf(line, "microcode : %63s", value) == 1 && !strcmp(p->microcode, "unknown"))
            snprintf(p->microcode, sizeof(p->microcode), "%.31s", value);
        double mhz;
        if (p->cur_mhz == 0.0 && sscanf(line, "cpu MHz : %lf", &mhz) == 1) p->cur_mhz = mhz;
    }
    fclose(f);
}

static void omp_variables(struct provenance *p)
{
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "OMP_", 4) || !strncmp(*e, "GOMP_", 5) || !strncmp(*e, "KMP_", 4))
            text_list_append(p->omp_env, sizeof(p->omp_env), *e);
}

void provenance_read(struct provenance *p)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->microcode, sizeof(p->microcode), "unknown");
    snprintf(p->governor, sizeof(p->governor), "unknown");
    read_word("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", p->governor,
              sizeof(p->governor));
    p->cur_mhz = read_khz_as_mhz("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
    p->max_mhz = read_khz_as_mhz("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    cpuinfo_fields(p);
    meminfo_value("/proc/meminfo", "MemTotal", &p->mem_total_bytes); /* stays 0 when absent */
#ifdef __clang__
    snprintf(p->compiler, sizeof(p->compiler), "clang %d.%d.%d", __clang_major__, __clang_minor__,
             __clang_patchlevel__);
#else
    snprintf(p->compiler, sizeof(p->compiler), "gcc %s", __VERSION__);
#endif
    snprintf(p->cflags, sizeof(p->cflags), "%s", MEMBENCH_CFLAGS);
    omp_variables(p);
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(p->start_iso, sizeof(p->start_iso), "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(p->peak_source, sizeof(p->peak_source), "unknown: the SMBIOS tables were not read");
}

void peak_from_inventory(const struct dimm_inventory *inv, struct provenance *p)
{
    p->peak_mbps = inv->ceiling_mbps > 0 ? inv->ceiling_mbps : 0.0;
    if (p->peak_mbps > 0)
        snprintf(p->peak_source, sizeof(p->peak_source), "%s", inv->source);
    else
        snprintf(p->peak_source, sizeof(p->peak_source), "unknown: %s; give --peak",
                 inv->why_unknown[0] ? inv->why_unknown : "the SMBIOS tables were not read");
}
