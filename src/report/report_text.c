#include <stddef.h>
#include <string.h>

#include "src/base/interrupt.h"
#include "src/base/page_sizes.h"
#include "src/base/utf8_text.h"
#include "src/report/report.h"
#include "src/report/report_matrix.h"
#include "src/report/report_memory.h"
#include "src/report/report_tiers.h"
#include "src/report/report_text_config.h"

#define RULE "-------------------------------------------------------------\n"

/* The memory-side caches that the arrays' nodes have in front, and every NUMA node. */
static void write_memory_facts(FILE *out, const struct report *rep)
{
    const struct topology_facts *t = &rep->topo;
    if (t->memcache.count) {
        char total[32];
        format_bytes(t->memcache.bytes, total, sizeof(total));
        fprintf(out, "Memory-side cache: %d instance%s, %s in total, in front of NUMA node%s %s\n",
                t->memcache.count, t->memcache.count == 1 ? "" : "s", total,
                strpbrk(t->memcache.nodes, ",-") ? "s" : "", t->memcache.nodes);
    }
    if (rep->memory) report_memory_text(out, rep->memory);
}

static void write_system(FILE *out, const struct report *rep)
{
    const struct topology_facts *t = &rep->topo;
    const struct sys_info *s = &rep->sys;
    fprintf(out, RULE "membench %s: STREAM-style memory bandwidth\n" RULE, rep->version);
    char shown[TEXT_PRINTABLE_CAP(sizeof(s->hostname))]; /* the longest of the names below */
    fprintf(out, "Host: %s, ", text_printable(shown, sizeof(shown), s->hostname));
    fprintf(out, "Linux %s\n", text_printable(shown, sizeof(shown), s->kernel));
    if (!t->is_machine)
        fprintf(out, "Topology: %s (%s; Host, Timer, pages and memory are this machine's)\n",
                text_printable(shown, sizeof(shown), t->source),
                t->this_system ? "a description, not this machine, bound as if it were "
                                 "(HWLOC_THISSYSTEM=1)"
                : strncmp(t->source, "HWLOC_THISSYSTEM=", 17) == 0
                    ? "this machine, but hwloc is told it is not: nothing is bound"
                    : "a description, not this machine");
    fprintf(out, "CPU: %s; %d package%s, %d NUMA node%s, %d cores, %d PUs\n",
            text_printable(shown, sizeof(shown), t->cpu_model), t->packages,
            t->packages == 1 ? "" : "s", t->numa_nodes, t->numa_nodes == 1 ? "" : "s", t->cores,
            t->pus);
    if (t->restricted)
        fprintf(out, "Usable PUs: %s only, %d of %d (restricted by the %s: %s)\n", t->cpus, t->pus,
                t->machine_pus, t->restricted_by,
                text_printable(shown, sizeof(shown), t->restricted_how));
    if (t->llc_bytes_total) {
        char total[32];
        format_bytes(t->llc_bytes_total, total, sizeof(total));
        fprintf(out, "Last-level cache: L%d, %d instance%s, %s in total (from %s)\n", t->llc_level,
                t->llc_count, t->llc_count == 1 ? "" : "s", total, t->llc_source);
    } else {
        fprintf(out, "Last-level cache: unknown (hwloc and sysfs report none)\n");
    }
    write_memory_facts(out, rep);
    fprintf(out, "Timer: %s, resolution %.0f ns, granularity %.0f ns, %.0f ns per reading\n",
            rep->timer.clock_name, rep->timer.resolution_s * 1e9, rep->timer.granularity_s * 1e9,
            rep->timer.call_cost_s * 1e9);
    const struct provenance *p = &rep->prov;
    fprintf(out, "CPU frequency: governor %s, ", p->governor);
    if (p->cur_mhz > 0)
        fprintf(out, "%.0f MHz now", p->cur_mhz);
    else
        fprintf(out, "clock unknown");
    if (p->max_mhz > 0) fprintf(out, ", %.0f MHz max", p->max_mhz);
    fprintf(out, "; microcode %s\n", p->microcode);
    if (p->peak_mbps > 0)
        fprintf(out, "Peak memory bandwidth: %.1f MB/s (%s)\n", p->peak_mbps,
                text_printable(shown, sizeof(shown), p->peak_source));
    else
        fprintf(out, "Peak memory bandwidth: %s\n",
                text_printable(shown, sizeof(shown), p->peak_source));
    fprintf(out, "Transparent huge pages: %s; huge page pools:", s->thp_enabled);
    if (s->n_pools == 0) fprintf(out, " none");
    for (int i = 0; i < s->n_pools; i++) {
        char size[32];
        format_bytes(s->pools[i].page_size_bytes, size, sizeof(size));
        fprintf(out, "%s %s %llu free of %llu", i ? "," : "", size,
                (unsigned long long)s->pools[i].free, (unsigned long long)s->pools[i].total);
    }
    fprintf(out, "\n");
    if (page_base_bytes() != PAGE_4K) { /* said where it is not the usual 4 KB */
        char base[PAGE_TEXT_LEN], pmd[PAGE_TEXT_LEN];
        fprintf(out, "Base page: %s; transparent huge page (PMD): %s\n",
                page_size_text(page_base_bytes(), base), page_size_text(page_pmd_bytes(), pmd));
    }
    if (s->hugetlb_morecore[0] || s->glibc_malloc_hugetlb[0]) {
        fprintf(out, "Huge page variables:");
        if (s->hugetlb_morecore[0]) fprintf(out, " HUGETLB_MORECORE=%s", s->hugetlb_morecore);
        if (s->glibc_malloc_hugetlb[0])
            fprintf(out, "%s GLIBC_TUNABLES glibc.malloc.hugetlb=%s",
                    s->hugetlb_morecore[0] ? "," : "", s->glibc_malloc_hugetlb);
        fprintf(out, " (glibc %s)\n", s->glibc_version);
    }
    fprintf(out, RULE);
}

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

