/* STREAM's runs in the text and quiet reports: each run's configuration and rates, or the NUMA
 * matrix or memory tiers they form, the page comparisons, and the summary in the tail. */
#include <stdbool.h>
#include <stddef.h>

#include "src/stream/report_stream.h"
#include "src/stream/report_stream_config.h"
#include "src/stream/report_stream_matrix.h"
#include "src/stream/report_stream_tiers.h"

#define RULE "-------------------------------------------------------------\n"

static void write_finish_spread(FILE *out, const struct run_result *r)
{
    if (r->config.threads < 2) return;
    fprintf(out, "Thread finish spread, median ms:");
    for (int i = 0; i < r->n_results; i++)
        fprintf(out, " %s %.3f", kernel_table[r->results[i].kernel].name,
                1e3 * r->results[i].finish_spread_s);
    fprintf(out, "\n");
}

static void write_reductions(FILE *out, const struct run_result *r)
{
    for (int i = 0; i < r->n_results; i++) {
        const struct kernel_result *k = &r->results[i];
        if (!k->reduction_checked) continue;
        double tol = reduction_tolerance(r->config.type);
        fprintf(out, "%s sum %s its closed form: max relative error %.3e %s %.1e\n",
                kernel_table[k->kernel].name,
                k->reduction_rel_error <= tol ? "matches" : "DOES NOT match",
                k->reduction_rel_error, k->reduction_rel_error <= tol ? "<=" : ">", tol);
    }
}

static void write_domains(FILE *out, const struct run_result *r)
{
    if (r->n_domains == 0) return;
    fprintf(out, "Per-%s best rates, MB/s (all domains measured at the same time):\n",
            domain_kind_name(r->config.per_domain));
    fprintf(out, "Domain     Threads");
    for (int i = 0; i < r->n_results; i++)
        fprintf(out, " %12s", kernel_table[r->results[i].kernel].name);
    fprintf(out, "\n");
    for (int d = 0; d < r->n_domains; d++) {
        const struct domain_result *dom = &r->domains[d];
        char label[32];
        snprintf(label, sizeof(label), "%s %d", domain_kind_name(r->config.per_domain), dom->index);
        fprintf(out, "%-10s %7d", label, dom->n_threads);
        for (int i = 0; i < r->n_results; i++)
            fprintf(out, " %12.1f", dom->best_rate_mbps[r->results[i].kernel]);
        fprintf(out, "\n");
    }
}

static bool array_failed(const struct validation_result *v, int i)
{
    return v->arrays[i].n_bad > 0 || v->failed_array == 'a' + i;
}

/* STREAM 5.10's lines, byte for byte, where STREAM would print them; membench's own check
 * (every element within the tolerance) on its own line after them. */
static void write_validation(FILE *out, const struct validation_result *v)
{
    double eps = v->stream_epsilon > 0 ? v->stream_epsilon : v->tolerance;
    bool failed = false, stream_eps_holds = true;
    for (int i = 0; i < 3; i++) {
        failed |= array_failed(v, i);
        stream_eps_holds &= v->arrays[i].avg_rel_error <= eps;
    }
    if (!failed && !v->passed && v->failed_reduction >= 0) { /* the arrays are right, a sum not */
        fprintf(out, "Failed Validation on the %s sum: it does not match its closed form\n",
                kernel_table[v->failed_reduction].name);
        return;
    }
    if (!failed) {
        /* Past STREAM's epsilon but within the tolerance, the bound that holds is printed. */
        fprintf(out, "Solution Validates: avg error less than %e on all three arrays\n",
                stream_eps_holds ? eps : v->tolerance);
        fprintf(out, "Validation: max relative error %.3e <= %.1e on every element\n",
                v->max_rel_error, v->tolerance);
        return;
    }
    for (int i = 0; i < 3; i++) {
        const struct array_errors *e = &v->arrays[i];
        char name = (char)('a' + i);
        if (!array_failed(v, i)) continue;
        if (e->avg_rel_error > eps) {
            fprintf(out, "Failed Validation on array %c[], AvgRelAbsErr > epsilon (%e)\n", name,
                    eps);
            fprintf(out, "     Expected Value: %e, AvgAbsErr: %e, AvgRelAbsErr: %e\n", e->expected,
                    e->avg_abs_error, e->avg_rel_error);
            if (i > 0) fprintf(out, "     AvgRelAbsErr > Epsilon (%e)\n", eps);
        } else {
            fprintf(out, "Failed Validation on array %c[], RelAbsErr > tolerance (%e)\n", name,
                    v->tolerance);
        }
        fprintf(out, "     For array %c[], %zu errors were found.\n", name, e->n_bad);
    }
    fprintf(out,
            "Validation: first bad element %c[%zu] = %.17g, expected %.17g; max relative error "
            "%.3e > %.1e\n",
            v->failed_array, v->first_bad_index, v->first_bad_value, v->first_bad_expected,
            v->max_rel_error, v->tolerance);
}

static void write_results(FILE *out, const struct run_result *r, double peak_mbps)
{
    fprintf(out, RULE "Function    Best Rate MB/s  Avg time     Min time     Max time\n");
    for (int i = 0; i < r->n_results; i++) {
        const struct kernel_result *k = &r->results[i];
        fprintf(out, "%s%12.1f  %11.6f  %11.6f  %11.6f\n", kernel_table[k->kernel].label,
                k->best_rate_mbps, k->avg_time_s, k->min_time_s, k->max_time_s);
    }
    fprintf(out, RULE);
    write_validation(out, &r->validation);
    if (peak_mbps > 0) {
        fprintf(out, "Of peak (%.1f MB/s):", peak_mbps);
        for (int i = 0; i < r->n_results; i++)
            fprintf(out, " %s %.0f%%", kernel_table[r->results[i].kernel].name,
                    100.0 * r->results[i].best_rate_mbps / peak_mbps);
        fprintf(out, "\n");
    }
    write_reductions(out, r);
    write_finish_spread(out, r);
    write_domains(out, r);
    for (int i = 0; i < r->n_warnings; i++)
        fprintf(out, "WARNING: %s\n", r->warnings[i]);
    fprintf(out, RULE);
}

