/* The probes as CSV: one table per probe, each with its own header. */
#include <math.h>

#include "src/base/csv_field.h"
#include "src/probes/probes.h"
#include "src/probes/report_probes_ran.h"

static void csv_real(FILE *out, double v, const char *fmt)
{
    if (isfinite(v)) fprintf(out, fmt, v);
    fputc(',', out);
}

static void csv_table(FILE *out, bool *after_table, const char *header)
{
    if (*after_table) fputc('\n', out);
    *after_table = true;
    fputs(header, out);
}

static void timer_csv(FILE *out, const struct probe_results *r, bool *after_table)
{
    const struct timer_probe_report *t = &r->timer;
    csv_table(out, after_table,
              "probe,clock,resolution_s,granularity_s,call_cost_s,min_interval_1pct_s,"
              "reps_1ns_op,tsc_hz,tsc_hz_source,tsc_invariant,clocksource,skipped\n");
    for (int i = 0; i < t->n_clocks; i++) {
        const struct timer_clock_row *c = &t->clocks[i];
        bool is_tsc = i == TCLOCK_RDTSC || i == TCLOCK_RDTSCP;
        fprintf(out, "timer,%s,", c->name);
        if (c->available) {
            csv_real(out, c->resolution_s, "%.3e");
            csv_real(out, c->granularity_s, "%.3e");
            csv_real(out, c->call_cost_s, "%.3e");
            csv_real(out, c->min_interval_s, "%.3e");
            csv_real(out, c->reps_for_op, "%.0f");
        } else {
            fprintf(out, ",,,,,");
        }
        if (is_tsc && t->tsc.available)
            fprintf(out, "%.0f,%s,%s,", t->tsc.hz, t->tsc.hz_source,
                    t->tsc.invariant_known ? (t->tsc.invariant ? "true" : "false") : "");
        else
            fprintf(out, ",,,");
        fprintf(out, "%s,", t->clocksource);
        csv_quoted(out, c->skipped);
        fputc('\n', out);
    }
}

static void faults_csv(FILE *out, const struct probe_results *r, bool *after_table)
{
    csv_table(out, after_table,
              "probe,backing,bytes,pages_touched,minor_faults,major_faults,seconds,"
              "ns_per_fault,ns_per_page,us_per_major_fault,rss_bytes,anon_huge_bytes,"
              "hugetlb_bytes,advice,resident_before,skipped\n");
    for (int i = 0; i < r->faults.n_runs; i++) {
        const struct fault_run *f = &r->faults.runs[i];
        fprintf(out, "faults,%s,%llu,%llu,", fault_backing_name(f->backing),
                (unsigned long long)f->bytes, (unsigned long long)f->pages_touched);
        if (f->skipped[0]) {
            fprintf(out, ",,,,,,,,,,,");
            csv_quoted(out, f->skipped);
            fputc('\n', out);
            continue;
        }
        fprintf(out, "%llu,%llu,%.6f,", (unsigned long long)f->minor_faults,
                (unsigned long long)f->major_faults, f->seconds);
        csv_real(out, f->ns_per_fault, "%.1f");
        csv_real(out, f->ns_per_page, "%.1f");
        csv_real(out, f->us_per_major_fault, "%.2f");
        if (f->smaps.verified)
            fprintf(out, "%llu,%llu,%llu,", (unsigned long long)f->smaps.rss_bytes,
                    (unsigned long long)f->smaps.anon_huge_bytes,
                    (unsigned long long)f->smaps.hugetlb_bytes);
        else
            fprintf(out, ",,,");
        fprintf(out, "%s,", f->advice ? f->advice : "");
        csv_real(out, f->resident_before, "%.4f");
        fprintf(out, "\n");
    }
}

static void shootdown_csv(FILE *out, const struct probe_results *r, bool *after_table)
{
    csv_table(out, after_table,
              "probe,mode,pages,remote_threads,ops,us_per_op,us_min,us_mean,us_per_cycle,"
              "added_us_per_remote,shootdowns,shootdowns_remote,shootdowns_per_op,"
              "ops_interrupted,us_interrupted,us_not_interrupted,"
              "added_us_per_remote_interrupted,skipped\n");
    for (int i = 0; i < r->shootdown.n_runs; i++) {
        const struct shootdown_run *s = &r->shootdown.runs[i];
        fprintf(out, "shootdown,%s,%u,%u,%u,%.3f,%.3f,%.3f,%.3f,", shootdown_mode_name(s->mode),
                s->pages, s->remote_threads, s->ops, s->us_per_op, s->us_min, s->us_mean,
                s->us_per_cycle);
        csv_real(out, s->added_us_per_remote, "%.3f");
        if (s->shootdowns >= 0)
            fprintf(out, "%lld,%lld,", (long long)s->shootdowns, (long long)s->shootdowns_remote);
        else
            fprintf(out, ",,");
        csv_real(out, s->shootdowns_per_op, "%.3f");
        if (s->attributed)
            fprintf(out, "%u,", s->ops_interrupted);
        else
            fprintf(out, ",");
        csv_real(out, s->us_interrupted, "%.3f");
        csv_real(out, s->us_not_interrupted, "%.3f");
        csv_real(out, s->added_us_per_remote_interrupted, "%.3f");
        fprintf(out, "\n");
    }
    for (int i = 0; i < r->shootdown.n_skipped; i++) {
        fprintf(out, "shootdown,,,%u,,,,,,,,,,,,,,", r->shootdown.skipped[i].remote_threads);
        csv_quoted(out, r->shootdown.skipped[i].reason);
        fputc('\n', out);
    }
}

void report_probes_csv(FILE *out, const struct probe_results *r, bool after_table)
{
    if (ran(r, PROBE_TIMER)) timer_csv(out, r, &after_table);
    if (ran(r, PROBE_FAULTS)) faults_csv(out, r, &after_table);
    if (ran(r, PROBE_SHOOTDOWN)) shootdown_csv(out, r, &after_table);
}
