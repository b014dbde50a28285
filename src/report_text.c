#include <string.h>

#include "src/report.h"

#define RULE "-------------------------------------------------------------\n"

static void write_system(FILE *out, const struct report *rep)
{
    const struct topology_facts *t = &rep->topo;
    const struct sys_info *s = &rep->sys;
    fprintf(out, RULE "membench %s: STREAM-style memory bandwidth\n" RULE, rep->version);
    fprintf(out, "Host: %s, Linux %s\n", s->hostname, s->kernel);
    fprintf(out, "CPU: %s; %d package%s, %d NUMA node%s, %d cores, %d PUs\n", t->cpu_model,
            t->packages, t->packages == 1 ? "" : "s", t->numa_nodes, t->numa_nodes == 1 ? "" : "s",
            t->cores, t->pus);
    if (t->llc_bytes_total) {
        char total[32];
        format_bytes(t->llc_bytes_total, total, sizeof(total));
        fprintf(out, "Last-level cache: L%d, %d instance%s, %s in total (from %s)\n", t->llc_level,
                t->llc_count, t->llc_count == 1 ? "" : "s", total, t->llc_source);
    } else {
        fprintf(out, "Last-level cache: unknown (hwloc and sysfs report none)\n");
    }
    fprintf(out, "Timer: %s, resolution %.0f ns, granularity %.0f ns, %.0f ns per reading\n",
            rep->timer.clock_name, rep->timer.resolution_s * 1e9, rep->timer.granularity_s * 1e9,
            rep->timer.call_cost_s * 1e9);
    fprintf(out, "Transparent huge pages: %s; huge page pools:", s->thp_enabled);
    if (s->n_pools == 0) fprintf(out, " none");
    for (int i = 0; i < s->n_pools; i++) {
        char size[32];
        format_bytes(s->pools[i].page_size_bytes, size, sizeof(size));
        fprintf(out, "%s %s %llu free of %llu", i ? "," : "", size,
                (unsigned long long)s->pools[i].free, (unsigned long long)s->pools[i].total);
    }
    fprintf(out, "\n");
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

static void write_placement(FILE *out, const struct run_result *r)
{
    if (r->n_placement == 0) return;
    fprintf(out, "Placement (thread:PU/core/package/NUMA):");
    for (int i = 0; i < r->n_placement; i++) {
        const struct placement_entry *p = &r->placement[i];
        fprintf(out, " %d:%d/%d/%d/%d", p->thread, p->pu, p->core, p->package, p->numa);
    }
    fprintf(out, "%s\n", r->migrated ? " (threads migrated during the run)" : "");
}

static void write_backing(FILE *out, const struct run_result *r)
{
    const struct backing_info *b = &r->backing;
    const struct run_config *c = &r->config;
    char from[64] = "";
    if (c->pages_from && strcmp(c->pages_from, "HUGETLB_MORECORE") == 0)
        snprintf(from, sizeof(from), " (from %s)", c->pages_from);
    fprintf(out, "Pages: %s%s", c->pages, from);
    if (!r->measured) {
        fprintf(out, "; dry run: not allocated\n");
        return;
    }
    if (b->mismatch[0]) {
        fprintf(out, " -> NOT VERIFIED: %s\n", b->mismatch);
        return;
    }
    if (b->page_size_bytes == 0) {
        fprintf(out, "; page size unknown (no smaps entry for the arrays); %s\n", b->how);
        return;
    }
    char size[32];
    format_bytes(b->page_size_bytes, size, sizeof(size));
    if (b->thp_fraction > 0.0 && b->thp_fraction < 1.0)
        fprintf(out,
                " -> THP: %d%% of the arrays on 2 MB pages, the rest on %s pages, verified in "
                "/proc/self/smaps; %s\n",
                (int)(100.0 * b->thp_fraction), size, b->how);
    else
        fprintf(out, " -> %s pages, verified in /proc/self/smaps; %s%s\n", size, b->how,
                b->thp_fraction > 0.0 ? "; THP: 100% of the arrays on 2 MB pages" : "");
}

static void write_config(FILE *out, const struct report *rep, size_t index)
{
    const struct run_result *r = &rep->runs[index];
    const struct run_config *c = &r->config;
    double mib = (double)c->array_bytes / 1048576.0;
    double total_mib = (double)c->total_bytes / 1048576.0;
    if (rep->n_runs > 1) fprintf(out, "Run %zu of %zu\n", index + 1, rep->n_runs);
    fprintf(out, "Array size = %llu (elements), Offset = %zu (elements)\n",
            (unsigned long long)c->elements, c->offset);
    fprintf(out, "Memory per array = %.1f MiB (= %.1f GiB).\n", mib, mib / 1024.0);
    fprintf(out, "Total memory required = %.1f MiB (= %.1f GiB).\n", total_mib, total_mib / 1024.0);
    fprintf(out, "Array size rule: %s; element type %s, %zu bytes\n", c->size_label,
            elem_type_name(c->type), elem_size(c->type));
    fprintf(out, "Each kernel will be executed %u times.\n", c->ntimes);
    fprintf(out, " The *best* time for each kernel (excluding the first iteration)\n"
                 " will be used to compute the reported bandwidth.\n");
    fprintf(out, "Number of Threads = %u (from %s); binding %s; stores %s\n", c->threads,
            c->threads_from, c->bind, c->stores);
    write_placement(out, r);
    write_backing(out, r);
}

static void write_results(FILE *out, const struct run_result *r)
{
    fprintf(out, RULE "Function    Best Rate MB/s  Avg time     Min time     Max time\n");
    for (int i = 0; i < r->n_results; i++) {
        const struct kernel_result *k = &r->results[i];
        fprintf(out, "%s%12.1f  %11.6f  %11.6f  %11.6f\n", kernel_table[k->kernel].label,
                k->best_rate_mbps, k->avg_time_s, k->min_time_s, k->max_time_s);
    }
    fprintf(out, RULE);
    const struct validation_result *v = &r->validation;
    if (v->passed)
        fprintf(out, "Solution Validates: max relative error %.3e <= %.1e on all three arrays\n",
                v->max_rel_error, v->tolerance);
    else
        fprintf(out,
                "Failed Validation on array %c[%zu]: %.17g, expected %.17g (max relative "
                "error %.3e > %.1e)\n",
                v->failed_array, v->first_bad_index, v->first_bad_value, v->first_bad_expected,
                v->max_rel_error, v->tolerance);
    for (int i = 0; i < r->n_warnings; i++)
        fprintf(out, "WARNING: %s\n", r->warnings[i]);
    fprintf(out, RULE);
}

static void write_comparisons(FILE *out, const struct report *rep)
{
    if (rep->n_comparisons == 0) return;
    const struct page_comparison *first = &rep->comparisons[0];
    bool several = false;
    for (size_t i = 0; i < rep->n_comparisons; i++)
        several |= rep->comparisons[i].baseline != first->baseline;
    fprintf(out, "Page backing A/B: best rates relative to --pages %s\n",
            rep->runs[first->baseline].config.pages);
    for (size_t i = 0; i < rep->n_comparisons; i++) {
        const struct page_comparison *c = &rep->comparisons[i];
        fprintf(out, "%s %s vs %s: %+.1f%%", kernel_table[c->kernel].name,
                rep->runs[c->variant].config.pages, rep->runs[c->baseline].config.pages,
                100.0 * c->relative_change);
        if (several) fprintf(out, " (run %zu vs run %zu)", c->variant + 1, c->baseline + 1);
        fputc('\n', out);
    }
    fprintf(out, RULE);
}

int report_write_text(FILE *out, const struct report *rep)
{
    write_system(out, rep);
    for (size_t i = 0; i < rep->n_runs; i++) {
        write_config(out, rep, i);
        if (rep->runs[i].measured)
            write_results(out, &rep->runs[i]);
        else
            fprintf(out, RULE);
    }
    write_comparisons(out, rep);
    if (rep->dry_run) fprintf(out, "Dry run: nothing was allocated or measured.\n");
    return ferror(out) ? -1 : 0;
}

int report_write_quiet(FILE *out, const struct report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        const struct run_result *r = &rep->runs[i];
        if (!r->measured) {
            fprintf(out, "threads=%u elements=%llu bytes=%llu planned\n", r->config.threads,
                    (unsigned long long)r->config.elements,
                    (unsigned long long)r->config.array_bytes);
            continue;
        }
        for (int k = 0; k < r->n_results; k++)
            fprintf(out, "%s: %.1f ", kernel_table[r->results[k].kernel].name,
                    r->results[k].best_rate_mbps);
        fprintf(out, "MB/s threads=%u elements=%llu type=%s pages=%s validated=%s\n",
                r->config.threads, (unsigned long long)r->config.elements,
                elem_type_name(r->config.type), r->config.pages,
                r->validation.passed ? "yes" : "NO");
    }
    return ferror(out) ? -1 : 0;
}
