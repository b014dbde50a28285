/* The TLB probe as CSV: one row per point; levels, data-cache knees and page-walk throughput
 * as "# " rows after them. */
#include "src/tlb/report_tlb.h"

#include <math.h>
#include <string.h>

#include "src/base/csv_field.h"
#include "src/tlb/report_tlb_words.h"
#include "src/tlb/tlb_region.h"

/* Each field below is empty where its figure was not measured, as in the STREAM CSV. */
static void csv_points(FILE *out, const char *sweep, int thread, int pu, uint64_t page_bytes,
                       const struct tlb_curve *c, double ghz)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct tlb_point *p = &c->pts[i];
        fprintf(out, "%s,%d,", sweep, thread);
        if (pu >= 0) fprintf(out, "%d", pu);
        fprintf(out, ",%llu,%.0f,", (unsigned long long)page_bytes, p->pages);
        csv_number(out, "%.4f", p->ns_per_access);
        fputc(',', out);
        csv_number(out, "%.4f", p->min_ns);
        fputc(',', out);
        csv_number(out, "%.4f", p->median_ns);
        fputc(',', out);
        csv_number(out, "%.2f", ghz > 0 ? p->ns_per_access * ghz : NAN);
        fprintf(out, ",%d,%s\n", p->samples, p->refined ? "true" : "false");
    }
}

static void csv_levels(FILE *out, const char *sweep, int thread, const struct tlb_sweep *s)
{
    const struct knee_analysis *a = &s->analysis;
    for (size_t i = 0; i < a->n_levels; i++) {
        const struct knee_level *l = &a->levels[i];
        const char *method = level_method(l);
        double low = NAN, high = NAN, entries = NAN;
        if (!is_walk(l) && knee_level_bracket(l, &low, &high))
            entries = l->entries;
        else if (method && strcmp(method, "not reached") == 0)
            low = l->at_x; /* more than that: the sweep's last point */
        /* the first columns as they always were (entries_upper: the bracket's top), then the
         * bracket, the method and the verdict */
        fprintf(out, "# level,%s,%d,", sweep, thread);
        csv_field(out, l->name);
        fputc(',', out);
        csv_number(out, "%.0f", entries);
        fputc(',', out);
        csv_number(out, "%.0f", high);
        fputc(',', out);
        csv_number(out, "%.4f", l->hit_ns);
        fputc(',', out);
        csv_number(out, "%.4f", l->miss_penalty_ns);
        fputc(',', out);
        if (!is_walk(l) && s->documented[i]) fprintf(out, "%u", s->documented[i]);
        fputc(',', out);
        csv_number(out, "%.0f", low);
        fputc(',', out);
        csv_number(out, "%.0f", high);
        fputc(',', out);
        csv_field(out, method);
        fputc(',', out);
        if (!is_walk(l) && s->agrees[i] >= 0) fputs(s->agrees[i] ? "true" : "false", out);
        fputc('\n', out);
    }
    for (size_t i = 0; i < s->n_cache_knees; i++) {
        const struct tlb_cache_knee *c = &s->cache_knees[i];
        fprintf(out, "# cache_knee,%s,%d,", sweep, thread);
        csv_number(out, "%.0f", c->last_low);
        fputc(',', out);
        csv_number(out, "%.0f", c->first_high);
        fputc(',', out);
        csv_number(out, "%.4f", c->step_ns);
        fputc(',', out);
        csv_field(out, c->label);
        fputc('\n', out);
    }
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
        snprintf(sweep, sizeof(sweep), "%s",
                 r->small.page_bytes == page_base_bytes() ? "4k" : "main");
        csv_points(out, sweep, r->thread, r->pu, r->small.page_bytes, &r->small.main, ghz);
        csv_points(out, "control", r->thread, r->pu, page_base_bytes(), &r->small.control, ghz);
        csv_points(out, "reuse", r->thread, r->pu, r->small.page_bytes, &r->small.reuse, ghz);
        csv_points(out, "reuse_control", r->thread, r->pu, page_base_bytes(),
                   &r->small.reuse_control, ghz);
    }
    if (t->huge_measured)
        csv_points(out, "2m", 0, t->per_thread[0].pu, t->huge.page_bytes, &t->huge.main, ghz);
    fputs("# level,sweep,thread,name,entries,entries_upper,hit_ns,miss_penalty_ns,"
          "documented_entries,entries_low,entries_high,entries_method,agrees_with_documented\n",
          out);
    fputs("# cache_knee,sweep,thread,lines_low,lines_high,step_ns,label\n", out);
    for (int i = 0; i < t->n_threads; i++)
        csv_levels(out, t->per_thread[i].small.page_bytes == page_base_bytes() ? "4k" : "main",
                   t->per_thread[i].thread, &t->per_thread[i].small);
    if (t->huge_measured) csv_levels(out, "2m", 0, &t->huge);
    for (int i = 0; i < 2; i++)
        if (t->walk[i].measured) {
            fprintf(out, "# walk_throughput,%llu,%d,", (unsigned long long)t->walk[i].page_bytes,
                    t->walk[i].threads);
            csv_number(out, "%.0f", t->walk[i].best_accesses_per_s);
            fputc(',', out);
            csv_number(out, "%.0f", t->walk[i].median_accesses_per_s);
            fputc('\n', out);
        }
}
