#ifndef MEMBENCH_REPORT_H
#define MEMBENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "affinity/topology.h"
#include "src/base/clock.h"
#include "src/measure/measure.h"
#include "src/stream/stream_result.h"
#include "src/sys/provenance.h"
#include "src/sys/run_conditions.h"
#include "src/sys/sysinfo.h"
#include "src/verdict/acceptance.h"
#include "src/verdict/diagnosis.h"
#include "src/verdict/efficiency.h"
#include "src/verdict/reference.h"

/* What else happened on the run's CPUs while it measured, and the settings its figures rest
 * on (src/sys/run_conditions.h). */
struct run_conditions {
    bool read;     /* the settings were read (a node run; not a report built by a test) */
    bool measured; /* delta holds the run's (not --dry-run, and a measurement started) */
    int n_cpus;    /* the run's CPUs: the ones this process may run on */
    int cpus[CONDITIONS_CPUS_MAX];
    struct conditions_settings settings;
    struct conditions_snapshot before; /* just before the first measurement */
    struct conditions_delta delta;
};

/* The whole report of one node: its facts, the measurements that ran and the verdict. The
 * writers below only format the node's facts and the verdict, and loop over the parts for the
 * measurements' sections. */
struct report {
    const char *version;
    struct provenance prov;
    struct topology_facts topo;
    const struct node_memory *memory;   /* every NUMA node (the topology's); NULL in tests */
    const struct dimm_inventory *dimms; /* SMBIOS's DIMMs and their ceiling; NULL: none read */
    const struct cpu_identity *cpu;     /* /proc/cpuinfo's vendor, family, model; NULL: unread */
    struct sys_info sys;
    struct timer_info timer;
    bool dry_run;
    int interrupted; /* the signal that stopped a sweep early; 0 when it ran to the end */
    /* when it stopped early (a signal, or a later run's resource missing): what the report
     * holds, e.g. "the TLB probe stopped in the 4 KB sweep at 1024 pages; reporting the 23
     * points measured"; empty when it ran to the end */
    char kept[1024];
    struct run_conditions conditions;
    struct acceptance_result acceptance; /* evaluated with --acceptance/--expect/--reference */
    struct efficiency efficiency;        /* the judged run against the node's ceiling */
    struct diagnosis diagnosis;          /* the likely causes of a shortfall, worst first */
    /* the measurements that ran, in the order they ran, then those in every report that did
     * not (m->in_every_report, their results zeroed): each writer writes their sections through
     * their descriptors, slot by slot */
    size_t n_parts;
    struct measured_part parts[MEASURE_PARTS_MAX];
};

/* The judged measurement's result (STREAM's runs) among the parts, for the verdict and the
 * saved reference; one without runs when it did not run. */
static inline const struct stream_result *report_stream(const struct report *rep)
{
    static const struct stream_result none;
    for (size_t i = 0; i < rep->n_parts; i++)
        if (rep->parts[i].m->judged) return rep->parts[i].result;
    return &none;
}

/* What the verdict needs of the node (src/verdict): pointers into the report. */
static inline struct node_facts report_node_facts(const struct report *rep)
{
    const struct stream_result *s = report_stream(rep);
    size_t first = 1; /* a verdict's tier runs follow runs[0] */
    while (first < s->n_runs && !s->runs[first].config.verdict_tier)
        first++;
    return (struct node_facts){rep->version,
                               &rep->prov,
                               &rep->topo,
                               &rep->sys,
                               rep->memory,
                               s->runs + (first < s->n_runs ? first : 0),
                               first < s->n_runs ? s->n_runs - first : 0};
}

/* What the measurements' writers read of the report beside their results. */
static inline struct measure_report_facts report_facts(const struct report *rep)
{
    return (struct measure_report_facts){.dry_run = rep->dry_run,
                                         .peak_mbps = rep->prov.peak_mbps,
                                         .memory = rep->memory,
                                         .hostname = rep->sys.hostname,
                                         .start_iso = rep->prov.start_iso,
                                         .version = rep->version};
}

/* Writers only format a finished report; they measure nothing. Return 0, or -1 on I/O error. */
int report_write_text(FILE *out, const struct report *rep);
int report_write_quiet(FILE *out, const struct report *rep);
int report_write_csv(FILE *out, const struct report *rep);
int report_write_json(FILE *out, const struct report *rep);
/* Prometheus text format 0.0.4 (node_exporter's textfile collector): --format openmetrics and
 * --metrics-file. */
int report_write_openmetrics(FILE *out, const struct report *rep);
/* The JSON "run_conditions" object (report_conditions.c). */
struct json_t *report_conditions_json(const struct run_conditions *c);

#endif
