/* The report as metrics for node_exporter's textfile collector (--format openmetrics,
 * --metrics-file): Prometheus text format 0.0.4, which the collector reads, kept inside what
 * OpenMetrics 1.0 also accepts: every family a gauge with # HELP and # TYPE, units in the
 * names, no timestamps, and a last line "# EOF" (OpenMetrics needs it; to the 0.0.4 parser it
 * is a comment). A value that was not measured has no sample. docs/output.md lists the
 * families. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "src/measure/report_metrics.h"
#include "src/report/report.h"
#include "src/report/report_diagnosis.h"

/* The node's memory: every NUMA node by its OS number, with its kind and tier; what the
 * firmware (HMAT) says of it where it says something. */
struct memory_family {
    const char *name, *help;
    double scale;
    size_t offset; /* of the uint64_t in struct mem_node; 0 means not given */
};

static const struct memory_family memory_families[] = {
    {"membench_memory_node_bytes", "Capacity of a NUMA node (node: the OS's number).", 1.0,
     offsetof(struct mem_node, bytes)},
    {"membench_memory_node_firmware_bandwidth_bytes_per_second",
     "The bandwidth ACPI HMAT gives to a NUMA node from its nearest cores (hwloc's Bandwidth).",
     1e6, offsetof(struct mem_node, firmware.bandwidth)},
    {"membench_memory_node_firmware_latency_seconds",
     "The latency ACPI HMAT gives to a NUMA node from its nearest cores (hwloc's Latency).", 1e-9,
     offsetof(struct mem_node, firmware.latency)},
};

static void write_memory(FILE *out, const struct report *rep)
{
    const struct node_memory *m = rep->memory;
    if (!m) return;
    for (size_t f = 0; f < sizeof(memory_families) / sizeof(memory_families[0]); f++) {
        const struct memory_family *mf = &memory_families[f];
        bool head = false;
        for (int i = 0; i < m->count; i++) {
            const struct mem_node *n = &m->nodes[i];
            uint64_t v = *(const uint64_t *)((const char *)n + mf->offset);
            if (v == 0) continue;
            if (!head) metrics_family(out, mf->name, mf->help);
            head = true;
            char os[16];
            snprintf(os, sizeof(os), "%u", n->os);
            metrics_sample_begin(out, rep->sys.hostname, mf->name);
            metrics_label(out, "node", os);
            metrics_label(out, "kind", m->tiers[n->tier].kind);
            metrics_label(out, "tier", m->tiers[n->tier].name);
            metrics_value(out, (double)v * mf->scale);
        }
    }
}

/* The verdicts the acceptance family names, one sample each: 1 for the one that happened. */
enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_INCONCLUSIVE, VERDICT_COUNT };
static const char *const verdict_names[VERDICT_COUNT] = {"pass", "fail", "inconclusive"};

static enum verdict verdict_of(const struct acceptance_result *a)
{
    switch (acceptance_verdict(a)) {
    case CHECK_PASS: return VERDICT_PASS;
    case CHECK_INCONCLUSIVE: return VERDICT_INCONCLUSIVE;
    default: return VERDICT_FAIL;
    }
}

/* A check's label: its name, made unique by "#N" when an earlier check has the same one. */
static void check_label(const struct acceptance_result *a, int i, char *buf, size_t len)
{
    int same = 0;
    for (int j = 0; j < i; j++)
        same += strcmp(a->checks[j].name, a->checks[i].name) == 0;
    if (same)
        snprintf(buf, len, "%s#%d", a->checks[i].name, same + 1);
    else
        snprintf(buf, len, "%s", a->checks[i].name);
}

static void write_acceptance(FILE *out, const struct report *rep)
{
    const struct acceptance_result *a = &rep->acceptance;
    if (!a->evaluated) return;
    metrics_family(
        out, "membench_acceptance_verdict",
        "The verdict of --acceptance/--expect/--reference: 1 for the one given, 0 for the "
        "others.");
    enum verdict v = verdict_of(a);
    for (int i = 0; i < VERDICT_COUNT; i++) {
        metrics_sample_begin(out, rep->sys.hostname, "membench_acceptance_verdict");
        metrics_label(out, "verdict", verdict_names[i]);
        metrics_value(out, i == (int)v ? 1 : 0);
    }
    metrics_family(out, "membench_acceptance_check_passed",
                   "1 when the acceptance check passed, else 0 (the checks of the text report).");
    for (int i = 0; i < a->n_checks; i++) {
        char name[64];
        check_label(a, i, name, sizeof(name));
        metrics_sample_begin(out, rep->sys.hostname, "membench_acceptance_check_passed");
        metrics_label(out, "check", name);
        metrics_value(out, a->checks[i].passed ? 1 : 0);
    }
    metrics_family(
        out, "membench_acceptance_tolerance_ratio",
        "Allowed shortfall below the expected rates, as a fraction (--tolerance / 100).");
    metrics_sample_begin(out, rep->sys.hostname, "membench_acceptance_tolerance_ratio");
    metrics_value(out, a->tolerance_pct / 100.0);
}

static void write_run_facts(FILE *out, const struct report *rep)
{
    metrics_family(out, "membench_build_info", "membench's version, in the label; the value is 1.");
    metrics_sample_begin(out, rep->sys.hostname, "membench_build_info");
    metrics_label(out, "version", rep->version);
    metrics_value(out, 1);
    struct tm tm = {0};
    const char *end = strptime(rep->prov.start_iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (end && !*end) {
        metrics_family(out, "membench_start_time_seconds",
                       "When the run started, in unix seconds.");
        metrics_sample_begin(out, rep->sys.hostname, "membench_start_time_seconds");
        metrics_value(out, (double)timegm(&tm));
    }
    if (rep->prov.duration_s > 0 && isfinite(rep->prov.duration_s)) {
        metrics_family(out, "membench_duration_seconds", "How long the whole run took.");
        metrics_sample_begin(out, rep->sys.hostname, "membench_duration_seconds");
        metrics_value(out, rep->prov.duration_s);
    }
}

/* The families of the measurements that go into this slot, in the order they ran. */
static void write_parts(FILE *out, const struct report *rep, enum measure_slot slot)
{
    struct measure_report_facts f = report_facts(rep);
    for (size_t i = 0; i < rep->n_parts; i++)
        if (rep->parts[i].m->metrics && rep->parts[i].m->data_slot == slot)
            rep->parts[i].m->metrics(out, rep->parts[i].result, &f);
}

int report_write_openmetrics(FILE *out, const struct report *rep)
{
    write_run_facts(out, rep);
    write_memory(out, rep);
    write_parts(out, rep, MEASURE_LEAD);
    write_parts(out, rep, MEASURE_BEFORE_TAIL);
    write_acceptance(out, rep);
    report_diagnosis_metrics(out, rep);
    write_parts(out, rep, MEASURE_AFTER_TAIL);
    fputs("# EOF\n", out);
    return ferror(out) ? -1 : 0;
}
