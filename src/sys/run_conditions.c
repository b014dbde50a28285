/* The counters that move during a run (/proc/stat, /proc/self, /proc/vmstat, EDAC), and what
 * moved between two readings of them. */
#include "src/sys/run_conditions.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/sys/sysinfo.h"

const struct conditions_roots conditions_system = {"/proc", "/sys"};

int conditions_allowed_cpus(int *cpus, int max)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set)) cpus[n++] = c;
    return n;
}

static bool listed(int cpu, const int *cpus, int n_cpus)
{
    for (int i = 0; i < n_cpus; i++)
        if (cpus[i] == cpu) return true;
    return false;
}

/* The cpuN lines of /proc/stat for the listed CPUs, summed: every one of them, or none. */
static void read_stat(const char *proc, const int *cpus, int n_cpus, struct conditions_snapshot *s)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/stat", proc);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof(line), f)) {
        int cpu;
        /* user nice system idle iowait irq softirq steal (guest and guest_nice are already in
         * user and nice) */
        unsigned long long v[8] = {0};
        if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9' || /* not "cpu " */
            sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 9 ||
            !listed(cpu, cpus, n_cpus))
            continue;
        found++;
        for (int i = 0; i < 8; i++)
            s->ticks_total += v[i];
        s->ticks_busy += v[0] + v[1] + v[2] + v[5] + v[6];
        s->ticks_steal += v[7];
    }
    fclose(f);
    s->have_stat = n_cpus > 0 && found == n_cpus;
}

/* utime + stime of /proc/self/stat (fields 14 and 15; the name in field 2 may hold spaces). */
static void read_own(const char *proc, struct conditions_snapshot *s)
{
    char path[512], line[1024];
    snprintf(path, sizeof(path), "%s/self/stat", proc);
    if (read_first_line(path, line, sizeof(line)) != 0) return;
    char *p = strrchr(line, ')');
    unsigned long long utime, stime;
    if (!p || sscanf(p + 1, " %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &utime,
                     &stime) != 2)
        return;
    s->own_ticks = utime + stime;
    s->have_own = true;
}

/* The first two fields of every /proc/self/task/N/schedstat, summed. */
static void read_schedstat(const char *proc, struct conditions_snapshot *s)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/self/task", proc);
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    int read = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char file[800], line[256];
        snprintf(file, sizeof(file), "%s/%s/schedstat", path, e->d_name);
        unsigned long long run, wait;
        if (read_first_line(file, line, sizeof(line)) != 0 ||
            sscanf(line, "%llu %llu", &run, &wait) != 2)
            continue; /* a thread that just exited */
        s->own_run_ns += run;
        s->own_wait_ns += wait;
        read++;
    }
    closedir(d);
    s->have_schedstat = read > 0;
}

static void read_vmstat(const char *proc, struct conditions_snapshot *s)
{
    char path[512], line[256];
    snprintf(path, sizeof(path), "%s/vmstat", proc);
    FILE *f = fopen(path, "r");
    if (!f) return;
    int found = 0;
    unsigned long long v;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "pswpin %llu", &v) == 1) {
            s->pswpin = v;
            found |= 1;
        } else if (sscanf(line, "pswpout %llu", &v) == 1) {
            s->pswpout = v;
            found |= 2;
        }
    }
    fclose(f);
    s->have_vmstat = found == 3;
}

static bool read_count(const char *dir, const char *name, uint64_t *out)
{
    char path[600], line[64], *end;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (read_first_line(path, line, sizeof(line)) != 0) return false;
    *out = strtoull(line, &end, 10);
    return end != line;
}

/* mcN/ce_count and ue_count of every memory controller, in the order of N. */
static void read_edac(const char *sys, struct conditions_snapshot *s)
{
    for (int mc = 0; mc < CONDITIONS_MC_MAX; mc++) {
        char dir[512];
        snprintf(dir, sizeof(dir), "%s/devices/system/edac/mc/mc%d", sys, mc);
        if (!read_count(dir, "ce_count", &s->mc_ce[mc]) ||
            !read_count(dir, "ue_count", &s->mc_ue[mc]))
            break;
        s->n_mc = mc + 1;
    }
    s->have_edac = s->n_mc > 0;
}

