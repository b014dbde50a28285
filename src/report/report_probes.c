/* Text, quiet, CSV and JSON output of the probes. Formatting only: every number comes from
 * the result structs that kernels/<probe>_probe.c filled. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "src/report/csv_field.h"
#include "src/report/json_values.h"
#include "src/probes/probes.h"

#define RULE "-------------------------------------------------------------\n"

static bool ran(const struct probe_results *r, enum probe_id p)
{
    return r && (r->ran & PROBE_BIT(p));
}

/* "1.0 ns", "2.50 us", "1.20 ms", "1.500 s" */
static const char *fmt_time(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "-");
    else if (s < 1e-6)
        snprintf(buf, len, "%.1f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, len, "%.2f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%.2f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
    return buf;
}

static const char *fmt_num(double v, const char *fmt, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, fmt, v);
    else
        snprintf(buf, len, "-");
    return buf;
}

/* ---------------------------------------------------------------- text */

static void text_timer(FILE *out, const struct timer_probe_report *t)
{
    fprintf(out, "Timer probe (--timer): kernel clocksource %s\n", t->clocksource);
    fprintf(out, "%-20s %11s %12s %10s %14s %14s\n", "Clock", "Resolution", "Granularity",
            "Cost/call", "Interval @1%", "Reps of 1 ns");
    for (int i = 0; i < t->n_clocks; i++) {
        const struct timer_clock_row *c = &t->clocks[i];
        if (!c->available) {
            fprintf(out, "%-20s skipped: %s\n", c->name, c->skipped);
            continue;
        }
        char a[32], b[32], d[32], e[32], f[32];
        fprintf(out, "%-20s %11s %12s %10s %14s %14s\n", c->name,
                fmt_time(c->resolution_s, a, sizeof(a)), fmt_time(c->granularity_s, b, sizeof(b)),
                fmt_time(c->call_cost_s, d, sizeof(d)), fmt_time(c->min_interval_s, e, sizeof(e)),
                fmt_num(c->reps_for_op, "%.0f", f, sizeof(f)));
    }
    const struct tsc_info *s = &t->tsc;
    if (s->available) {
        bool calibrated = s->hz_cpuid_15 <= 0;
        if (calibrated)
            fprintf(out,
                    "TSC: %.3f MHz, calibrated against CLOCK_MONOTONIC over %.0f ms (CPUID "
                    "leaf 0x15 does not enumerate it",
                    s->hz * 1e-6, s->calibration_s * 1e3);
        else
            fprintf(out, "TSC: %.3f MHz from CPUID leaf 0x15 (calibrated: %.3f MHz", s->hz * 1e-6,
                    s->hz_calibrated * 1e-6);
        if (s->hz_cpuid_16 > 0)
            fprintf(out, "; CPUID 0x16 nominal base %.0f MHz)\n", s->hz_cpuid_16 * 1e-6);
        else
            fprintf(out, ")\n");
        fprintf(out, "TSC %s\n",
                !s->invariant_known ? "invariance unknown (no CPUID leaf 0x80000007)"
                : s->invariant      ? "is invariant (CPUID 0x80000007 EDX bit 8): it ticks at a "
                                      "constant rate in every P- and C-state"
                               : "is NOT invariant (CPUID 0x80000007 EDX bit 8 clear): its rate "
                                 "may follow the core clock; do not time with it");
    }
    fprintf(out,
            "A reading is uncertain by one granularity step, so an interval is %.0f%% precise "
            "only when\nit lasts granularity / %.2f; an operation of %.0f ns must be repeated "
            "\"Reps\" times to fill it.\n",
            100.0 * t->precision, t->precision, t->op_seconds * 1e9);
}

