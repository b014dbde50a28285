#include "src/report/report_tlb.h"

#include <math.h>
#include <string.h>

#include "src/base/parse.h"
#include "src/report/json_values.h"

#define RULE "-------------------------------------------------------------\n"

static const char *mode_name(enum tlb_mode m)
{
    return m == TLB_MODE_CHASE ? "pointer chase (latency)" : "a[i] += 1 loop (inc)";
}

static const char *mode_word(enum tlb_mode m)
{
    return m == TLB_MODE_CHASE ? "chase" : "inc";
}

static const char *order_word(enum tlb_order o)
{
    return o == TLB_ORDER_RANDOM ? "random" : "seq";
}

/* Clock rate used for cycles: the core estimate, else the TSC; 0 when neither is known. */
static double cycle_ghz(const struct tlb_result *t)
{
    return t->core_ghz > 0 ? t->core_ghz : t->tsc_ghz;
}

static bool is_walk(const struct knee_level *l)
{
    return strcmp(l->name, "page walk") == 0 || strncmp(l->name, "past knee", 9) == 0;
}

static const char *page_label(uint64_t bytes, char *buf, size_t len)
{
    format_bytes(bytes, buf, len);
    return buf;
}

/* "L1 DTLB: 96 entries, 1.70 ns (5.1 cycles) per access", "L2 TLB: ~2048 entries (2048..2176
 * pages), +2.41 ns (+7.2 cycles)", "page walk: +8.3 ns ... just past the L2 TLB, +45 ns at
 * 32768 pages". */
static void level_line(char *buf, size_t len, const struct tlb_sweep *s, size_t i, double ghz,
                       bool with_documented)
{
    const struct knee_level *l = &s->analysis.levels[i];
    const struct knee_level *prev = i ? &s->analysis.levels[i - 1] : NULL;
    size_t used = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (used < len) used += (size_t)snprintf(buf + used, len - used, __VA_ARGS__);             \
    } while (0)
    if (is_walk(l)) {
        PUT("%s: +%.2f ns", l->name, l->miss_penalty_ns);
        if (ghz > 0) PUT(" (+%.0f cycles)", l->miss_penalty_ns * ghz);
        PUT(" just past the %s", prev ? prev->name : "last TLB level");
        if (isfinite(l->max_penalty_ns))
            PUT(", +%.1f ns at %.0f pages (page-table entries leave the caches too)",
                l->max_penalty_ns, l->at_x);
        return;
    }
    PUT("%s: ", l->name);
    if (isfinite(l->entries)) {
        PUT("%s%.0f entries", l->approx ? "~" : "", l->entries);
        if (l->approx) PUT(" (knee between %.0f and %.0f pages)", l->entries, l->entries_high);
        if (isfinite(l->complete_x) && l->complete_x > 1.25 * l->entries_high)
            PUT(" (misses set in gradually: the rise completes by %.0f pages)", l->complete_x);
    } else {
        PUT("more than %.0f entries (no knee up to the last point)", l->at_x);
    }
    if (!prev) {
        PUT(", %.2f ns", l->hit_ns);
        if (ghz > 0) PUT(" (%.1f cycles)", l->hit_ns * ghz);
        PUT(" per access");
    } else {
        PUT(", +%.2f ns", prev->miss_penalty_ns);
        if (ghz > 0) PUT(" (+%.1f cycles)", prev->miss_penalty_ns * ghz);
        PUT(" per access when the %s misses", prev->name);
    }
    if (with_documented) {
        if (s->documented[i])
            PUT("; measured %.0f / documented %u (%s)", l->entries, s->documented[i],
                s->agrees[i] == 1   ? "agrees"
                : s->agrees[i] == 0 ? "DISAGREES"
                                    : "not compared");
        else
            PUT("; documented: unknown");
    }
#undef PUT
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
                fprintf(out, " %10.2f %12.2f", c, p->ns_per_access - c);
            else
                fprintf(out, " %10s %12s", "-", "-");
        }
        fprintf(out, "\n");
    }
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