int conditions_snapshot_read(const struct conditions_roots *r, const int *cpus, int n_cpus,
                             struct conditions_snapshot *out)
{
    *out = (struct conditions_snapshot){.at_s = timer_now()};
    read_stat(r->proc, cpus, n_cpus, out);
    read_own(r->proc, out);
    read_schedstat(r->proc, out);
    read_vmstat(r->proc, out);
    read_edac(r->sys, out);
    return 0;
}

/* after - before of a counter that only grows; -1 when it went back (a reset, a thread gone). */
static long long growth(uint64_t before, uint64_t after)
{
    return after >= before ? (long long)(after - before) : -1;
}

/* The /proc/stat shares: -1 unless both readings have them over enough ticks. */
static void stat_shares(const struct conditions_snapshot *b, const struct conditions_snapshot *a,
                        struct conditions_delta *d)
{
    long long total = growth(b->ticks_total, a->ticks_total);
    long long busy = growth(b->ticks_busy, a->ticks_busy);
    long long steal = growth(b->ticks_steal, a->ticks_steal);
    if (!b->have_stat || !a->have_stat || total < CONDITIONS_MIN_TICKS || busy < 0 || steal < 0)
        return;
    d->steal_share = (double)steal / (double)total;
    long long own = growth(b->own_ticks, a->own_ticks);
    if (!b->have_own || !a->have_own || own < 0) return;
    /* own may exceed busy by a tick of rounding at each end */
    d->others_share = busy > own ? (double)(busy - own) / (double)total : 0.0;
}

static void wait_share(const struct conditions_snapshot *b, const struct conditions_snapshot *a,
                       struct conditions_delta *d)
{
    long long wait = growth(b->own_wait_ns, a->own_wait_ns);
    long long run = growth(b->own_run_ns, a->own_run_ns);
    if (!b->have_schedstat || !a->have_schedstat || wait < 0 || run < 0 ||
        (unsigned long long)(wait + run) < CONDITIONS_MIN_SCHED_NS)
        return;
    d->wait_share = (double)wait / (double)(wait + run);
}

/* The counts' growth; a controller whose count went back was reset: all of its count is new. */
static void edac_growth(const struct conditions_snapshot *b, const struct conditions_snapshot *a,
                        struct conditions_delta *d)
{
    if (!a->have_edac) return;
    d->have_edac = true;
    for (int i = 0; i < a->n_mc; i++) {
        d->ce_total += a->mc_ce[i];
        d->ue_total += a->mc_ue[i];
    }
    if (!b->have_edac || b->n_mc != a->n_mc) return;
    d->ce_growth = d->ue_growth = 0;
    for (int i = 0; i < a->n_mc; i++) {
        long long ce = growth(b->mc_ce[i], a->mc_ce[i]), ue = growth(b->mc_ue[i], a->mc_ue[i]);
        d->ce_growth += ce >= 0 ? ce : (long long)a->mc_ce[i];
        d->ue_growth += ue >= 0 ? ue : (long long)a->mc_ue[i];
    }
}

void conditions_delta_of(const struct conditions_snapshot *before,
                         const struct conditions_snapshot *after, struct conditions_delta *out)
{
    *out = (struct conditions_delta){.elapsed_s = after->at_s - before->at_s,
                                     .steal_share = -1.0,
                                     .others_share = -1.0,
                                     .wait_share = -1.0,
                                     .swapped_pages = -1,
                                     .ce_growth = -1,
                                     .ue_growth = -1};
    stat_shares(before, after, out);
    wait_share(before, after, out);
    if (before->have_vmstat && after->have_vmstat) {
        long long in = growth(before->pswpin, after->pswpin);
        long long swapped = growth(before->pswpout, after->pswpout);
        out->swapped_pages = in >= 0 && swapped >= 0 ? in + swapped : -1;
    }
    edac_growth(before, after, out);
}
