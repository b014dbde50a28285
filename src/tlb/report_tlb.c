/* The TLB probe as text: the header, the points, the levels, the per-thread table, the 2 MB
 * sweep and the page-walk throughput. */
#include "src/tlb/report_tlb.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "kernels/cycle_counter.h"
#include "src/base/parse.h"
#include "src/measure/report_locality.h"
#include "src/tlb/report_tlb_cost.h"
#include "src/tlb/report_tlb_words.h"
#include "src/tlb/tlb_region.h"
#include "src/tlb/tlb_curve.h"

#define RULE "-------------------------------------------------------------\n"

static const char *mode_name(enum tlb_mode m)
{
    return m == TLB_MODE_CHASE ? "pointer chase (latency)" : "a[i] += 1 loop (inc)";
}

static const char *page_label(uint64_t bytes, char *buf, size_t len)
{
    format_bytes(bytes, buf, len);
    return buf;
}

/* A line being written: what did not fit is cut. */
struct line {
    char *buf;
    size_t len, used;
};

__attribute__((format(printf, 2, 3))) static void put(struct line *ln, const char *fmt, ...)
{
    if (ln->used >= ln->len) return;
    va_list ap;
    va_start(ap, fmt);
    ln->used += (size_t)vsnprintf(ln->buf + ln->used, ln->len - ln->used, fmt, ap);
    va_end(ap);
}

/* How many entries a level has, and how that was found. */
static void level_entries(struct line *ln, const struct tlb_sweep *s, size_t i)
{
    const struct knee_level *l = &s->analysis.levels[i];
    if (l->set_conflict_ways) {
        char huge[PAGE_TEXT_LEN];
        put(ln,
            "%u-way set conflict (pages %s apart share one set: the set's associativity, not "
            "a TLB size)",
            l->set_conflict_ways, page_size_text(tlb_huge_bytes(), huge));
    } else if (isfinite(l->entries) && l->reuse_sized && !isfinite(l->midpoint)) {
        put(ln, "~%.0f entries (reuse fit; the cyclic sweep's sharp knee at %.0f-%.0f read early)",
            l->entries, l->entries_low, l->entries_high);
    } else if (isfinite(l->entries) && l->stride_sized) {
        put(ln, "%.0f entries (stride probe: low-bit set index)", l->entries);
    } else if (isfinite(l->entries) && l->model_sized) {
        put(ln, "~%.0f entries (model of a hashed set index, read half-way; %.0f-%.0f fit as well)",
            l->entries, l->size_low, l->size_high);
    } else if (knee_level_undecided(l)) {
        double low = l->entries, high = l->entries;
        knee_level_bracket(l, &low, &high);
        put(ln,
            "%.0f-%.0f entries (the curves do not decide: misses begin at %.0f pages, the cyclic "
            "sweep's rise is half-way at %.0f",
            low, high, l->entries_low, floor(l->half_x + 0.5));
        if (l->reuse_sized)
            put(ln, ", the reuse fit says %.0f", l->entries);
        else if (i < TLB_LEVELS_MAX && s->reuse_levels[i].planned)
            put(ln, "; no reuse fit: %s", s->reuse_levels[i].fit.why);
        put(ln, ")");
    } else if (isfinite(l->entries) && l->reuse_sized) {
        put(ln, "~%.0f entries (reuse fit; the cyclic sweep's rise %.0f-%.0f, midpoint %.0f)",
            l->entries, l->entries_low, l->rise_high, l->midpoint);
    } else if (isfinite(l->entries) && knee_level_gradual(l)) {
        put(ln, "~%.0f entries (rise %.0f-%.0f, midpoint", l->entries, l->entries_low,
            l->rise_high);
        if (i < TLB_LEVELS_MAX && s->reuse_levels[i].planned)
            put(ln, "; no reuse fit: %s", s->reuse_levels[i].fit.why);
        put(ln, ")");
    } else if (isfinite(l->entries)) {
        put(ln, "%s%.0f entries", l->approx ? "~" : "", l->entries);
        if (l->approx)
            put(ln, " (sharp knee between %.0f and %.0f pages", l->entries, l->entries_high);
        else
            put(ln, " (sharp knee");
        if (i < TLB_LEVELS_MAX && s->reuse_levels[i].fit.ok)
            put(ln, "; reuse fit %.0f", floor(s->reuse_levels[i].fit.entries + 0.5));
        put(ln, ")");
    } else {
        put(ln, "more than %.0f entries (no knee up to the last point)", l->at_x);
    }
}