/* The run's result of one kernel, or NULL. */
static const struct kernel_result *find_result(const struct run_result *r, int kernel)
{
    for (int i = 0; i < r->n_results; i++)
        if ((int)r->results[i].kernel == kernel) return &r->results[i];
    return NULL;
}

/* One row per run, so a sweep reads as a table (seed 001's thread and binding tables). */
static void write_summary(FILE *out, const struct stream_result *stream)
{
    unsigned kernels = 0;
    for (size_t i = 0; i < stream->n_runs; i++)
        kernels |= stream->runs[i].config.kernel_mask;
    fprintf(out, "Summary: best rate per run, MB/s\n");
    fprintf(out, "Run Threads Bind           Pages    Array size  ");
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (kernels & (1u << k)) fprintf(out, " %10s", kernel_table[k].name);
    fprintf(out, "  Valid\n");
    for (size_t i = 0; i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        char size[32];
        format_bytes(r->config.array_bytes, size, sizeof(size));
        fprintf(out, "%3zu %7u %-14.14s %-8.8s %-12s", i + 1, r->config.threads, r->config.bind,
                r->config.pages, size);
        for (int k = 0; k < KERNEL_COUNT; k++) {
            if (!(kernels & (1u << k))) continue;
            const struct kernel_result *x = find_result(r, k);
            if (x)
                fprintf(out, " %10.1f", x->best_rate_mbps);
            else
                fprintf(out, " %10s", "-");
        }
        fprintf(out, "  %s", r->validation.passed ? "yes" : "NO");
        if (r->config.below_stream_rule)
            fprintf(out, "%s  below the STREAM rule: caches inflate it",
                    r->validation.passed ? "" : " ");
        fputc('\n', out);
    }
    fprintf(out, RULE);
}

static void write_comparisons(FILE *out, const struct stream_result *stream)
{
    if (stream->n_comparisons == 0) return;
    const struct page_comparison *first = &stream->comparisons[0];
    bool several = false;
    for (size_t i = 0; i < stream->n_comparisons; i++)
        several |= stream->comparisons[i].baseline != first->baseline;
    fprintf(out, "Page backing A/B: best rates relative to --pages %s\n",
            stream->runs[first->baseline].config.pages);
    for (size_t i = 0; i < stream->n_comparisons; i++) {
        const struct page_comparison *c = &stream->comparisons[i];
        /* Never "Copy ...: x": STREAM parsers read a line starting with a kernel as a rate. */
        fprintf(out, "Comparison %s vs %s: %s %+.1f%%", stream->runs[c->variant].config.pages,
                stream->runs[c->baseline].config.pages, kernel_table[c->kernel].name,
                100.0 * c->relative_change);
        if (several) fprintf(out, " (run %zu vs run %zu)", c->variant + 1, c->baseline + 1);
        fputc('\n', out);
    }
    fprintf(out, RULE);
}

/* The runs before the tier runs, each with its configuration; or the matrix's cells. */
static size_t plain_runs(const struct stream_result *stream)
{
    return report_stream_is_matrix(stream) ? 0 : stream_first_tier_run(stream);
}

void report_stream_text(FILE *out, const struct stream_result *stream,
                        const struct measure_report_facts *f)
{
    if (report_stream_is_matrix(stream)) report_stream_matrix_text(out, stream, f->dry_run);
    for (size_t i = 0; i < plain_runs(stream); i++) {
        report_stream_config(out, stream, i);
        if (stream->runs[i].measured)
            write_results(out, &stream->runs[i], f->peak_mbps);
        else
            fprintf(out, RULE);
    }
    if (report_stream_is_tiers(stream)) report_stream_tiers_text(out, stream, f);
    write_comparisons(out, stream);
}

void report_stream_summary(FILE *out, const struct stream_result *stream,
                           const struct measure_report_facts *f)
{
    if (!f->dry_run && plain_runs(stream) > 1) write_summary(out, stream);
    report_stream_unmeasured_text(out, stream, f);
}

void report_stream_quiet(FILE *out, const struct stream_result *stream)
{
    for (size_t i = 0; i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        if (!r->measured) {
            fprintf(out, "threads=%u elements=%llu bytes=%llu planned\n", r->config.threads,
                    (unsigned long long)r->config.elements,
                    (unsigned long long)r->config.array_bytes);
            continue;
        }
        fprintf(out, "MB/s"); /* never a kernel name first: that is a STREAM rate row */
        for (int k = 0; k < r->n_results; k++)
            fprintf(out, " %s=%.1f", kernel_table[r->results[k].kernel].name,
                    r->results[k].best_rate_mbps);
        fprintf(out, " threads=%u bind=%s pages=%s elements=%llu type=%s", r->config.threads,
                r->config.bind, r->config.pages, (unsigned long long)r->config.elements,
                elem_type_name(r->config.type));
        if (r->config.numa_cell)
            fprintf(out, " cpu_node=%d mem_node=%d", r->config.cpu_node, r->config.mem_node);
        if (r->config.tier >= 0) fprintf(out, " tier=%s", r->config.tier_name);
        fprintf(out, " validated=%s%s%s\n", r->validation.passed ? "yes" : "NO",
                r->config.below_stream_rule ? " below_stream_rule=yes" : "",
                r->config.in_memcache ? " in_memory_side_cache=yes" : "");
    }
}
