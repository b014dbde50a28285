#include "src/verdict/diagnosis.h"

#include <stdio.h>
#include <string.h>

#include "src/verdict/acceptance.h"
#include "src/verdict/diagnosis_rules.h"

/* Each likely cause, worst first: what a failing DIMM or a missing channel costs is larger
 * than what a setting costs. disturbance: it concerns the measurement itself, so it is named
 * whatever the verdict. */
static const struct cause_rule {
    const char *id;
    bool disturbance;
    cause_test found;
    const char *remedy;
} RULES[] = {
    {"memory_errors_during_run", true, cause_uncorrected_during_run,
     "replace the DIMM the memory controller names (edac-util -v, the BMC's event log)"},
    {"memory_errors_uncorrected", false, cause_uncorrected_since_boot,
     "replace the DIMM the memory controller names (edac-util -v, the BMC's event log)"},
    {"empty_channel", false, cause_empty_channel,
     "seat a DIMM in every channel, or find the DIMM the firmware mapped out (the BMC's event "
     "log, the BIOS memory screen)"},
    {"unbalanced_sockets", false, cause_unbalanced_sockets,
     "populate every socket alike (the vendor's memory population guide)"},
    {"dimms_below_rated_speed", false, cause_below_rated,
     "check the BIOS memory frequency; 2 DIMMs per channel or mixed DIMMs lower it by design "
     "(the vendor's population guide)"},
    {"mixed_dimms", false, cause_mixed_dimms,
     "populate each socket's channels with identical DIMMs"},
    {"cpu_steal", true, cause_steal,
     "measure on a dedicated host, or one whose vCPUs the hypervisor does not share"},
    {"other_work", true, cause_other_work,
     "measure on an idle node (Slurm: --exclusive; the health check with "
     "HealthCheckNodeState=IDLE)"},
    {"swapping", true, cause_swapping, "free memory, or measure with a smaller --size"},
    {"slow_domain", false, cause_slow_domain,
     "check that domain's DIMMs, channels and memory errors (its socket's population above)"},
    {"frequency_capped", false, cause_frequency,
     "cpupower frequency-set -g performance; raise scaling_max_freq; enable boost in the BIOS"},
    {"numa_balancing", false, cause_numa_balancing,
     "turn it off for acceptance runs: sysctl kernel.numa_balancing=0"},
    {"thp_never", false, cause_thp_never,
     "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled, or measure with --pages 2m"},
    {"corrected_memory_errors", false, cause_corrected_errors,
     "watch the count (edac-util -v); a DIMM whose count grows is failing"},
};

/* Why the node's own configuration is looked at: a verdict other than PASS, or an efficiency
 * below the published range; "" for a node that looks healthy. */
static void asked_by(const struct diagnosis_facts *f, char *buf, size_t len)
{
    buf[0] = '\0';
    if (f->verdict && f->verdict->evaluated && acceptance_verdict(f->verdict) != CHECK_PASS) {
        snprintf(buf, len, "verdict %s", check_verdict_name(acceptance_verdict(f->verdict)));
        return;
    }
    const struct efficiency *e = f->efficiency;
    if (efficiency_below_typical(e))
        snprintf(buf, len, "%s at %.0f%% of the ceiling, below the typical %.0f-%.0f%% for %s",
                 e->kernel, e->pct, e->typical_min_pct, e->typical_max_pct, e->cpu_class);
}

/* The causes found, worst first; the node's configuration only when node_too. */
static int find_causes(const struct diagnosis_facts *f, bool node_too, struct cause *causes)
{
    int n = 0;
    for (size_t i = 0; i < sizeof(RULES) / sizeof(RULES[0]) && n < DIAGNOSIS_CAUSES_MAX; i++) {
        const struct cause_rule *r = &RULES[i];
        if (!r->disturbance && !node_too) continue;
        struct cause *c = &causes[n];
        if (!r->found(f, c)) {
            memset(c, 0, sizeof(*c));
            continue;
        }
        c->id = r->id;
        c->remedy = r->remedy;
        n++;
    }
    return n;
}

void diagnosis_make(const struct diagnosis_facts *f, struct diagnosis *out)
{
    memset(out, 0, sizeof(*out));
    asked_by(f, out->asked_by, sizeof(out->asked_by));
    out->n = find_causes(f, out->asked_by[0] != '\0', out->causes);
    out->n_if_short = find_causes(f, true, out->if_short);
}