/* The measured size against the one CPUID documents. */
static void level_documented(struct line *ln, const struct tlb_sweep *s, size_t i)
{
    const struct knee_level *l = &s->analysis.levels[i];
    if (!s->documented[i]) {
        put(ln, "; documented: unknown");
        return;
    }
    if (!isfinite(l->entries)) {
        put(ln, "; documented %u (not reached)", s->documented[i]);
        return;
    }
    /* what the rule compares: the bracket, and how far off it the documented size is */
    double low, high;
    if (knee_level_bracket(l, &low, &high) && high > low)
        put(ln, "; measured %.0f-%.0f", low, high);
    else
        put(ln, "; measured %.0f", l->entries);
    put(ln, " / documented %u", s->documented[i]);
    double off = fabs(knee_level_off(l, s->documented[i]));
    if (s->agrees[i] == 1)
        put(ln, " (agrees within %.0f%%)", 100.0 * TLB_AGREE_REL);
    else if (s->agrees[i] == 0 && isfinite(off))
        put(ln, " (DISAGREES: %.1f%% off, over the %.0f%% tolerance)", 100.0 * off,
            100.0 * TLB_AGREE_REL);
    else
        put(ln, " (not compared)");
}

/* "L1 DTLB: 96 entries, 1.70 ns (5.1 cycles) per access", "L2 TLB: ~2048 entries (2048..2176
 * pages), +2.41 ns (+7.2 cycles)", "page walk: +8.3 ns ... just past the L2 TLB, +45 ns at
 * 32768 pages". */
static void level_line(char *buf, size_t len, const struct tlb_sweep *s, size_t i, double ghz,
                       bool with_documented)
{
    const struct knee_level *l = &s->analysis.levels[i];
    const struct knee_level *prev = i ? &s->analysis.levels[i - 1] : NULL;
    struct line ln = {buf, len, 0};
    if (is_walk(l)) {
        put(&ln, "%s: +%.2f ns", l->name, l->miss_penalty_ns);
        if (ghz > 0) put(&ln, " (+%.0f cycles)", l->miss_penalty_ns * ghz);
        put(&ln, " just past the %s", prev ? prev->name : "last TLB level");
        if (isfinite(l->max_penalty_ns))
            put(&ln, ", +%.1f ns at %.0f pages (page-table entries leave the caches too)",
                l->max_penalty_ns, l->at_x);
        return;
    }
    put(&ln, "%s: ", l->name);
    level_entries(&ln, s, i);
    if (!prev) {
        put(&ln, ", %.2f ns", l->hit_ns);
        if (ghz > 0) put(&ln, " (%.1f cycles)", l->hit_ns * ghz);
        put(&ln, " per access");
    } else {
        put(&ln, ", +%.2f ns", prev->miss_penalty_ns);
        if (ghz > 0) put(&ln, " (+%.1f cycles)", prev->miss_penalty_ns * ghz);
        if (prev->set_conflict_ways) /* a set's ways, not a level that misses */
            put(&ln, " per access past the %u-way set conflict", prev->set_conflict_ways);
        else
            put(&ln, " per access when the %s misses", prev->name);
    }
    if (with_documented && !l->set_conflict_ways) level_documented(&ln, s, i);
}

/* x as %.2f shows it, without the sign of a value within rounding of zero (0.00, not -0.00) */
static double hundredths(double x)
{
    return fabs(x) < 0.005 ? 0.0 : x;
}