static void text_faults(FILE *out, const struct fault_report *f)
{
    fprintf(out,
            "Page faults (--faults): %llu MiB, one byte touched per 4 KB page (%llu pages); "
            "THP %s; file in %s (%s)\n",
            (unsigned long long)(f->bytes >> 20), (unsigned long long)(f->bytes / FAULT_PAGE),
            f->thp_enabled, f->dir, f->fs_type);
    fprintf(out, "%-15s %7s %8s %8s %9s %10s %8s %9s  %s\n", "Backing", "Pages", "Minor", "Major",
            "Touch ms", "ns/fault", "ns/page", "us/major", "Backing seen");
    for (int i = 0; i < f->n_runs; i++) {
        const struct fault_run *r = &f->runs[i];
        const char *name = fault_backing_name(r->backing);
        if (r->skipped[0]) {
            fprintf(out, "%-15s skipped: %s\n", name, r->skipped);
            continue;
        }
        char a[32], b[32], c[32], seen[128];
        if (r->backing == FAULT_FILE || r->backing == FAULT_FILE_READAHEAD)
            snprintf(seen, sizeof(seen), "%s, %.0f%% cached before", r->advice,
                     100.0 * r->resident_before);
        else if (r->smaps.verified)
            snprintf(seen, sizeof(seen), "AnonHugePages %llu MiB, Hugetlb %llu MiB",
                     (unsigned long long)(r->smaps.anon_huge_bytes >> 20),
                     (unsigned long long)(r->smaps.hugetlb_bytes >> 20));
        else if (r->smaps.page_size_bytes == 0)
            snprintf(seen, sizeof(seen), "smaps unreadable");
        else
            snprintf(seen, sizeof(seen), "NOT VERIFIED (see the note)");
        fprintf(out, "%-15s %7llu %8llu %8llu %9.2f %10s %8s %9s  %s\n", name,
                (unsigned long long)r->pages_touched, (unsigned long long)r->minor_faults,
                (unsigned long long)r->major_faults, r->seconds * 1e3,
                fmt_num(r->ns_per_fault, "%.0f", a, sizeof(a)),
                fmt_num(r->ns_per_page, "%.0f", b, sizeof(b)),
                fmt_num(r->us_per_major_fault, "%.1f", c, sizeof(c)), seen);
    }
    for (int i = 0; i < f->n_runs; i++)
        if (f->runs[i].note[0])
            fprintf(out, "Note (%s): %s\n", fault_backing_name(f->runs[i].backing),
                    f->runs[i].note);
    fprintf(out, "Anonymous rows: median time of %u repetitions, each on a fresh mapping.\n",
            f->reps);
}

static void text_shootdown_header(FILE *out, const struct shootdown_report *s)
{
    fprintf(out,
            "TLB shootdown (--shootdown): a thread on CPU %d touches N pages, then unmaps "
            "them;\n",
            s->measure_pu);
    fprintf(out, "sibling threads of the process spin on CPU");
    if (s->n_remote_pus == 0) fprintf(out, "s: none (one CPU usable)");
    for (int i = 0; i < s->n_remote_pus;) { /* "1-7,9": runs of consecutive CPUs */
        int j = i;
        while (j + 1 < s->n_remote_pus && s->remote_pus[j + 1] == s->remote_pus[j] + 1)
            j++;
        fprintf(out, "%s%d", i ? "," : (s->n_remote_pus > 1 ? "s " : " "), s->remote_pus[i]);
        if (j > i) fprintf(out, "-%d", s->remote_pus[j]);
        i = j + 1;
    }
    fprintf(out, "%s\n", s->measure_bound ? "" : " (the measuring thread could NOT be bound)");
    if (s->hypervisor[0]) {
        fprintf(out, "Hypervisor: %s", s->hypervisor);
        if (s->pv_tlb_flush == 1)
            fprintf(out, ", paravirtual TLB flush on: a flush aimed at a vCPU that the host has "
                         "preempted is\ndeferred to its next entry, without an IPI, so such "
                         "flushes cost nothing and are not counted\n");
        else if (s->pv_tlb_flush == 0)
            fprintf(out, ", paravirtual TLB flush off: every remote flush is an IPI\n");
        else
            fprintf(out, "\n");
    }
    if (s->interrupts_available)
        fprintf(out, "TLB IRQs: the 'TLB:' line of /proc/interrupts before and after each point "
                     "(machine-wide: other\nprocesses add theirs); 'remote' counts only the "
                     "siblings' CPUs\n");
    else
        fprintf(out, "TLB IRQs: unknown: %s\n", s->interrupts_note);
}

