#ifndef MEMBENCH_RUN_CONDITIONS_H
#define MEMBENCH_RUN_CONDITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What else happened on the node while membench measured, and the settings that shape a
 * bandwidth figure: read before the first measurement and after the last, never changed.
 * Every field says whether it could be read; a figure that could not is never made up. */

struct conditions_roots {
    const char *proc; /* "/proc" */
    const char *sys;  /* "/sys" */
};

extern const struct conditions_roots conditions_system; /* {"/proc", "/sys"} */

#define CONDITIONS_MC_MAX 32

/* One reading of the counters that move during a run. */
struct conditions_snapshot {
    double at_s; /* timer_now() */
    /* /proc/stat, summed over the CPUs of the run (cpuN lines), in USER_HZ ticks */
    bool have_stat;
    uint64_t ticks_total, ticks_busy, ticks_steal;
    /* this process's own CPU time (utime + stime of /proc/self/stat, exited threads included) */
    uint64_t own_ticks;
    /* this process's threads' time spent runnable but waiting for a CPU (the second field of
     * /proc/self/task/N/schedstat, summed), in ns */
    bool have_schedstat;
    uint64_t own_wait_ns, own_run_ns;
    /* /proc/vmstat */
    bool have_vmstat;
    uint64_t pswpin, pswpout;
    /* /sys/devices/system/edac/mc/mcN/{ce_count,ue_count} */
    bool have_edac;
    int n_mc;
    uint64_t mc_ce[CONDITIONS_MC_MAX], mc_ue[CONDITIONS_MC_MAX];
};

/* The node's settings that a run's figure depends on, read once. */
struct conditions_settings {
    int numa_balancing;   /* /proc/sys/kernel/numa_balancing; -1 when absent */
    char thp_enabled[16]; /* "always", "madvise", "never"; "" when absent */
    char governor[32];    /* of the run's first CPU; "" without cpufreq */
    int n_governor_other; /* run CPUs whose governor differs from "performance" */
    /* run CPUs whose scaling_max_freq is below cpuinfo_max_freq, and the lowest such cap */
    int n_capped;
    double capped_mhz, max_mhz;
    int boost; /* /sys/devices/system/cpu/cpufreq/boost or intel_pstate no_turbo: 1 on, 0 off,
                  -1 unknown */
    char edac_labels[240]; /* the DIMM labels of the memory controllers' counters, "" none */
};

/* What moved between two snapshots. Shares are fractions 0..1; -1 when unknown. */
struct conditions_delta {
    double elapsed_s;
    double steal_share;      /* steal / all ticks of the run's CPUs */
    double others_share;     /* (busy ticks - membench's own) / all ticks of the run's CPUs */
    double wait_share;       /* membench's threads' wait for a CPU / (their wait + run) */
    long long swapped_pages; /* pswpin + pswpout growth; -1 unknown */
    long long ce_growth, ue_growth; /* EDAC counts' growth; -1 unknown */
    uint64_t ce_total, ue_total;    /* the counts at the end (since boot) */
};

/* The snapshot of this moment, over the CPUs cpus[0..n_cpus) (their OS numbers). Returns 0
 * (fields that could not be read say so). */
int conditions_snapshot_read(const struct conditions_roots *r, const int *cpus, int n_cpus,
                             struct conditions_snapshot *out);
void conditions_settings_read(const struct conditions_roots *r, const int *cpus, int n_cpus,
                              struct conditions_settings *out);
void conditions_delta_of(const struct conditions_snapshot *before,
                         const struct conditions_snapshot *after, struct conditions_delta *out);

#endif