static void write_header(FILE *out, const struct tlb_result *t)
{
    const struct tlb_options *o = &t->opts;
    char pg[32];
    fprintf(out, "TLB probe: %s, %s order, %s\n", mode_name(o->mode), order_word(o->order),
            o->stagger ? "cache lines staggered (page p uses line p mod 64)"
                       : "NOT staggered (line 0 of every page)");
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
            fprintf(out, "Cycles: unknown (no TSC and no core-clock estimate on this CPU)\n");
    }
    const struct cpuid_tlb_info *c = &t->cpuid;
    fprintf(out, "CPU model: %s family %u model %u%s; documented TLBs: ", c->vendor, c->family,
            c->model, c->hypervisor ? " (under a hypervisor)" : "");
    if (c->n == 0) {
        fprintf(out, "unknown (%s)\n", c->why);
    } else {
        unsigned l1 = cpuid_tlb_data_entries(c, 1, TLB_PAGE_4K),
                 l2 = cpuid_tlb_data_entries(c, 2, TLB_PAGE_4K),
                 h1 = cpuid_tlb_data_entries(c, 1, TLB_PAGE_2M),
                 h2 = cpuid_tlb_data_entries(c, 2, TLB_PAGE_2M);
        fprintf(out, "4 KB: L1 %u, L2 %u; 2 MB: L1 %u, L2 %u (0 = none reported; %s)\n", l1, l2, h1,
                h2, c->source);
    }
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
    if (t->n_differ == 0) fprintf(out, "All threads agree.\n");
}

static void write_throughput(FILE *out, const struct tlb_result *t)
{
    fprintf(out,
            "Page-walk throughput (%d thread%s at once, random independent loads, one per "
            "4 KB page of 128 MiB per thread):\n",
            t->threads, t->threads == 1 ? "" : "s");
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
        fprintf(out, "  2 MB / 4 KB: %.2fx\n",
                t->walk[1].best_accesses_per_s / t->walk[0].best_accesses_per_s);
}

void report_tlb_text(FILE *out, const struct tlb_result *t)
{
    write_header(out, t);
    if (!t->measured) {
        if (t->single_point)
            fprintf(out, "Planned: one point, %llu pages\n", (unsigned long long)t->opts.pages);
        else
            fprintf(out,
                    "Planned: sweep 1..%llu pages and its control, refined around each knee; "
                    "2 MB sweep: %s; page-walk throughput 4 KB vs 2 MB\n",
                    (unsigned long long)t->max_pages, t->max_huge_pages ? "yes" : t->huge_why);
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
                "in 64x fewer 4 KB pages; translation = the difference):\n",
                pg, t->multi ? ", thread 0" : "");
        write_points(out, s, ghz, true);
        fprintf(out, RULE);
        write_levels(out, s, ghz, pg);
        if (t->multi) write_threads(out, t);
        fprintf(out, RULE);
        if (t->huge_measured) {
            fprintf(out, "2 MB pages (%s, %.0f%% verified in smaps), one access per page:\n",
                    t->huge_backing.how,
                    100.0 * (t->huge_backing.hugetlb_bytes ? 1.0 : t->huge_backing.thp_fraction));
            write_points(out, &t->huge, ghz, true);
            if (t->huge.note[0]) fprintf(out, "(%s)\n", t->huge.note);
            write_levels(out, &t->huge, ghz, "2 MiB");
            if (t->huge_extends_reach == 0)
                fprintf(out, "Reach: not extended; these entries hold 4 KB pieces of the 2 MB "
                             "pages (see below)\n");
        } else {
            fprintf(out, "2 MB pages: not measured (%s)\n", t->huge_why);
        }
        if (t->reach_note[0]) fprintf(out, "Huge pages: %s.\n", t->reach_note);
        fprintf(out, RULE);
        write_throughput(out, t);
    }
    for (int i = 0; i < t->n_warnings; i++)
        fprintf(out, "WARNING: %s\n", t->warnings[i]);
    fprintf(out, "TLB probe time: %.1f s\n" RULE, t->seconds);
}

