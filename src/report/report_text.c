#include <stddef.h>
#include <string.h>

#include "src/base/interrupt.h"
#include "src/base/page_sizes.h"
#include "src/base/utf8_text.h"
#include "src/report/report.h"
#include "src/report/report_diagnosis.h"
#include "src/report/report_dimms.h"
#include "src/report/report_memory.h"

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
    report_dimms_text(out, rep->dimms, rep->memory);
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
    write_system(out, rep);
    write_parts(out, rep, MEASURE_LEAD, false);
    write_parts(out, rep, MEASURE_BEFORE_TAIL, false);
    if (rep->dry_run) fprintf(out, "Dry run: nothing was allocated or measured.\n");
    write_tails(out, rep);
    write_parts(out, rep, MEASURE_AFTER_TAIL, false);
    write_acceptance(out, &rep->acceptance);
    report_diagnosis_text(out, rep);
    if (rep->interrupted)
        fprintf(out, "INTERRUPTED by %s: %s.\n", interrupt_name(rep->interrupted), rep->kept);
    else if (rep->kept[0])
        fprintf(out, "STOPPED EARLY: %s.\n", rep->kept);
    return ferror(out) ? -1 : 0;
}

/* "FAIL 18 of 19 checks passed: Triad 60% below the reference (...); note: ...": the verdict,
 * why each check that did not pass did not, and the notes of the others. */
static void write_quiet_verdict(FILE *out, const struct report *rep)
{
    const struct acceptance_result *a = &rep->acceptance;
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
    report_diagnosis_quiet(out, rep);
    fputc('\n', out);
}

int report_write_quiet(FILE *out, const struct report *rep)
{
    write_parts(out, rep, MEASURE_LEAD, true);
    write_parts(out, rep, MEASURE_BEFORE_TAIL, true);
    write_quiet_verdict(out, rep);
    write_parts(out, rep, MEASURE_AFTER_TAIL, true);
    return ferror(out) ? -1 : 0;
}
