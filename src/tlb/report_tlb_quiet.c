/* The TLB probe in one line (--quiet). */
#include "src/tlb/report_tlb.h"

#include <math.h>

#include "src/tlb/report_tlb_words.h"

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
        fprintf(out, "tlb: pages=%llu", (unsigned long long)o->pages);
        if (p && isfinite(p->ns_per_access))
            fprintf(out, " ns_per_access=%.3f median_ns=%.3f", p->ns_per_access, p->median_ns);
        else
            fprintf(out, " ns_per_access=unknown (not measured)");
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
        double low, high;
        fprintf(out, "%s ", i ? "," : "");
        if (is_walk(l))
            fprintf(out, "%s +%.2f ns", l->name, l->miss_penalty_ns);
        else if (l->set_conflict_ways)
            fprintf(out, "%s %u-way", l->name, l->set_conflict_ways);
        else if (!isfinite(l->entries))
            fprintf(out, "%s >%.0f entries", l->name, l->at_x);
        else if (knee_level_undecided(l) && knee_level_bracket(l, &low, &high))
            fprintf(out, "%s %.0f-%.0f entries", l->name, low, high);
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
            t->n_differ || t->differ_note[0] ? " threads_differ=yes" : "");
}