static const char *fmt_signed(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%+.2f", v);
    else
        snprintf(buf, len, "-");
    return buf;
}

static void text_shootdown(FILE *out, const struct shootdown_report *s)
{
    text_shootdown_header(out, s);
    fprintf(out, "%-13s %5s %6s %5s %7s %7s %8s %8s %6s %6s %6s %8s %8s %8s %8s\n", "Mode", "Pages",
            "Remote", "Ops", "us/op", "min us", "cycle us", "TLB IRQs", "remote", "IRQ/op", "IPI'd",
            "us IPI'd", "us none", "+us/rem", "+us/IPI");
    for (int i = 0; i < s->n_runs; i++) {
        const struct shootdown_run *r = &s->runs[i];
        char all[24], rem[24], per[24], hit[24], us_hit[24], us_none[24], add[24], add_hit[24];
        snprintf(all, sizeof(all), r->shootdowns >= 0 ? "%lld" : "-", (long long)r->shootdowns);
        if (r->remote_threads == 0 || r->shootdowns_remote < 0)
            snprintf(rem, sizeof(rem), "-");
        else
            snprintf(rem, sizeof(rem), "%lld", (long long)r->shootdowns_remote);
        if (r->attributed)
            snprintf(hit, sizeof(hit), "%u", r->ops_interrupted);
        else
            snprintf(hit, sizeof(hit), "-");
        fprintf(out, "%-13s %5u %6u %5u %7.2f %7.2f %8.2f %8s %6s %6s %6s %8s %8s %8s %8s%s\n",
                shootdown_mode_name(r->mode), r->pages, r->remote_threads, r->ops, r->us_per_op,
                r->us_min, r->us_per_cycle, all, rem,
                fmt_num(r->shootdowns_per_op, "%.2f", per, sizeof(per)), hit,
                fmt_num(r->us_interrupted, "%.2f", us_hit, sizeof(us_hit)),
                fmt_num(r->us_not_interrupted, "%.2f", us_none, sizeof(us_none)),
                fmt_signed(r->added_us_per_remote, add, sizeof(add)),
                fmt_signed(r->added_us_per_remote_interrupted, add_hit, sizeof(add_hit)),
                r->remote_threads && !r->siblings_bound ? "  (siblings NOT bound)" : "");
    }
    for (int i = 0; i < s->n_skipped; i++)
        fprintf(out, "Remote threads %u: skipped: %s\n", s->skipped[i].remote_threads,
                s->skipped[i].reason);
    for (int i = 0; i < s->n_summary; i++) {
        const struct shootdown_summary *m = &s->summary[i];
        if (m->remote_threads == 0) continue;
        char per[24], add[24], add_hit[24];
        fprintf(out,
                "%s, %u sibling%s: %s us per remote CPU (median over page counts), %s us when "
                "the IPI was sent; %s TLB IRQs per op\n",
                shootdown_mode_name(m->mode), m->remote_threads, m->remote_threads == 1 ? "" : "s",
                fmt_signed(m->added_us_per_remote, add, sizeof(add)),
                fmt_signed(m->added_us_per_remote_interrupted, add_hit, sizeof(add_hit)),
                fmt_num(m->shootdowns_per_op, "%.2f", per, sizeof(per)));
    }
    if (s->note[0]) fprintf(out, "Note: %s\n", s->note);
    if (s->flush_ceiling >= 0)
        fprintf(out,
                "Flush ceiling: %d pages (tlb_single_page_flush_ceiling): up to it each page "
                "is flushed on its own,\nabove it the whole TLB\n",
                s->flush_ceiling);
    else
        fprintf(out, "Flush ceiling: Linux's default is 33 pages (tlb_single_page_flush_ceiling in "
                     "debugfs, not readable\nhere): up to 33 each page is flushed on its own "
                     "(INVLPG), above it the whole TLB at once\n");
    fprintf(out,
            "us/op: median time of one munmap / madvise(MADV_DONTNEED) call; cycle: touch + unmap "
            "(+ mmap).\nIPI'd: ops during which every sibling's CPU took a TLB interrupt (read "
            "between ops);\nus IPI'd / us none: their median and that of the ops no sibling was "
            "interrupted for;\n+us/rem: us/op minus us/op without siblings, per sibling; "
            "+us/IPI: the same from the IPI'd ops.\n");
}