void report_tlb_quiet(FILE *out, const struct tlb_result *t)
{
    const struct tlb_options *o = &t->opts;
    char cpu[32];
    if (t->multi)
        snprintf(cpu, sizeof(cpu), "threads=%d", t->threads);
    else
        snprintf(cpu, sizeof(cpu), "cpu=%d", t->n_threads ? t->per_thread[0].planned_pu : -1);
    if (!t->measured) {
        fprintf(out, "tlb: planned pages=1..%llu %s pages=%s mode=%s order=%s\n",
                (unsigned long long)t->max_pages, cpu, t->pages_name, mode_word(o->mode),
                order_word(o->order));
        return;
    }
    const struct tlb_sweep *s = &t->per_thread[0].small;
    double ghz = cycle_ghz(t);
    if (t->single_point) {
        const struct tlb_point *p = s->main.n ? &s->main.pts[0] : NULL;
        fprintf(out, "tlb: pages=%llu ns_per_access=%.3f median_ns=%.3f",
                (unsigned long long)o->pages, p ? p->ns_per_access : NAN, p ? p->median_ns : NAN);
        if (ghz > 0 && p) fprintf(out, " cycles=%.1f", p->ns_per_access * ghz);
        if (t->trials)
            fprintf(out, " trials=%llu", (unsigned long long)t->trials);
        else
            fprintf(out, " trials=auto");
        fprintf(out, " repeat=%u %s pages=%s mode=%s order=%s\n", o->repeat, cpu, t->pages_name,
                mode_word(o->mode), order_word(o->order));
        return;
    }
    fprintf(out, "tlb:");
    const struct knee_analysis *a = &s->analysis;
    if (a->n_levels == 0)
        fprintf(out, " levels %s",
                a->has_control ? "unknown (no translation knee found)"
                               : "not named (--no-stagger)");
    for (size_t i = 0; i < a->n_levels; i++) {
        const struct knee_level *l = &a->levels[i];
        const struct knee_level *prev = i ? &a->levels[i - 1] : NULL;
        fprintf(out, "%s ", i ? "," : "");
        if (is_walk(l))
            fprintf(out, "%s +%.2f ns", l->name, l->miss_penalty_ns);
        else if (!isfinite(l->entries))
            fprintf(out, "%s >%.0f entries", l->name, l->at_x);
        else
            fprintf(out, "%s %s%.0f entries", l->name, l->approx ? "~" : "", l->entries);
        if (!is_walk(l)) {
            if (prev)
                fprintf(out, " +%.2f ns", prev->miss_penalty_ns);
            else
                fprintf(out, " %.2f ns", l->hit_ns);
        }
    }
    fprintf(out, ";");
    if (t->huge_measured)
        fprintf(out, " 2M %s;",
                t->huge_extends_reach == 1   ? "extends reach"
                : t->huge_extends_reach == 0 ? "does not extend reach"
                                             : "reach unclear");
    if (t->walk[0].measured) fprintf(out, " walks/s 4k %.3g", t->walk[0].best_accesses_per_s);
    if (t->walk[1].measured) fprintf(out, " 2m %.3g", t->walk[1].best_accesses_per_s);
    fprintf(out, "%s %s pages=%s mode=%s order=%s%s\n", t->walk[0].measured ? ";" : "", cpu,
            t->pages_name, mode_word(o->mode), order_word(o->order),
            t->n_differ ? " threads_differ=yes" : "");
}

static void csv_points(FILE *out, const char *sweep, int thread, int pu, uint64_t page_bytes,
                       const struct tlb_curve *c, double ghz)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct tlb_point *p = &c->pts[i];
        fprintf(out, "%s,%d,%d,%llu,%.0f,%.4f,%.4f,%.4f,", sweep, thread, pu,
                (unsigned long long)page_bytes, p->pages, p->ns_per_access, p->min_ns,
                p->median_ns);
        if (ghz > 0) fprintf(out, "%.2f", p->ns_per_access * ghz);
        fprintf(out, ",%d,%s\n", p->samples, p->refined ? "true" : "false");
    }
}