static void write_points(FILE *out, const struct tlb_sweep *s, double ghz, bool with_control)
{
    fprintf(out, "%9s %10s %10s %8s", "Pages", "ns/access", "median ns", "cycles");
    if (with_control) fprintf(out, " %10s %12s", "control ns", "translation");
    fprintf(out, "\n");
    for (size_t i = 0; i < s->main.n; i++) {
        const struct tlb_point *p = &s->main.pts[i];
        fprintf(out, "%9.0f%s %9.2f %10.2f", p->pages, p->refined ? "*" : " ", p->ns_per_access,
                p->median_ns);
        if (ghz > 0)
            fprintf(out, " %8.1f", p->ns_per_access * ghz);
        else
            fprintf(out, " %8s", "-");
        if (with_control) {
            double c = NAN;
            for (size_t j = 0; j < s->control.n; j++)
                if (fabs(s->control.pts[j].pages - p->pages) < 0.5)
                    c = s->control.pts[j].ns_per_access;
            if (isfinite(c))
                fprintf(out, " %10.2f %12.2f", c, hundredths(p->ns_per_access - c));
            else
                fprintf(out, " %10s %12s", "-", "-");
        }
        fprintf(out, "\n");
    }
}

/* The reuse chase's points, and what the fit made of each level. */
static void write_reuse(FILE *out, const struct tlb_sweep *s)
{
    if (!s->reuse_slots || s->reuse.n == 0) return;
    fprintf(out,
            "Reuse chase (each page visited %u times per traversal at random distances, so the "
            "misses follow the entry count, not the replacement policy):\n",
            s->reuse_slots);
    fprintf(out, "%9s %10s %10s %12s\n", "Pages", "ns/access", "control ns", "translation");
    for (size_t i = 0; i < s->reuse.n; i++) {
        const struct tlb_point *p = &s->reuse.pts[i];
        double c = tlb_curve_at(&s->reuse_control, p->pages);
        if (isfinite(c))
            fprintf(out, "%9.0f %10.2f %10.2f %12.2f\n", p->pages, p->ns_per_access, c,
                    hundredths(p->ns_per_access - c));
        else
            fprintf(out, "%9.0f %10.2f %10s %12s\n", p->pages, p->ns_per_access, "-", "-");
    }
    for (size_t i = 0; i < TLB_LEVELS_MAX && i < s->analysis.n_levels; i++) {
        const struct tlb_reuse_level *r = &s->reuse_levels[i];
        if (!r->planned) continue;
        double base = hundredths(r->fit.base_ns);
        if (r->fit.ok)
            fprintf(
                out,
                "  %s fit: %.0f entries (%+.2f ns until then, +%.1f ns when every access misses; "
                "%zu points of %.0f-%.0f pages, %zu dropped, scatter %.2f ns)\n",
                s->analysis.levels[i].name, r->fit.entries, base, r->fit.walk_ns, r->fit.points,
                r->pages_low, r->pages_high, r->fit.dropped, r->fit.rms_ns);
        else
            fprintf(out, "  %s fit: none over %.0f-%.0f pages: %s\n", s->analysis.levels[i].name,
                    r->pages_low, r->pages_high, r->fit.why);
    }
    fprintf(out, RULE);
}