void report_probes_text(FILE *out, const struct probe_results *r)
{
    if (!r) return;
    if (!r->ran && r->requested) {
        fprintf(out, "Probes requested:%s%s%s (not run under --dry-run)\n",
                r->requested & PROBE_BIT(PROBE_FAULTS) ? " faults" : "",
                r->requested & PROBE_BIT(PROBE_SHOOTDOWN) ? " shootdown" : "",
                r->requested & PROBE_BIT(PROBE_TIMER) ? " timer" : "");
        return;
    }
    if (ran(r, PROBE_TIMER)) {
        text_timer(out, &r->timer);
        fprintf(out, RULE);
    }
    if (ran(r, PROBE_FAULTS)) {
        text_faults(out, &r->faults);
        fprintf(out, RULE);
    }
    if (ran(r, PROBE_SHOOTDOWN)) {
        text_shootdown(out, &r->shootdown);
        fprintf(out, RULE);
    }
}

/* ---------------------------------------------------------------- quiet (one line each) */

void report_probes_quiet(FILE *out, const struct probe_results *r)
{
    if (ran(r, PROBE_TIMER)) {
        const struct timer_clock_row *m = &r->timer.clocks[TCLOCK_MONOTONIC];
        fprintf(out,
                "timer: CLOCK_MONOTONIC resolution %.0f ns granularity %.1f ns cost %.1f ns; "
                "1%% needs %.2f us = %.0f x 1 ns",
                m->resolution_s * 1e9, m->granularity_s * 1e9, m->call_cost_s * 1e9,
                m->min_interval_s * 1e6, m->reps_for_op);
        const struct tsc_info *t = &r->timer.tsc;
        if (t->available)
            fprintf(out, "; TSC %.1f MHz (%s)%s", t->hz * 1e-6, t->hz_source,
                    t->invariant ? " invariant" : "");
        fprintf(out, "; clocksource %s\n", r->timer.clocksource);
    }
    if (ran(r, PROBE_FAULTS)) {
        fprintf(out, "faults:");
        for (int i = 0; i < r->faults.n_runs; i++) {
            const struct fault_run *f = &r->faults.runs[i];
            fprintf(out, "%s %s", i ? ";" : "", fault_backing_name(f->backing));
            if (f->skipped[0])
                fprintf(out, " skipped");
            else
                fprintf(out, " %llu minor %llu major %.0f ns/fault",
                        (unsigned long long)f->minor_faults, (unsigned long long)f->major_faults,
                        f->ns_per_fault);
        }
        fprintf(out, " (%llu pages)\n", (unsigned long long)(r->faults.bytes / FAULT_PAGE));
    }
    if (ran(r, PROBE_SHOOTDOWN)) {
        fprintf(out, "shootdown:");
        int shown = 0;
        for (int i = 0; i < r->shootdown.n_summary; i++) {
            const struct shootdown_summary *m = &r->shootdown.summary[i];
            if (m->remote_threads == 0) continue;
            fprintf(out, "%s %s %u remote %+.2f us/remote %.2f IRQ/op", shown++ ? ";" : "",
                    shootdown_mode_name(m->mode), m->remote_threads, m->added_us_per_remote,
                    m->shootdowns_per_op);
        }
        if (!shown) fprintf(out, " no remote CPU to measure");
        fprintf(out, "\n");
    }
}