/* One row per run, so a sweep reads as a table (seed 001's thread and binding tables). */
static const struct kernel_result *find_result(const struct run_result *r, int kernel)
{
    for (int i = 0; i < r->n_results; i++)
        if ((int)r->results[i].kernel == kernel) return &r->results[i];
    return NULL;
}

/* One row per run, so a sweep reads as a table (seed 001's thread and binding tables). */
static void write_summary(FILE *out, const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
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

static void write_comparisons(FILE *out, const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
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

/* A rate check's spreads: the repetitions' on its line, the reference's on the next. */
static void write_rate_spreads(FILE *out, const struct acceptance_check *c)
{
    if (c->rep_spread_pct >= 0.0)
        fprintf(out, "  repetitions varied %.0f%%", c->rep_spread_pct);
    else
        fprintf(out, "  repetition spread unknown (fewer than 2 timed)");
    fputc('\n', out);
    if (!c->from_reference) return;
    fprintf(out, "     reference: %s %.1f MB/s", c->name, c->reference_mbps);
    if (c->ref_runs > 1 && c->ref_spread_pct >= 0.0)
        fprintf(out, ", median of %d runs, spread %.0f%%\n", c->ref_runs, c->ref_spread_pct);
    else if (c->ref_runs == 1)
        fprintf(out, ", from 1 run (run-to-run spread unknown)\n");
    else
        fprintf(out, " (runs not recorded: run-to-run spread unknown)\n");
}

/* One line per check, "PASS|FAIL|INCONCLUSIVE name measured expected", then the verdict. */
static void write_acceptance(FILE *out, const struct acceptance_result *a)
{
    if (!a->evaluated) return;
    fprintf(out, "Acceptance checks (tolerance %.1f%%):\n", a->tolerance_pct);
    int failed = 0, unjudged = 0;
    const char *why = "";
    for (int i = 0; i < a->n_checks; i++) {
        const struct acceptance_check *c = &a->checks[i];
        enum check_verdict v = check_state(c);
        failed += v == CHECK_FAIL;
        if (v == CHECK_INCONCLUSIVE && !unjudged++) why = c->why;
        char measured[TEXT_PRINTABLE_CAP(sizeof(c->measured))];
        char expected[TEXT_PRINTABLE_CAP(sizeof(c->expected))];
        fprintf(out, "%s %-12s %-24s %s", check_verdict_name(v), c->name,
                text_printable(measured, sizeof(measured), c->measured),
                text_printable(expected, sizeof(expected), c->expected));
        if (c->rate_check)
            write_rate_spreads(out, c);
        else
            fputc('\n', out);
        if (v == CHECK_INCONCLUSIVE) fprintf(out, "     %s\n", c->why);
        if (c->note[0]) fprintf(out, "     note: %s\n", c->note);
    }
    if (a->passed)
        fprintf(out, "Verdict: PASS (%d checks)\n", a->n_checks);
    else if (acceptance_verdict(a) == CHECK_INCONCLUSIVE)
        fprintf(out, "Verdict: INCONCLUSIVE: %s (%d of %d checks could not judge, none failed)\n",
                why, unjudged, a->n_checks);
    else
        fprintf(out, "Verdict: FAIL (%d of %d checks failed)\n", failed, a->n_checks);
    fprintf(out, RULE);
}

/* The sections of the measurements that go into this slot, in the order they ran. */
static void write_parts(FILE *out, const struct report *rep, enum measure_slot slot, bool quiet)
{
    struct measure_report_facts f = report_facts(rep);
    for (size_t i = 0; i < rep->n_parts; i++) {
        const struct measurement *m = rep->parts[i].m;
        if (quiet && m->quiet && m->quiet_slot == slot) m->quiet(out, rep->parts[i].result, &f);
        if (!quiet && m->text && m->text_slot == slot) m->text(out, rep->parts[i].result, &f);
    }
}

/* The measurements' lines in the text report's tail. */
static void write_tails(FILE *out, const struct report *rep)
{
    struct measure_report_facts f = report_facts(rep);
    for (size_t i = 0; i < rep->n_parts; i++)
        if (rep->parts[i].m->text_tail) rep->parts[i].m->text_tail(out, rep->parts[i].result, &f);
}

int report_write_text(FILE *out, const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    write_system(out, rep);
    write_parts(out, rep, MEASURE_LEAD, false);
    if (report_is_matrix(rep)) report_matrix_text(out, rep);
    size_t plain = report_tiers_first(rep); /* the runs before the tier runs */
    bool own_layout = report_is_matrix(rep) || plain == 0;
    for (size_t i = 0; i < plain && !own_layout; i++) {
        report_text_config(out, rep, i);
        if (stream->runs[i].measured)
            write_results(out, &stream->runs[i], rep->prov.peak_mbps);
        else
            fprintf(out, RULE);
    }
    if (report_is_tiers(rep)) report_tiers_text(out, rep);
    write_comparisons(out, rep);
    write_parts(out, rep, MEASURE_BEFORE_TAIL, false);
    if (rep->dry_run)
        fprintf(out, "Dry run: nothing was allocated or measured.\n");
    else if (plain > 1 && !own_layout)
        write_summary(out, rep);
    report_unmeasured_text(out, rep);
    write_tails(out, rep);
    write_parts(out, rep, MEASURE_AFTER_TAIL, false);
    write_acceptance(out, &rep->acceptance);
    if (rep->interrupted)
        fprintf(out, "INTERRUPTED by %s: %s.\n", interrupt_name(rep->interrupted), rep->kept);
    else if (rep->kept[0])
        fprintf(out, "STOPPED EARLY: %s.\n", rep->kept);
    return ferror(out) ? -1 : 0;
}

/* "FAIL 18 of 19 checks passed: Triad 60% below the reference (...); note: ...": the verdict,
 * why each check that did not pass did not, and the notes of the others. */
static void write_quiet_verdict(FILE *out, const struct acceptance_result *a)
{
    if (!a->evaluated) return;
    int failed = 0;
    for (int i = 0; i < a->n_checks; i++)
        failed += !a->checks[i].passed;
    fprintf(out, "%s %d of %d checks passed", check_verdict_name(acceptance_verdict(a)),
            a->n_checks - failed, a->n_checks);
    const char *sep = ": ";
    for (int i = 0; i < a->n_checks; i++) {
        char why[400];
        acceptance_check_reason(&a->checks[i], why, sizeof(why));
        if (!why[0]) continue;
        char shown[TEXT_PRINTABLE_CAP(sizeof(why))];
        fprintf(out, "%s%s", sep, text_printable(shown, sizeof(shown), why));
        sep = "; ";
    }
    for (int i = 0; i < a->n_checks; i++)
        if (a->checks[i].note[0]) fprintf(out, "; note: %s", a->checks[i].note);
    fputc('\n', out);
}

int report_write_quiet(FILE *out, const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    write_parts(out, rep, MEASURE_LEAD, true);
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
    write_parts(out, rep, MEASURE_BEFORE_TAIL, true);
    write_quiet_verdict(out, &rep->acceptance);
    write_parts(out, rep, MEASURE_AFTER_TAIL, true);
    return ferror(out) ? -1 : 0;
}