static void csv_levels(FILE *out, const char *sweep, int thread, const struct tlb_sweep *s)
{
    const struct knee_analysis *a = &s->analysis;
    for (size_t i = 0; i < a->n_levels; i++) {
        const struct knee_level *l = &a->levels[i];
        fprintf(out, "# level,%s,%d,%s,%.0f,%.0f,%.4f,%.4f,%u\n", sweep, thread, l->name,
                l->entries, l->entries_high, l->hit_ns, l->miss_penalty_ns, s->documented[i]);
    }
    for (size_t i = 0; i < s->n_cache_knees; i++)
        fprintf(out, "# cache_knee,%s,%d,%.0f,%.0f,%.4f,%s\n", sweep, thread,
                s->cache_knees[i].last_low, s->cache_knees[i].first_high, s->cache_knees[i].step_ns,
                s->cache_knees[i].label);
}

void report_tlb_csv(FILE *out, const struct tlb_result *t)
{
    double ghz = cycle_ghz(t);
    fputs("sweep,thread,pu,page_size_bytes,pages,ns_per_access,min_ns,median_ns,"
          "cycles_per_access,samples,refined\n",
          out);
    if (!t->measured) return;
    char sweep[16];
    for (int i = 0; i < t->n_threads; i++) {
        const struct tlb_thread_result *r = &t->per_thread[i];
        snprintf(sweep, sizeof(sweep), "%s", r->small.page_bytes == TLB_SMALL_PAGE ? "4k" : "main");
        csv_points(out, sweep, r->thread, r->pu, r->small.page_bytes, &r->small.main, ghz);
        csv_points(out, "control", r->thread, r->pu, TLB_SMALL_PAGE, &r->small.control, ghz);
    }
    if (t->huge_measured)
        csv_points(out, "2m", 0, t->per_thread[0].pu, TLB_HUGE_2M, &t->huge.main, ghz);
    fputs("# level,sweep,thread,name,entries,entries_upper,hit_ns,miss_penalty_ns,"
          "documented_entries\n",
          out);
    fputs("# cache_knee,sweep,thread,lines_low,lines_high,step_ns,label\n", out);
    for (int i = 0; i < t->n_threads; i++)
        csv_levels(out, t->per_thread[i].small.page_bytes == TLB_SMALL_PAGE ? "4k" : "main",
                   t->per_thread[i].thread, &t->per_thread[i].small);
    if (t->huge_measured) csv_levels(out, "2m", 0, &t->huge);
    for (int i = 0; i < 2; i++)
        if (t->walk[i].measured)
            fprintf(out, "# walk_throughput,%llu,%d,%.0f,%.0f\n",
                    (unsigned long long)t->walk[i].page_bytes, t->walk[i].threads,
                    t->walk[i].best_accesses_per_s, t->walk[i].median_accesses_per_s);
}

/* ---------------------------------------------------------------- JSON */

