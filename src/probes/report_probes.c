/* Text and quiet output of the probes (CSV: report_probes_csv.c, JSON:
 * report_probes_json.c). Formatting only: every number comes from the result structs that
 * kernels/<probe>_probe.c filled. */
#include <math.h>
#include <string.h>

#include "src/probes/probes.h"
#include "src/probes/report_probes_ran.h"

#define RULE "-------------------------------------------------------------\n"

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

/* A counter other than the TSC (aarch64's CNTVCT_EL0): its rate, and that it is not cycles. */
static void timer_counter_text(FILE *out, const struct tsc_info *s)
{
    fprintf(out, "%s: %.3f MHz from %s (calibrated: %.3f MHz)\n", s->counter, s->hz * 1e-6,
            s->hz_source ? s->hz_source : "unknown", s->hz_calibrated * 1e-6);
    fprintf(out,
            "%s counts timer ticks at a fixed rate, not core cycles: it times intervals; "
            "cycle counts are unknown from it\n",
            s->counter);
}

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
    if (s->available && s->counter && strcmp(s->counter, "TSC") != 0) {
        timer_counter_text(out, s);
    } else if (s->available) {
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
    char small[PAGE_TEXT_LEN];
    fprintf(out,
            "Page faults (--faults): %llu MiB, one byte touched per %s page (%llu pages); "
            "THP %s; file in %s (%s)\n",
            (unsigned long long)(f->bytes >> 20), page_size_text(page_base_bytes(), small),
            (unsigned long long)(f->bytes / page_base_bytes()), f->thp_enabled, f->dir, f->fs_type);
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
            fprintf(out, "; %s %.1f MHz (%s)%s", t->counter ? t->counter : "TSC", t->hz * 1e-6,
                    t->hz_source, t->invariant ? " invariant" : "");
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
        fprintf(out, " (%llu pages)\n", (unsigned long long)(r->faults.bytes / page_base_bytes()));
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