static void write_levels(FILE *out, const struct tlb_sweep *s, double ghz, const char *what)
{
    const struct knee_analysis *a = &s->analysis;
    char line[400];
    if (!s->analysed) {
        fprintf(out, "Levels (%s): unknown (too few points to analyse)\n", what);
        return;
    }
    if (!a->has_control) {
        fprintf(out,
                "Levels (%s): not named: without a control that shares the sweep's cache "
                "behaviour (--no-stagger) a knee may be a TLB or a cache-set one. Knees:\n",
                what);
        for (size_t i = 0; i < a->n_main_knees; i++)
            fprintf(out, "  %.0f -> %.0f pages: +%.2f ns\n", a->main_knees[i].last_low,
                    a->main_knees[i].first_high, a->main_knees[i].step_ns);
        return;
    }
    if (a->n_levels == 0) {
        fprintf(out,
                "Levels (%s): unknown: no rise of the translation cost (sweep minus "
                "control) was found",
                what);
        if (a->n_main_knees)
            fprintf(out, "; the sweep's %zu knee%s %s the control's too (data cache)",
                    a->n_main_knees, a->n_main_knees == 1 ? "" : "s",
                    a->n_main_knees == 1 ? "is" : "are");
        fprintf(out, "\n");
        return;
    }
    fprintf(out, "Levels (%s):\n", what);
    for (size_t i = 0; i < a->n_levels; i++) {
        level_line(line, sizeof(line), s, i, ghz, true);
        fprintf(out, "  %s\n", line);
        if (!s->model[i].ok) continue;
        report_tlb_model_line(line, sizeof(line), s, i);
        fprintf(out, "    %s\n", line);
    }
    if (s->n_cache_knees) {
        fprintf(out, "Data-cache knees (the control shows them too: not TLB levels):\n");
        for (size_t i = 0; i < s->n_cache_knees; i++) {
            const struct tlb_cache_knee *c = &s->cache_knees[i];
            fprintf(out, "  %.0f -> %.0f lines: +%.2f ns%s%s%s\n", c->last_low, c->first_high,
                    c->step_ns, c->label[0] ? " (" : "", c->label, c->label[0] ? ")" : "");
        }
    }
    bool any = false;
    for (size_t i = 0; i < a->n_levels; i++) {
        if (!isfinite(s->reach_bytes[i])) continue;
        char r[32], pg[32];
        format_bytes((uint64_t)s->reach_bytes[i], r, sizeof(r));
        fprintf(out, "%s %s %.0f x %s = %s", any ? "," : "Reach:", a->levels[i].name,
                a->levels[i].entries, page_label(s->page_bytes, pg, sizeof(pg)), r);
        any = true;
    }
    if (any) fprintf(out, "\n");
}

static const char *stagger_words(bool stagger, char *buf, size_t len)
{
    if (!stagger) return "NOT staggered (line 0 of every page)";
    snprintf(buf, len, "cache lines staggered (page p uses line p mod %llu)",
             (unsigned long long)(page_base_bytes() / TLB_LINE_BYTES));
    return buf;
}

static void write_header(FILE *out, const struct tlb_result *t)
{
    const struct tlb_options *o = &t->opts;
    char pg[32];
    char stagger[96];
    fprintf(out, "TLB probe: %s, %s order, %s\n", mode_name(o->mode), order_word(o->order),
            stagger_words(o->stagger, stagger, sizeof(stagger)));
    if (t->multi) {
        fprintf(out, "Threads: %d at once, each on its own pages, bind %s; Thread:PU", t->threads,
                t->bind);
        for (int i = 0; i < t->n_threads; i++)
            fprintf(out, " %d:%d", t->per_thread[i].thread, t->per_thread[i].pu);
        fprintf(out, "\n");
    } else if (t->n_threads) {
        const struct tlb_thread_result *r = &t->per_thread[0];
        fprintf(out, "CPU: %s%s\n", t->bind,
                !t->measured               ? " (planned)"
                : r->planned_pu < 0        ? ", not pinned"
                : r->bound && !r->migrated ? ", bound and verified"
                                           : ", NOT kept there");
    }
    if (t->measured) {
        const struct backing_info *b = &t->backing;
        if (b->verified)
            fprintf(out,
                    "Pages: %s -> %s pages, THP on %.0f%%, verified in /proc/self/smaps (%s)\n",
                    t->pages_name, page_label(b->page_size_bytes, pg, sizeof(pg)),
                    100.0 * b->thp_fraction, b->how);
        else
            fprintf(out, "Pages: %s (%s); page size unverified (smaps unreadable)\n", t->pages_name,
                    b->how);
        char line[300];
        locality_text(&t->locality, "the thread's NUMA node", line, sizeof(line));
        fprintf(out, "Memory: %s\n", line);
    } else {
        fprintf(out, "Pages: %s\n", t->pages_name);
    }
    if (t->single_point && t->trials)
        fprintf(
            out,
            "Timing: %u samples of %llu trials (traversals of the %llu pages), each timed as "
            "one run like ./tlb N T of the OSTEP TLB measurement (without --tlb-trials: medians "
            "of short chunks)\n",
            o->repeat, (unsigned long long)t->trials, (unsigned long long)o->pages);
    else
        fprintf(out,
                "Timing: each point the min (and median) of %u samples taken in %u interleaved "
                "rounds; a sample is the median of %d timed chunks of >= %.1f ms\n",
                o->repeat, o->repeat, t->chunks_per_sample, t->chunk_target_s * 1e3);
    if (t->measured) {
        if (t->core_ghz > 0)
            fprintf(out,
                    "Cycles: core clock ~%.2f GHz, estimated from a dependent-add loop (TSC %.2f "
                    "GHz)\n",
                    t->core_ghz, t->tsc_ghz);
        else if (t->tsc_ghz > 0)
            fprintf(out, "Cycles: TSC cycles at %.2f GHz (the core clock may differ)\n",
                    t->tsc_ghz);
        else
            fprintf(out, "Cycles: unknown (%s)\n", CYCLE_COUNTER_NOT_CYCLES);
    }
    report_tlb_documented_text(out, &t->cpuid);
    report_tlb_cost_text(out, &t->cost);
    fprintf(out, RULE);
}