/* ---------------------------------------------------------------- CSV */

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

void report_probes_csv(FILE *out, const struct probe_results *r, bool after_table)
{
    if (ran(r, PROBE_TIMER)) {
        const struct timer_probe_report *t = &r->timer;
        csv_table(out, &after_table,
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
    if (ran(r, PROBE_FAULTS)) {
        csv_table(out, &after_table,
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
    if (ran(r, PROBE_SHOOTDOWN)) {
        csv_table(out, &after_table,
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
                fprintf(out, "%lld,%lld,", (long long)s->shootdowns,
                        (long long)s->shootdowns_remote);
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
}

/* ---------------------------------------------------------------- JSON */

static void json_timer(json_t *root, const struct timer_probe_report *t)
{
    json_t *timer = json_object_get(root, "timer");
    if (!timer) {
        timer = json_object();
        json_object_set_new(root, "timer", timer);
    }
    json_object_set_new(timer, "clocksource", json_string(t->clocksource));
    json_object_set_new(timer, "precision", json_real(t->precision));
    json_object_set_new(timer, "op_seconds", json_real(t->op_seconds));
    json_t *clocks = json_array();
    for (int i = 0; i < t->n_clocks; i++) {
        const struct timer_clock_row *c = &t->clocks[i];
        json_t *o = json_pack("{s:s}", "clock", c->name);
        json_object_set_new(o, "skipped", string_or_null(c->skipped));
        bool ok = c->available;
        json_object_set_new(o, "resolution_s", ok ? real_or_null(c->resolution_s) : json_null());
        json_object_set_new(o, "resolution_from",
                            ok ? string_or_null(c->resolution_from) : json_null());
        json_object_set_new(o, "granularity_s", ok ? real_or_null(c->granularity_s) : json_null());
        json_object_set_new(o, "call_cost_s", ok ? real_or_null(c->call_cost_s) : json_null());
        json_object_set_new(o, "min_interval_s",
                            ok ? real_or_null(c->min_interval_s) : json_null());
        json_object_set_new(o, "reps_for_op", ok ? real_or_null(c->reps_for_op) : json_null());
        json_array_append_new(clocks, o);
    }
    json_object_set_new(timer, "clocks", clocks);
    const struct tsc_info *s = &t->tsc;
    json_t *tsc = json_object();
    json_object_set_new(tsc, "available", json_boolean(s->available));
    json_object_set_new(tsc, "hz", s->available ? real_or_null(s->hz) : json_null());
    json_object_set_new(tsc, "hz_source", string_or_null(s->hz_source));
    json_object_set_new(tsc, "hz_cpuid_15",
                        s->hz_cpuid_15 > 0 ? json_real(s->hz_cpuid_15) : json_null());
    json_object_set_new(tsc, "hz_cpuid_16",
                        s->hz_cpuid_16 > 0 ? json_real(s->hz_cpuid_16) : json_null());
    json_object_set_new(tsc, "hz_calibrated",
                        s->hz_calibrated > 0 ? json_real(s->hz_calibrated) : json_null());
    json_object_set_new(tsc, "calibration_s",
                        s->hz_calibrated > 0 ? json_real(s->calibration_s) : json_null());
    json_object_set_new(tsc, "invariant",
                        s->invariant_known ? json_boolean(s->invariant) : json_null());
    json_object_set_new(timer, "tsc", tsc);
}

static json_t *json_fault_run(const struct fault_run *f)
{
    json_t *o = json_pack("{s:s}", "backing", fault_backing_name(f->backing));
    json_object_set_new(o, "skipped", string_or_null(f->skipped));
    json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    json_object_set_new(o, "pages_touched", json_integer((json_int_t)f->pages_touched));
    if (f->skipped[0]) {
        static const char *const keys[] = {"minor_faults", "major_faults", "seconds",
                                           "ns_per_fault", "ns_per_page"};
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            json_object_set_new(o, keys[i], json_null());
        return o;
    }
    json_object_set_new(o, "minor_faults", json_integer((json_int_t)f->minor_faults));
    json_object_set_new(o, "major_faults", json_integer((json_int_t)f->major_faults));
    json_object_set_new(o, "seconds", real_or_null(f->seconds));
    json_object_set_new(o, "seconds_min", real_or_null(f->seconds_min));
    json_object_set_new(o, "repetitions", json_integer(f->reps));
    json_object_set_new(o, "ns_per_fault", real_or_null(f->ns_per_fault));
    json_object_set_new(o, "ns_per_page", real_or_null(f->ns_per_page));
    json_object_set_new(o, "us_per_major_fault", real_or_null(f->us_per_major_fault));
    if (f->backing == FAULT_FILE || f->backing == FAULT_FILE_READAHEAD) {
        json_object_set_new(o, "advice", string_or_null(f->advice));
        json_object_set_new(o, "resident_before", real_or_null(f->resident_before));
    } else {
        const struct backing_info *s = &f->smaps;
        json_t *sm = json_object();
        json_object_set_new(sm, "verified", json_boolean(s->verified));
        json_object_set_new(sm, "page_size_bytes",
                            s->verified ? json_integer((json_int_t)s->page_size_bytes)
                                        : json_null());
        json_object_set_new(sm, "rss_bytes", json_integer((json_int_t)s->rss_bytes));
        json_object_set_new(sm, "anon_huge_bytes", json_integer((json_int_t)s->anon_huge_bytes));
        json_object_set_new(sm, "hugetlb_bytes", json_integer((json_int_t)s->hugetlb_bytes));
        json_object_set_new(sm, "how", json_string(s->how));
        json_object_set_new(o, "smaps", sm);
    }
    json_object_set_new(o, "note", string_or_null(f->note));
    return o;
}

static json_t *json_faults(const struct fault_report *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    json_object_set_new(o, "page_bytes", json_integer(FAULT_PAGE));
    json_object_set_new(o, "thp_enabled", json_string(f->thp_enabled));
    json_object_set_new(o, "directory", json_string(f->dir));
    json_object_set_new(o, "filesystem", json_string(f->fs_type));
    json_object_set_new(o, "filesystem_memory_backed", json_boolean(f->fs_memory_backed));
    json_t *runs = json_array();
    for (int i = 0; i < f->n_runs; i++)
        json_array_append_new(runs, json_fault_run(&f->runs[i]));
    json_object_set_new(o, "runs", runs);
    return o;
}

static json_t *json_shootdown(const struct shootdown_report *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "cpu", json_integer(s->measure_pu));
    json_object_set_new(o, "cpu_bound", json_boolean(s->measure_bound));
    json_t *remote = json_array();
    for (int i = 0; i < s->n_remote_pus; i++)
        json_array_append_new(remote, json_integer(s->remote_pus[i]));
    json_object_set_new(o, "remote_cpus", remote);
    json_t *irq = json_object();
    json_object_set_new(irq, "source", json_string("/proc/interrupts TLB"));
    json_object_set_new(irq, "available", json_boolean(s->interrupts_available));
    json_object_set_new(irq, "note", string_or_null(s->interrupts_note));
    json_object_set_new(o, "interrupts", irq);
    json_object_set_new(o, "hypervisor", string_or_null(s->hypervisor));
    json_object_set_new(o, "pv_tlb_flush",
                        s->pv_tlb_flush < 0 ? json_null() : json_boolean(s->pv_tlb_flush));
    json_object_set_new(o, "flush_ceiling_pages",
                        s->flush_ceiling >= 0 ? json_integer(s->flush_ceiling) : json_null());
    json_t *runs = json_array();
    for (int i = 0; i < s->n_runs; i++) {
        const struct shootdown_run *r = &s->runs[i];
        json_t *x =
            json_pack("{s:s,s:i,s:i,s:i}", "mode", shootdown_mode_name(r->mode), "remote_threads",
                      (int)r->remote_threads, "pages", (int)r->pages, "ops", (int)r->ops);
        json_object_set_new(x, "us_per_op", real_or_null(r->us_per_op));
        json_object_set_new(x, "us_min", real_or_null(r->us_min));
        json_object_set_new(x, "us_mean", real_or_null(r->us_mean));
        json_object_set_new(x, "us_per_cycle", real_or_null(r->us_per_cycle));
        json_object_set_new(x, "added_us_per_remote", real_or_null(r->added_us_per_remote));
        json_object_set_new(x, "attributed", json_boolean(r->attributed));
        json_object_set_new(x, "ops_interrupted",
                            r->attributed ? json_integer(r->ops_interrupted) : json_null());
        json_object_set_new(x, "ops_not_interrupted",
                            r->attributed ? json_integer(r->ops_not_interrupted) : json_null());
        json_object_set_new(x, "us_interrupted", real_or_null(r->us_interrupted));
        json_object_set_new(x, "us_not_interrupted", real_or_null(r->us_not_interrupted));
        json_object_set_new(x, "added_us_per_remote_interrupted",
                            real_or_null(r->added_us_per_remote_interrupted));
        json_object_set_new(x, "shootdowns",
                            r->shootdowns >= 0 ? json_integer(r->shootdowns) : json_null());
        json_object_set_new(x, "shootdowns_remote",
                            r->shootdowns_remote >= 0 ? json_integer(r->shootdowns_remote)
                                                      : json_null());
        json_object_set_new(x, "shootdowns_per_op", real_or_null(r->shootdowns_per_op));
        json_object_set_new(x, "siblings_bound", json_boolean(r->siblings_bound));
        json_array_append_new(runs, x);
    }
    json_object_set_new(o, "runs", runs);
    json_t *summary = json_array();
    for (int i = 0; i < s->n_summary; i++) {
        const struct shootdown_summary *m = &s->summary[i];
        json_t *x = json_pack("{s:s,s:i}", "mode", shootdown_mode_name(m->mode), "remote_threads",
                              (int)m->remote_threads);
        json_object_set_new(x, "added_us_per_remote", real_or_null(m->added_us_per_remote));
        json_object_set_new(x, "added_us_per_remote_interrupted",
                            real_or_null(m->added_us_per_remote_interrupted));
        json_object_set_new(x, "shootdowns_per_op", real_or_null(m->shootdowns_per_op));
        json_array_append_new(summary, x);
    }
    json_object_set_new(o, "summary", summary);
    json_t *skipped = json_array();
    for (int i = 0; i < s->n_skipped; i++)
        json_array_append_new(skipped, json_pack("{s:i,s:s}", "remote_threads",
                                                 (int)s->skipped[i].remote_threads, "reason",
                                                 s->skipped[i].reason));
    json_object_set_new(o, "skipped", skipped);
    json_object_set_new(o, "note", string_or_null(s->note));
    return o;
}

void report_probes_json(json_t *root, const struct probe_results *r)
{
    if (!r) return;
    json_t *req = json_array();
    static const char *const names[PROBE_COUNT] = {"faults", "shootdown", "timer"};
    for (int p = 0; p < PROBE_COUNT; p++)
        if (r->requested & PROBE_BIT(p)) json_array_append_new(req, json_string(names[p]));
    json_object_set_new(root, "probes", req);
    if (ran(r, PROBE_TIMER)) json_timer(root, &r->timer);
    if (ran(r, PROBE_FAULTS)) json_object_set_new(root, "faults", json_faults(&r->faults));
    if (ran(r, PROBE_SHOOTDOWN))
        json_object_set_new(root, "shootdown", json_shootdown(&r->shootdown));
}
