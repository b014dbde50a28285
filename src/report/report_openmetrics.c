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

static void family(FILE *out, const char *name, const char *help)
{
    metrics_family(out, name, help);
}

/* NAME{hostname="..." (then the caller's labels): opens a sample; sample_value closes it. */
static void sample_begin(FILE *out, const struct report *rep, const char *name)
{
    metrics_sample_begin(out, rep->sys.hostname, name);
}

static void label(FILE *out, const char *key, const char *value)
{
    metrics_label(out, key, value);
}

static void sample_value(FILE *out, double v)
{
    metrics_value(out, v);
}

/* The run's labels: run (1-based, as in CSV), threads, bind, pages. */
static void run_labels(FILE *out, size_t index, const struct run_result *r)
{
    char n[24];
    snprintf(n, sizeof(n), "%zu", index + 1);
    label(out, "run", n);
    snprintf(n, sizeof(n), "%u", r->config.threads);
    label(out, "threads", n);
    label(out, "bind", r->config.bind);
    label(out, "pages", r->config.pages);
}

/* The STREAM families: one sample per measured run and kernel. */
struct kernel_family {
    const char *name, *help;
    double scale;
    size_t offset; /* of the double in struct kernel_result */
};

static const struct kernel_family kernel_families[] = {
    {"membench_stream_bandwidth_bytes_per_second",
     "Best rate of a STREAM kernel: the bytes STREAM counts over the minimum time (the text "
     "report's MB/s x 10^6).",
     1e6, offsetof(struct kernel_result, best_rate_mbps)},
    {"membench_stream_min_time_seconds", "Fastest pass of a STREAM kernel over repetitions 2..N.",
     1.0, offsetof(struct kernel_result, min_time_s)},
    {"membench_stream_avg_time_seconds", "Average pass of a STREAM kernel over repetitions 2..N.",
     1.0, offsetof(struct kernel_result, avg_time_s)},
    {"membench_stream_max_time_seconds", "Slowest pass of a STREAM kernel over repetitions 2..N.",
     1.0, offsetof(struct kernel_result, max_time_s)},
};

static bool any_measured(const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    for (size_t i = 0; i < stream->n_runs; i++)
        if (stream->runs[i].measured) return true;
    return false;
}

static void write_kernel_family(FILE *out, const struct report *rep, const struct kernel_family *f)
{
    const struct stream_result *stream = report_stream(rep);
    family(out, f->name, f->help);
    for (size_t i = 0; i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        for (int k = 0; r->measured && k < r->n_results; k++) {
            const struct kernel_result *x = &r->results[k];
            double v = *(const double *)((const char *)x + f->offset) * f->scale;
            if (!isfinite(v)) continue; /* never measured: no sample */
            sample_begin(out, rep, f->name);
            run_labels(out, i, r);
            label(out, "kernel", kernel_table[x->kernel].name);
            label(out, "stores", kernel_stores_name(r, x));
            sample_value(out, v);
        }
    }
}

static void write_stream(FILE *out, const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    if (!any_measured(rep)) return; /* a dry run, or probes only */
    for (size_t f = 0; f < sizeof(kernel_families) / sizeof(kernel_families[0]); f++)
        write_kernel_family(out, rep, &kernel_families[f]);
    family(out, "membench_stream_validated",
           "1 when the run's final arrays (and sums) matched their expected values, else 0.");
    for (size_t i = 0; i < stream->n_runs; i++) {
        if (!stream->runs[i].measured) continue;
        sample_begin(out, rep, "membench_stream_validated");
        run_labels(out, i, &stream->runs[i]);
        sample_value(out, stream->runs[i].validation.passed ? 1 : 0);
    }
}

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
            if (!head) family(out, mf->name, mf->help);
            head = true;
            char os[16];
            snprintf(os, sizeof(os), "%u", n->os);
            sample_begin(out, rep, mf->name);
            label(out, "node", os);
            label(out, "kind", m->tiers[n->tier].kind);
            label(out, "tier", m->tiers[n->tier].name);
            sample_value(out, (double)v * mf->scale);
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
    family(out, "membench_acceptance_verdict",
           "The verdict of --acceptance/--expect/--reference: 1 for the one given, 0 for the "
           "others.");
    enum verdict v = verdict_of(a);
    for (int i = 0; i < VERDICT_COUNT; i++) {
        sample_begin(out, rep, "membench_acceptance_verdict");
        label(out, "verdict", verdict_names[i]);
        sample_value(out, i == (int)v ? 1 : 0);
    }
    family(out, "membench_acceptance_check_passed",
           "1 when the acceptance check passed, else 0 (the checks of the text report).");
    for (int i = 0; i < a->n_checks; i++) {
        char name[64];
        check_label(a, i, name, sizeof(name));
        sample_begin(out, rep, "membench_acceptance_check_passed");
        label(out, "check", name);
        sample_value(out, a->checks[i].passed ? 1 : 0);
    }
    family(out, "membench_acceptance_tolerance_ratio",
           "Allowed shortfall below the expected rates, as a fraction (--tolerance / 100).");
    sample_begin(out, rep, "membench_acceptance_tolerance_ratio");
    sample_value(out, a->tolerance_pct / 100.0);
}

static void write_run_facts(FILE *out, const struct report *rep)
{
    family(out, "membench_build_info", "membench's version, in the label; the value is 1.");
    sample_begin(out, rep, "membench_build_info");
    label(out, "version", rep->version);
    sample_value(out, 1);
    struct tm tm = {0};
    const char *end = strptime(rep->prov.start_iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (end && !*end) {
        family(out, "membench_start_time_seconds", "When the run started, in unix seconds.");
        sample_begin(out, rep, "membench_start_time_seconds");
        sample_value(out, (double)timegm(&tm));
    }
    if (rep->prov.duration_s > 0 && isfinite(rep->prov.duration_s)) {
        family(out, "membench_duration_seconds", "How long the whole run took.");
        sample_begin(out, rep, "membench_duration_seconds");
        sample_value(out, rep->prov.duration_s);
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
    write_stream(out, rep);
    write_parts(out, rep, MEASURE_BEFORE_TAIL);
    write_acceptance(out, rep);
    write_parts(out, rep, MEASURE_AFTER_TAIL);
    fputs("# EOF\n", out);
    return ferror(out) ? -1 : 0;
}