static void write_threads(FILE *out, const struct tlb_result *t)
{
    double ghz = cycle_ghz(t);
    (void)ghz;
    fprintf(out, "Per-thread levels (measured at the same time, each thread on its own pages):\n");
    fprintf(out, "Thread    PU  Core  L1 entries  hit ns  L2 entries   +ns  walk +ns\n");
    for (int i = 0; i < t->n_threads; i++) {
        const struct tlb_thread_result *r = &t->per_thread[i];
        const struct knee_analysis *a = &r->small.analysis;
        const struct knee_level *l1 = a->n_levels > 0 ? &a->levels[0] : NULL;
        const struct knee_level *l2 = a->n_levels > 1 ? &a->levels[1] : NULL;
        const struct knee_level *w = a->n_levels > 2 ? &a->levels[2] : NULL;
        fprintf(out, "%6d %5d %5d", r->thread, r->pu, r->core);
        if (l1 && isfinite(l1->entries))
            fprintf(out, " %10s%.0f %7.2f", l1->approx ? "~" : "", l1->entries, l1->hit_ns);
        else
            fprintf(out, " %11s %7s", "unknown", "-");
        if (l2 && isfinite(l2->entries))
            fprintf(out, " %10s%.0f %5.2f", l2->approx ? "~" : "", l2->entries,
                    l1->miss_penalty_ns);
        else
            fprintf(out, " %11s %5s", "unknown", "-");
        if (w && is_walk(w))
            fprintf(out, " %9.2f", w->miss_penalty_ns);
        else
            fprintf(out, " %9s", "-");
        fprintf(out, "%s%s\n", r->differs ? "  DIFFERS: " : "", r->differs ? r->why_differs : "");
    }
    if (t->differ_note[0])
        fprintf(out, "%s\n", t->differ_note);
    else if (t->n_differ == 0)
        fprintf(out, "All threads agree.\n");
}

static void write_throughput(FILE *out, const struct tlb_result *t)
{
    char small[PAGE_TEXT_LEN], huge[PAGE_TEXT_LEN];
    page_size_text(page_base_bytes(), small);
    page_size_text(tlb_huge_bytes(), huge);
    fprintf(out,
            "Page-walk throughput (%d thread%s at once, random independent loads, one per "
            "%s page of 128 MiB per thread):\n",
            t->threads, t->threads == 1 ? "" : "s", small);
    for (int i = 0; i < 2; i++) {
        const struct tlb_throughput *w = &t->walk[i];
        char pg[32];
        page_label(w->page_bytes, pg, sizeof(pg));
        if (!w->measured) {
            fprintf(out, "  %s pages: not measured (%s)\n", pg, w->why);
            continue;
        }
        fprintf(out, "  %s pages: %.1f M accesses/s (median %.1f), %.2f ns per access per thread\n",
                pg, w->best_accesses_per_s * 1e-6, w->median_accesses_per_s * 1e-6,
                1e9 * t->threads / w->best_accesses_per_s);
    }
    if (t->walk[0].measured && t->walk[1].measured)
        fprintf(out, "  %s / %s: %.2fx\n", huge, small,
                t->walk[1].best_accesses_per_s / t->walk[0].best_accesses_per_s);
}

