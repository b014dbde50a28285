/* The node's settings a bandwidth figure rests on: NUMA balancing, THP, the run CPUs' cpufreq,
 * boost, and the DIMM labels of the EDAC counters. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/sys/run_conditions.h"
#include "src/sys/sysinfo.h"

/* The integer a small file holds; false when it is absent or holds none. */
static bool read_long(const char *path, long long *out)
{
    char line[64], *end;
    if (read_first_line(path, line, sizeof(line)) != 0) return false;
    *out = strtoll(line, &end, 10);
    return end != line;
}

/* One CPU's governor, cap and ceiling (kHz in sysfs, MHz here). */
static void read_cpufreq(const char *sys, int cpu, struct conditions_settings *s)
{
    char dir[512], path[600], governor[sizeof(s->governor)];
    snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d/cpufreq", sys, cpu);
    long long scaling_khz = 0, max_khz = 0;
    snprintf(path, sizeof(path), "%s/scaling_max_freq", dir);
    bool have_cap = read_long(path, &scaling_khz);
    snprintf(path, sizeof(path), "%s/cpuinfo_max_freq", dir);
    bool have_max = read_long(path, &max_khz);
    snprintf(path, sizeof(path), "%s/scaling_governor", dir);
    bool have_governor = read_first_line(path, governor, sizeof(governor)) == 0;
    if (!have_governor && !(have_cap && have_max)) return;
    if (s->n_cpufreq++ == 0 && have_governor)
        snprintf(s->governor, sizeof(s->governor), "%s", governor);
    if (have_governor && strcmp(governor, "performance") != 0) s->n_governor_other++;
    if (!have_cap || !have_max || max_khz <= 0) return;
    if (max_khz / 1000.0 > s->max_mhz) s->max_mhz = max_khz / 1000.0;
    if (scaling_khz >= max_khz) return;
    if (s->n_capped++ == 0 || scaling_khz / 1000.0 < s->capped_mhz)
        s->capped_mhz = scaling_khz / 1000.0;
}

/* cpufreq/boost (1 on), else intel_pstate's no_turbo (1 off); -1 without either. */
static int read_boost(const char *sys)
{
    char path[512];
    long long v;
    snprintf(path, sizeof(path), "%s/devices/system/cpu/cpufreq/boost", sys);
    if (read_long(path, &v)) return v != 0;
    snprintf(path, sizeof(path), "%s/devices/system/cpu/intel_pstate/no_turbo", sys);
    if (read_long(path, &v)) return v == 0;
    return -1;
}

/* Whether the "; " list holds label as one of its items (not a part of one: "DIMM_A1" is not
 * in "DIMM_A10"). */
static bool has_label(const char *list, const char *label)
{
    size_t n = strlen(label);
    for (const char *p = list; (p = strstr(p, label)); p++)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ';')) return true;
    return false;
}

/* label joins the "; " list in buf unless it is empty or already there. */
static void add_label(char *buf, size_t len, const char *label)
{
    if (!label[0] || has_label(buf, label)) return;
    size_t used = strlen(buf);
    if (used + strlen(label) + 3 > len) return; /* full: the first labels stay */
    snprintf(buf + used, len - used, "%s%s", used ? "; " : "", label);
}

static bool is_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) closedir(d);
    return d != NULL;
}

/* The labels of one controller, in the order of its DIMMs: dimmN/dimm_label, else (older
 * kernels) csrowN/chM_dimm_label. */
static void labels_of(const char *mc_dir, struct conditions_settings *s)
{
    char path[800], label[64];
    size_t before = strlen(s->edac_labels);
    for (int k = 0; k < 256; k++) {
        snprintf(path, sizeof(path), "%s/dimm%d", mc_dir, k);
        if (!is_dir(path)) break;
        snprintf(path, sizeof(path), "%s/dimm%d/dimm_label", mc_dir, k);
        if (read_first_line(path, label, sizeof(label)) == 0)
            add_label(s->edac_labels, sizeof(s->edac_labels), label);
    }
    if (strlen(s->edac_labels) != before) return;
    for (int k = 0; k < 256; k++) {
        snprintf(path, sizeof(path), "%s/csrow%d", mc_dir, k);
        if (!is_dir(path)) break;
        for (int ch = 0; ch < 16; ch++) {
            snprintf(path, sizeof(path), "%s/csrow%d/ch%d_dimm_label", mc_dir, k, ch);
            if (read_first_line(path, label, sizeof(label)) == 0)
                add_label(s->edac_labels, sizeof(s->edac_labels), label);
        }
    }
}

static void read_edac_labels(const char *sys, struct conditions_settings *s)
{
    for (int mc = 0; mc < CONDITIONS_MC_MAX; mc++) {
        char dir[512];
        snprintf(dir, sizeof(dir), "%s/devices/system/edac/mc/mc%d", sys, mc);
        if (!is_dir(dir)) break;
        labels_of(dir, s);
    }
}

void conditions_settings_read(const struct conditions_roots *r, const int *cpus, int n_cpus,
                              struct conditions_settings *out)
{
    *out = (struct conditions_settings){.numa_balancing = -1};
    char path[512];
    long long v;
    snprintf(path, sizeof(path), "%s/sys/kernel/numa_balancing", r->proc);
    if (read_long(path, &v)) out->numa_balancing = (int)v;
    snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled", r->sys);
    if (sysfs_selected_word(path, out->thp_enabled, sizeof(out->thp_enabled)) != 0)
        out->thp_enabled[0] = '\0';
    for (int i = 0; i < n_cpus; i++)
        read_cpufreq(r->sys, cpus[i], out);
    out->boost = read_boost(r->sys);
    read_edac_labels(r->sys, out);
}
