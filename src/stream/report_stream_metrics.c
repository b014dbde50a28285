/* STREAM's runs in the OpenMetrics report: the kernels' rates and times and whether each run
 * validated, one sample per measured run (docs/output.md lists the families). */
#include <math.h>
#include <stddef.h>

#include "src/measure/report_metrics.h"
#include "src/stream/report_stream.h"

/* The run's labels: run (1-based, as in CSV), threads, bind, pages. */
static void run_labels(FILE *out, size_t index, const struct run_result *r)
{
    char n[24];
    snprintf(n, sizeof(n), "%zu", index + 1);
    metrics_label(out, "run", n);
    snprintf(n, sizeof(n), "%u", r->config.threads);
    metrics_label(out, "threads", n);
    metrics_label(out, "bind", r->config.bind);
    metrics_label(out, "pages", r->config.pages);
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

static bool any_measured(const struct stream_result *stream)
{
    for (size_t i = 0; i < stream->n_runs; i++)
        if (stream->runs[i].measured) return true;
    return false;
}

static void write_kernel_family(FILE *out, const struct stream_result *stream, const char *hostname,
                                const struct kernel_family *f)
{
    metrics_family(out, f->name, f->help);
    for (size_t i = 0; i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        for (int k = 0; r->measured && k < r->n_results; k++) {
            const struct kernel_result *x = &r->results[k];
            double v = *(const double *)((const char *)x + f->offset) * f->scale;
            if (!isfinite(v)) continue; /* never measured: no sample */
            metrics_sample_begin(out, hostname, f->name);
            run_labels(out, i, r);
            metrics_label(out, "kernel", kernel_table[x->kernel].name);
            metrics_label(out, "stores", kernel_stores_name(r, x));
            metrics_value(out, v);
        }
    }
}

void report_stream_metrics(FILE *out, const struct stream_result *stream,
                           const struct measure_report_facts *f)
{
    const char *hostname = f->hostname;
    if (!any_measured(stream)) return; /* a dry run, or probes only */
    for (size_t i = 0; i < sizeof(kernel_families) / sizeof(kernel_families[0]); i++)
        write_kernel_family(out, stream, hostname, &kernel_families[i]);
    metrics_family(
        out, "membench_stream_validated",
        "1 when the run's final arrays (and sums) matched their expected values, else 0.");
    for (size_t i = 0; i < stream->n_runs; i++) {
        if (!stream->runs[i].measured) continue;
        metrics_sample_begin(out, hostname, "membench_stream_validated");
        run_labels(out, i, &stream->runs[i]);
        metrics_value(out, stream->runs[i].validation.passed ? 1 : 0);
    }
}
