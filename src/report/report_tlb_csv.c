/* The TLB probe as CSV: one row per point; levels, data-cache knees and page-walk throughput
 * as "# " rows after them. */
#include "src/report/report_tlb.h"

#include "src/report/report_tlb_words.h"

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
        snprintf(sweep, sizeof(sweep), "%s", r->small.page_bytes == PAGE_4K ? "4k" : "main");
        csv_points(out, sweep, r->thread, r->pu, r->small.page_bytes, &r->small.main, ghz);
        csv_points(out, "control", r->thread, r->pu, PAGE_4K, &r->small.control, ghz);
        csv_points(out, "reuse", r->thread, r->pu, r->small.page_bytes, &r->small.reuse, ghz);
        csv_points(out, "reuse_control", r->thread, r->pu, PAGE_4K, &r->small.reuse_control, ghz);
    }
    if (t->huge_measured)
        csv_points(out, "2m", 0, t->per_thread[0].pu, PAGE_2M, &t->huge.main, ghz);
    fputs("# level,sweep,thread,name,entries,entries_upper,hit_ns,miss_penalty_ns,"
          "documented_entries\n",
          out);
    fputs("# cache_knee,sweep,thread,lines_low,lines_high,step_ns,label\n", out);
    for (int i = 0; i < t->n_threads; i++)
        csv_levels(out, t->per_thread[i].small.page_bytes == PAGE_4K ? "4k" : "main",
                   t->per_thread[i].thread, &t->per_thread[i].small);
    if (t->huge_measured) csv_levels(out, "2m", 0, &t->huge);
    for (int i = 0; i < 2; i++)
        if (t->walk[i].measured)
            fprintf(out, "# walk_throughput,%llu,%d,%.0f,%.0f\n",
                    (unsigned long long)t->walk[i].page_bytes, t->walk[i].threads,
                    t->walk[i].best_accesses_per_s, t->walk[i].median_accesses_per_s);
}