static json_t *points_json(const struct tlb_curve *c, double ghz, bool control)
{
    json_t *list = json_array();
    for (size_t i = 0; i < c->n; i++) {
        const struct tlb_point *p = &c->pts[i];
        json_t *o = json_object();
        if (control) {
            json_object_set_new(o, "lines", json_integer((json_int_t)p->pages));
            json_object_set_new(o, "pages_used", json_integer((json_int_t)((p->pages + 63) / 64)));
        } else {
            json_object_set_new(o, "pages", json_integer((json_int_t)p->pages));
        }
        json_object_set_new(o, "ns_per_access", real_or_null(p->ns_per_access));
        json_object_set_new(o, "min_ns", real_or_null(p->min_ns));
        json_object_set_new(o, "median_ns", real_or_null(p->median_ns));
        if (!control)
            json_object_set_new(o, "cycles_per_access",
                                ghz > 0 ? real_or_null(p->ns_per_access * ghz) : json_null());
        json_object_set_new(o, "samples", json_integer(p->samples));
        json_object_set_new(o, "disturbed_chunks", json_integer(p->disturbed_chunks));
        json_object_set_new(o, "refined", json_boolean(p->refined));
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *knee_json(const struct knee *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(knee_kind_name(k->kind)));
    json_object_set_new(o, "last_low", real_or_null(k->last_low));
    json_object_set_new(o, "first_high", real_or_null(k->first_high));
    json_object_set_new(o, "step_ns", real_or_null(k->step_ns));
    json_object_set_new(o, "control_step_ns", real_or_null(k->control_step_ns));
    json_object_set_new(o, "translation_step_ns", real_or_null(k->tlb_step_ns));
    return o;
}

static json_t *levels_json(const struct tlb_sweep *s)
{
    json_t *list = json_array();
    const struct knee_analysis *a = &s->analysis;
    for (size_t i = 0; i < a->n_levels; i++) {
        const struct knee_level *l = &a->levels[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(l->name));
        json_object_set_new(o, "entries",
                            isfinite(l->entries) ? json_integer((json_int_t)l->entries)
                                                 : json_null());
        json_object_set_new(o, "entries_approx", json_boolean(l->approx));
        json_object_set_new(o, "entries_upper",
                            isfinite(l->entries_high) ? json_integer((json_int_t)l->entries_high)
                                                      : json_null());
        json_object_set_new(o, "rise_complete_at", real_or_null(l->complete_x));
        json_object_set_new(o, "hit_ns", real_or_null(l->hit_ns));
        json_object_set_new(o, "miss_penalty_ns", real_or_null(l->miss_penalty_ns));
        if (is_walk(l)) {
            json_object_set_new(o, "max_penalty_ns", real_or_null(l->max_penalty_ns));
            json_object_set_new(o, "at_pages", real_or_null(l->at_x));
        } else {
            json_object_set_new(o, "documented_entries",
                                s->documented[i] ? json_integer(s->documented[i]) : json_null());
            json_object_set_new(o, "agrees_with_documented",
                                s->agrees[i] < 0 ? json_null() : json_boolean(s->agrees[i]));
            json_object_set_new(o, "reach_bytes",
                                isfinite(s->reach_bytes[i])
                                    ? json_integer((json_int_t)s->reach_bytes[i])
                                    : json_null());
        }
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *cache_knees_json(const struct tlb_sweep *s)
{
    json_t *list = json_array();
    for (size_t i = 0; i < s->n_cache_knees; i++) {
        const struct tlb_cache_knee *c = &s->cache_knees[i];
        json_array_append_new(list,
                              json_pack("{s:o,s:o,s:o,s:s}", "lines_low", real_or_null(c->last_low),
                                        "lines_high", real_or_null(c->first_high), "step_ns",
                                        real_or_null(c->step_ns), "label", c->label));
    }
    return list;
}

static json_t *sweep_json(const struct tlb_sweep *s, double ghz, bool with_control)
{
    json_t *o = json_object();
    json_object_set_new(o, "page_size_bytes", json_integer((json_int_t)s->page_bytes));
    json_object_set_new(o, "points", points_json(&s->main, ghz, false));
    if (with_control) json_object_set_new(o, "control_points", points_json(&s->control, ghz, true));
    json_object_set_new(o, "levels", levels_json(s));
    json_object_set_new(o, "cache_knees", cache_knees_json(s));
    json_t *knees = json_array();
    for (size_t i = 0; i < s->analysis.n_main_knees; i++)
        json_array_append_new(knees, knee_json(&s->analysis.main_knees[i]));
    json_object_set_new(o, "knees", knees);
    json_object_set_new(o, "control_clean_until_lines",
                        real_or_null(s->analysis.control_clean_until));
    if (s->note[0]) json_object_set_new(o, "note", json_string(s->note));
    return o;
}

static json_t *backing_json(const struct backing_info *b)
{
    json_t *o = json_object();
    json_object_set_new(o, "page_size_bytes",
                        b->verified ? json_integer((json_int_t)b->page_size_bytes) : json_null());
    json_object_set_new(o, "verified", json_boolean(b->verified));
    json_object_set_new(o, "how", json_string(b->how));
    json_object_set_new(o, "thp_fraction",
                        b->verified ? real_or_null(b->thp_fraction) : json_null());
    return o;
}

json_t *report_tlb_json(const struct tlb_result *t)
{
    const struct tlb_options *o = &t->opts;
    double ghz = cycle_ghz(t);
    json_t *root = json_object();
    json_t *cfg = json_object();
    json_object_set_new(cfg, "mode", json_string(mode_word(o->mode)));
    json_object_set_new(cfg, "order", json_string(order_word(o->order)));
    json_object_set_new(cfg, "stagger", json_boolean(o->stagger));
    json_object_set_new(cfg, "repeat", json_integer(o->repeat));
    json_object_set_new(cfg, "pages", json_string(t->pages_name));
    json_object_set_new(cfg, "max_pages", json_integer((json_int_t)t->max_pages));
    json_object_set_new(cfg, "max_huge_pages", json_integer((json_int_t)t->max_huge_pages));
    json_object_set_new(cfg, "single_point_pages",
                        o->pages ? json_integer((json_int_t)o->pages) : json_null());
    json_object_set_new(cfg, "trials",
                        t->trials ? json_integer((json_int_t)t->trials) : json_null());
    json_object_set_new(cfg, "threads", json_integer(t->threads));
    json_object_set_new(cfg, "multi_thread", json_boolean(t->multi));
    json_object_set_new(cfg, "bind", json_string(t->bind));
    json_object_set_new(cfg, "cpu",
                        t->n_threads && t->per_thread[0].planned_pu >= 0
                            ? json_integer(t->per_thread[0].planned_pu)
                            : json_null());
    json_object_set_new(cfg, "chunk_target_s", real_or_null(t->chunk_target_s));
    json_object_set_new(cfg, "chunks_per_sample", json_integer(t->chunks_per_sample));
    json_object_set_new(root, "config", cfg);
    json_object_set_new(root, "measured", json_boolean(t->measured));

    const struct cpuid_tlb_info *c = &t->cpuid;
    json_t *doc = json_object();
    json_object_set_new(doc, "vendor", json_string(c->vendor));
    json_object_set_new(doc, "family", json_integer(c->family));
    json_object_set_new(doc, "model", json_integer(c->model));
    json_object_set_new(doc, "hypervisor", json_boolean(c->hypervisor));
    json_object_set_new(doc, "source", c->n ? json_string(c->source) : json_null());
    json_object_set_new(doc, "why_unknown", c->n ? json_null() : json_string(c->why));
    json_t *entries = json_array();
    for (int i = 0; i < c->n; i++)
        json_array_append_new(entries,
                              json_pack("{s:i,s:s#,s:i,s:i,s:i}", "level", c->e[i].level, "type",
                                        &c->e[i].type, 1, "page_sizes", c->e[i].page_sizes,
                                        "entries", c->e[i].entries, "ways", c->e[i].ways));
    json_object_set_new(doc, "entries", entries);
    json_object_set_new(root, "documented", doc);
    if (!t->measured) {
        json_object_set_new(root, "points", json_array());
        json_object_set_new(root, "levels", json_array());
        return root;
    }
    json_object_set_new(root, "clock",
                        json_pack("{s:o,s:o,s:s}", "tsc_ghz",
                                  real_or_null(t->tsc_ghz > 0 ? t->tsc_ghz : NAN),
                                  "core_ghz_estimate",
                                  real_or_null(t->core_ghz > 0 ? t->core_ghz : NAN), "cycles_basis",
                                  t->core_ghz > 0 ? "core clock estimated from a dependent-add loop"
                                  : t->tsc_ghz > 0 ? "TSC"
                                                   : "unknown"));
    json_object_set_new(root, "backing", backing_json(&t->backing));
    const struct tlb_sweep *s = &t->per_thread[0].small;
    /* the contract: tlb.points and tlb.levels are thread 0's main sweep */
    json_object_set_new(root, "page_size_bytes", json_integer((json_int_t)s->page_bytes));
    json_object_set_new(root, "points", points_json(&s->main, ghz, false));
    json_object_set_new(root, "levels", levels_json(s));
    if (!t->single_point) {
        json_object_set_new(root, "control_points", points_json(&s->control, ghz, true));
        json_object_set_new(root, "cache_knees", cache_knees_json(s));
        json_t *knees = json_array();
        for (size_t i = 0; i < s->analysis.n_main_knees; i++)
            json_array_append_new(knees, knee_json(&s->analysis.main_knees[i]));
        json_object_set_new(root, "knees", knees);
        json_t *huge = json_object();
        json_object_set_new(huge, "measured", json_boolean(t->huge_measured));
        if (t->huge_measured) {
            json_object_set_new(huge, "backing", backing_json(&t->huge_backing));
            json_object_set_new(huge, "sweep", sweep_json(&t->huge, ghz, false));
        } else {
            json_object_set_new(huge, "why", json_string(t->huge_why));
        }
        const struct tlb_splinter *sp = &t->splinter;
        json_object_set_new(huge, "splinter_check",
                            sp->measured
                                ? json_pack("{s:o,s:o,s:o,s:o,s:s}", "pieces", real_or_null(sp->at),
                                            "huge_ns", real_or_null(sp->huge_ns), "small_pages_ns",
                                            real_or_null(sp->small_ns), "control_ns",
                                            real_or_null(sp->control_ns), "verdict",
                                            sp->verdict == 1   ? "whole 2 MB translations"
                                            : sp->verdict == 0 ? "split into 4 KB translations"
                                                               : "unclear")
                                : json_null());
        json_object_set_new(huge, "extends_reach",
                            t->huge_extends_reach < 0 ? json_null()
                                                      : json_boolean(t->huge_extends_reach));
        json_object_set_new(huge, "note", json_string(t->reach_note));
        json_object_set_new(root, "huge", huge);
        json_t *walk = json_array();
        for (int i = 0; i < 2; i++) {
            const struct tlb_throughput *w = &t->walk[i];
            json_t *wo = json_object();
            json_object_set_new(wo, "page_size_bytes", json_integer((json_int_t)w->page_bytes));
            json_object_set_new(wo, "measured", json_boolean(w->measured));
            if (w->measured) {
                json_object_set_new(wo, "threads", json_integer(w->threads));
                json_object_set_new(wo, "region_bytes_per_thread",
                                    json_integer((json_int_t)w->region_bytes));
                json_object_set_new(wo, "best_accesses_per_s",
                                    real_or_null(w->best_accesses_per_s));
                json_object_set_new(wo, "median_accesses_per_s",
                                    real_or_null(w->median_accesses_per_s));
            } else {
                json_object_set_new(wo, "why", json_string(w->why));
            }
            json_array_append_new(walk, wo);
        }
        json_object_set_new(root, "walk_throughput", walk);
    }
    json_t *threads = json_array();
    for (int i = 0; i < t->n_threads; i++) {
        const struct tlb_thread_result *r = &t->per_thread[i];
        json_t *to = json_object();
        json_object_set_new(to, "thread", json_integer(r->thread));
        json_object_set_new(to, "planned_pu",
                            r->planned_pu >= 0 ? json_integer(r->planned_pu) : json_null());
        json_object_set_new(to, "pu", json_integer(r->pu));
        json_object_set_new(to, "core", r->core >= 0 ? json_integer(r->core) : json_null());
        json_object_set_new(to, "bound", json_boolean(r->bound));
        json_object_set_new(to, "migrated", json_boolean(r->migrated));
        json_object_set_new(to, "differs", json_boolean(r->differs));
        json_object_set_new(to, "why_differs",
                            r->differs ? json_string(r->why_differs) : json_null());
        if (t->multi) json_object_set_new(to, "sweep", sweep_json(&r->small, ghz, true));
        json_array_append_new(threads, to);
    }
    json_object_set_new(root, "threads", threads);
    json_t *w = json_array();
    for (int i = 0; i < t->n_warnings; i++)
        json_array_append_new(w, json_string(t->warnings[i]));
    json_object_set_new(root, "warnings", w);
    json_object_set_new(root, "seconds", real_or_null(t->seconds));
    return root;
}
