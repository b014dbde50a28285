#include <stdio.h>
#include <string.h>

#include "src/stream/results.h"
#include "src/sys/run_conditions.h"
#include "src/verdict/diagnosis_rules.h"

bool cause_steal(const struct diagnosis_facts *f, struct cause *c)
{
    const struct conditions_delta *d = f->during;
    if (!d || d->steal_share < DIAGNOSIS_CPU_SHARE_MIN) return false;
    snprintf(c->summary, sizeof(c->summary), "hypervisor took %.0f%% of the CPUs",
             100.0 * d->steal_share);
    snprintf(c->evidence, sizeof(c->evidence),
             "the hypervisor gave %.0f%% of the run's CPU time to other guests (steal in "
             "/proc/stat, over the %.1f s of the run)",
             100.0 * d->steal_share, d->elapsed_s);
    return true;
}

bool cause_other_work(const struct diagnosis_facts *f, struct cause *c)
{
    const struct conditions_delta *d = f->during;
    if (!d) return false;
    bool others = d->others_share >= DIAGNOSIS_CPU_SHARE_MIN;
    bool waited = d->wait_share >= DIAGNOSIS_CPU_SHARE_MIN;
    if (!others && !waited) return false;
    if (others)
        snprintf(c->summary, sizeof(c->summary), "other work took %.0f%% of the run's CPUs",
                 100.0 * d->others_share);
    else
        snprintf(c->summary, sizeof(c->summary), "membench waited %.0f%% of its time for a CPU",
                 100.0 * d->wait_share);
    char a[160] = "", b[160] = "";
    if (d->others_share >= 0)
        snprintf(a, sizeof(a),
                 "other processes used %.0f%% of the run's CPU time (/proc/stat less membench's "
                 "own)",
                 100.0 * d->others_share);
    if (d->wait_share >= 0)
        snprintf(b, sizeof(b),
                 "%smembench's threads waited %.0f%% of their time for a CPU (schedstat)",
                 a[0] ? "; " : "", 100.0 * d->wait_share);
    snprintf(c->evidence, sizeof(c->evidence), "%s%s", a, b);
    return true;
}

bool cause_swapping(const struct diagnosis_facts *f, struct cause *c)
{
    const struct conditions_delta *d = f->during;
    if (!d || d->swapped_pages <= 0) return false;
    snprintf(c->summary, sizeof(c->summary), "%lld pages swapped during the run", d->swapped_pages);
    snprintf(c->evidence, sizeof(c->evidence),
             "%lld pages were swapped in or out during the run (pswpin + pswpout, /proc/vmstat)",
             d->swapped_pages);
    return true;
}

bool cause_frequency(const struct diagnosis_facts *f, struct cause *c)
{
    const struct conditions_settings *s = f->settings;
    if (!s) return false;
    bool governor = s->governor[0] && strcmp(s->governor, "performance") != 0;
    if (!governor && s->n_capped <= 0 && s->boost != 0) return false;
    char parts[3][120] = {"", "", ""};
    if (governor)
        snprintf(parts[0], sizeof(parts[0]),
                 "the governor is '%.31s' (%d of the run's CPUs not "
                 "'performance')",
                 s->governor, s->n_governor_other);
    if (s->n_capped > 0)
        snprintf(parts[1], sizeof(parts[1]),
                 "%s%d CPUs capped at %.0f MHz of their %.0f MHz (scaling_max_freq)",
                 governor ? "; " : "", s->n_capped, s->capped_mhz, s->max_mhz);
    if (s->boost == 0)
        snprintf(parts[2], sizeof(parts[2]), "%sboost is off", governor || s->n_capped ? "; " : "");
    snprintf(c->summary, sizeof(c->summary), "%s",
             governor          ? "CPU governor not performance"
             : s->n_capped > 0 ? "CPU frequency capped"
                               : "CPU boost off");
    snprintf(c->evidence, sizeof(c->evidence), "%.100s%.100s%.100s (cpufreq)", parts[0], parts[1],
             parts[2]);
    return true;
}

bool cause_numa_balancing(const struct diagnosis_facts *f, struct cause *c)
{
    if (!f->settings || f->settings->numa_balancing <= 0) return false;
    snprintf(c->summary, sizeof(c->summary), "NUMA balancing on");
    snprintf(c->evidence, sizeof(c->evidence),
             "automatic NUMA balancing is on (/proc/sys/kernel/numa_balancing = %d): the kernel "
             "unmaps and migrates pages while the run measures",
             f->settings->numa_balancing);
    return true;
}

bool cause_thp_never(const struct diagnosis_facts *f, struct cause *c)
{
    if (!f->settings || strcmp(f->settings->thp_enabled, "never") != 0) return false;
    const char *pages = f->run ? f->run->config.pages : NULL;
    if (pages && strcmp(pages, "default") != 0 && strcmp(pages, "thp") != 0) return false;
    snprintf(c->summary, sizeof(c->summary), "THP never: 4 KB pages");
    snprintf(c->evidence, sizeof(c->evidence),
             "transparent huge pages are 'never' (/sys/kernel/mm/transparent_hugepage/enabled): "
             "the arrays were mapped with base pages, a TLB miss every page");
    return true;
}
