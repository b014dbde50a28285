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
#define CONDITIONS_CPUS_MAX 1024

/* Below these a share is unknown (-1): /proc/stat counts in USER_HZ ticks (10 ms), each CPU's
 * tick charged to whatever ran at that moment, so a share of fewer than 100 ticks over the
 * run's CPUs (one CPU-second) is off by more than a few percent; schedstat counts in ns, but a
 * thread's wait comes in scheduler slices of a few ms, so under 100 ms of its run and wait a
 * share is one slice's luck. */
#define CONDITIONS_MIN_TICKS 100
#define CONDITIONS_MIN_SCHED_NS 100000000ull

/* One reading of the counters that move during a run. */
struct conditions_snapshot {
    double at_s; /* timer_now() */
    /* /proc/stat, summed over the CPUs of the run (cpuN lines), in USER_HZ ticks */
    bool have_stat;
    uint64_t ticks_total, ticks_busy, ticks_steal;
    /* this process's own CPU time (utime + stime of /proc/self/stat, exited threads included) */
    bool have_own;
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
    int n_cpufreq; /* run CPUs whose cpufreq could be read; 0: none (the next three unknown) */
    /* run CPUs whose scaling_max_freq is below cpuinfo_max_freq, and the lowest such cap;
     * max_mhz: the highest cpuinfo_max_freq of the run's CPUs; 0 unknown */
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
    bool have_edac;                 /* ce_total and ue_total were read */
    uint64_t ce_total, ue_total;    /* the counts at the end (since boot or a reset) */
};

/* The CPUs this process may run on (sched_getaffinity), ascending, at most max: how many;
 * 0 when it cannot be read. */
int conditions_allowed_cpus(int *cpus, int max);

/* The snapshot of this moment, over the CPUs cpus[0..n_cpus) (their OS numbers). Returns 0
 * (fields that could not be read say so). */
int conditions_snapshot_read(const struct conditions_roots *r, const int *cpus, int n_cpus,
                             struct conditions_snapshot *out);
void conditions_settings_read(const struct conditions_roots *r, const int *cpus, int n_cpus,
                              struct conditions_settings *out);
void conditions_delta_of(const struct conditions_snapshot *before,
                         const struct conditions_snapshot *after, struct conditions_delta *out);

#endif
