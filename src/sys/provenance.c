#include "src/sys/provenance.h"

#include <dirent.h>
#include <errno.h>
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
    peak_from_smbios("/sys/firmware/dmi/entries", p);
}

/* One SMBIOS type 17 (Memory Device) record: populated size, speed and data width. 0, 1 for
 * an empty slot, -1 for a record that is not one, -2 when it cannot be opened (errno). */
static int read_memory_device(const char *path, unsigned *speed, unsigned *width)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -2;
    unsigned char r[0x22] = {0};
    size_t got = fread(r, 1, sizeof(r), f);
    fclose(f);
    if (got < 0x17 || r[0] != 17) return -1;
    unsigned size = r[0x0C] | (unsigned)r[0x0D] << 8;
    if (size == 0) return 1; /* empty slot */
    unsigned data_width = r[0x0A] | (unsigned)r[0x0B] << 8;
    unsigned mts = r[0x15] | (unsigned)r[0x16] << 8;
    unsigned configured = got >= 0x22 ? (r[0x20] | (unsigned)r[0x21] << 8) : 0;
    *speed = configured && configured != 0xFFFF ? configured : mts;
    *width = data_width;
    return 0;
}

/* Why no estimate: what the SMBIOS tables under dir hold, or why they cannot be read. */
static void no_peak(struct provenance *p, const char *dir, int open_errno, unsigned records,
                    unsigned unreadable)
{
    const char *why = "SMBIOS lists no populated memory device";
    char text[128];
    if (open_errno == ENOENT) {
        snprintf(text, sizeof(text), "no SMBIOS tables (%.60s is absent)", dir);
        why = text;
    } else if (open_errno || (unreadable && unreadable == records)) {
        snprintf(text, sizeof(text), "the SMBIOS memory records cannot be read (%s)%s",
                 strerror(open_errno ? open_errno : EACCES), geteuid() == 0 ? "" : ": run as root");
        why = text;
    } else if (records == 0) {
        why = "SMBIOS lists no memory device (type 17), as a VM often does";
    }
    snprintf(p->peak_source, sizeof(p->peak_source), "unknown: %s; give --peak", why);
}

void peak_from_smbios(const char *dmi_entries, struct provenance *p)
{
    p->peak_mbps = 0.0;
    DIR *d = opendir(dmi_entries);
    if (!d) {
        no_peak(p, dmi_entries, errno, 0, 0);
        return;
    }
    struct dirent *e;
    unsigned dimms = 0, slowest = 0, width = 0, unknown = 0, records = 0, unreadable = 0;
    double total = 0.0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "17-", 3) != 0) continue;
        char path[512];
        snprintf(path, sizeof(path), "%s/%s/raw", dmi_entries, e->d_name);
        unsigned speed = 0, bits = 0;
        int got = read_memory_device(path, &speed, &bits);
        records++;
        unreadable += got == -2 && errno == EACCES;
        if (got != 0) continue;
        if (speed == 0 || speed == 0xFFFF || bits == 0 || bits == 0xFFFF) {
            unknown++;
            continue;
        }
        dimms++;
        total += (double)speed * (double)bits / 8.0; /* MT/s x bytes = MB/s */
        slowest = slowest && slowest < speed ? slowest : speed;
        width = bits;
    }
    closedir(d);
    if (unknown) {
        snprintf(p->peak_source, sizeof(p->peak_source),
                 "unknown: SMBIOS lists %u populated memory device%s without speed or width",
                 unknown, unknown == 1 ? "" : "s");
        return;
    }
    if (dimms == 0) {
        no_peak(p, dmi_entries, 0, records, unreadable);
        return;
    }
    p->peak_mbps = total;
    snprintf(p->peak_source, sizeof(p->peak_source),
             "SMBIOS estimate: %u DIMMs x %u MT/s x %u bit, assuming one DIMM per channel", dimms,
             slowest, width);
}