/* The huge sweep's part of the text. */
static void write_huge(FILE *out, const struct tlb_result *t, double ghz)
{
    char small[PAGE_TEXT_LEN], huge[PAGE_TEXT_LEN], huge_iec[PAGE_TEXT_LEN];
    page_size_text(page_base_bytes(), small);
    page_size_text(tlb_huge_bytes(), huge);
    if (t->huge_measured) {
        fprintf(out, "%s pages (%s, %.0f%% verified in smaps), one access per page:\n", huge,
                t->huge_backing.how,
                100.0 * (t->huge_backing.hugetlb_bytes ? 1.0 : t->huge_backing.thp_fraction));
        write_points(out, &t->huge, ghz, true);
        if (t->huge.note[0]) fprintf(out, "(%s)\n", t->huge.note);
        write_levels(out, &t->huge, ghz, page_size_iec(tlb_huge_bytes(), huge_iec));
        if (t->huge_extends_reach == 0)
            fprintf(
                out,
                "Reach: not extended; these entries hold %s pieces of the %s pages (see below)\n",
                small, huge);
    } else {
        fprintf(out, "%s pages: not measured (%s)\n", huge, t->huge_why);
    }
}

void report_tlb_text(FILE *out, const struct tlb_result *t)
{
    char small[PAGE_TEXT_LEN], huge[PAGE_TEXT_LEN];
    page_size_text(page_base_bytes(), small);
    page_size_text(tlb_huge_bytes(), huge);
    write_header(out, t);
    if (!t->measured) {
        if (t->single_point)
            fprintf(out, "Planned: one point, %llu pages\n", (unsigned long long)t->opts.pages);
        else
            fprintf(out,
                    "Planned: sweep 1..%llu pages and its control, refined around each knee; "
                    "%s sweep: %s; page-walk throughput %s%s%s\n",
                    (unsigned long long)t->max_pages, huge, t->max_huge_pages ? "yes" : t->huge_why,
                    t->walk[0].why[0] ? t->walk[0].why : small, t->walk[0].why[0] ? "" : " vs ",
                    t->walk[0].why[0] ? "" : huge);
        fprintf(out, RULE);
        return;
    }
    double ghz = cycle_ghz(t);
    const struct tlb_sweep *s = &t->per_thread[0].small;
    char pg[32];
    page_label(s->page_bytes, pg, sizeof(pg));
    if (t->single_point) {
        write_points(out, s, ghz, false);
    } else {
        fprintf(out,
                "%s pages%s (* = refinement point; control = the same number of cache lines "
                "in %llux fewer %s pages; translation = the difference):\n",
                pg, t->multi ? ", thread 0" : "",
                (unsigned long long)(page_base_bytes() / TLB_LINE_BYTES), small);
        write_points(out, s, ghz, true);
        fprintf(out, RULE);
        write_reuse(out, s);
        write_levels(out, s, ghz, pg);
        report_tlb_sets_text(out, t);
        if (t->multi) write_threads(out, t);
        fprintf(out, RULE);
        write_huge(out, t, ghz);
        if (t->reach_note[0]) fprintf(out, "Huge pages: %s.\n", t->reach_note);
        fprintf(out, RULE);
        write_throughput(out, t);
    }
    for (int i = 0; i < t->n_warnings; i++)
        fprintf(out, "WARNING: %s\n", t->warnings[i]);
    fprintf(out, "TLB probe time: %.1f s\n" RULE, t->seconds);
}
