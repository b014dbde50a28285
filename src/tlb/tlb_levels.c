/* From a measured sweep to named TLB levels: knee analysis against the control, what CPUID
 * documents for each level, the data-cache knees, and threads that differ from their peers. */
#include "src/tlb/tlb_levels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/stats.h"
#include "src/base/parse.h"
#include "src/tlb/tlb_knee_levels.h"

static int analyse_sweep(struct tlb_sweep *s, const struct tlb_curve *control,
                         const struct knee_params *p)
{
    double *x = malloc(s->main.n * sizeof(double)), *y = malloc(s->main.n * sizeof(double));
    double *cx = malloc((control->n + 1) * sizeof(double)),
           *cy = malloc((control->n + 1) * sizeof(double));
    int rc = -1;
    if (x && y && cx && cy) {
        for (size_t i = 0; i < s->main.n; i++) {
            x[i] = s->main.pts[i].pages;
            y[i] = s->main.pts[i].ns_per_access;
        }
        for (size_t i = 0; i < control->n; i++) {
            cx[i] = control->pts[i].pages;
            cy[i] = control->pts[i].ns_per_access;
        }
        rc = knees_analyse(x, y, s->main.n, cx, cy, control->n, p, &s->analysis);
        s->analysed = rc == 0;
    }
    free(x);
    free(y);
    free(cx);
    free(cy);
    return rc;
}

void tlb_knee_params(const struct tlb_plan *plan, struct knee_params *p)
{
    knee_params_default(p);
    p->control_random_order = plan->opts.order == TLB_ORDER_RANDOM;
}

static void label_cache_knees(struct tlb_sweep *s, const struct tlb_result *out)
{
    const struct knee_analysis *a = &s->analysis;
    const uint64_t sizes[3] = {out->l1d_bytes, out->l2_bytes, out->l3_bytes};
    static const char *const names[3] = {"L1d", "L2", "L3"};
    s->n_cache_knees = 0;
    for (size_t k = 0; k < a->n_cache_knees && s->n_cache_knees < TLB_CACHE_KNEES_MAX; k++) {
        struct tlb_cache_knee *c = &s->cache_knees[s->n_cache_knees++];
        c->last_low = a->cache_knees[k].last_low;
        c->first_high = a->cache_knees[k].first_high;
        c->step_ns = a->cache_knees[k].step_ns;
        c->label[0] = '\0';
        double lo = c->last_low * TLB_LINE_BYTES, hi = c->first_high * TLB_LINE_BYTES;
        for (int i = 0; i < 3; i++) {
            if (!sizes[i] || !(lo <= 1.1 * (double)sizes[i] && hi >= 0.5 * (double)sizes[i]))
                continue;
            char size[32];
            format_bytes(sizes[i], size, sizeof(size));
            snprintf(c->label, sizeof(c->label), "%s %s = %llu lines", names[i], size,
                     (unsigned long long)(sizes[i] / TLB_LINE_BYTES));
            break;
        }
    }
}

/* Pages 2 MB apart share their low address bits, so a set-associative level indexed by them
 * puts every one in the same set: its knee is that set's associativity, not the level's size.
 * Such a knee lies at no more pages than any TLB has ways (16), and far below the level's size:
 * under half the entries CPUID documents for 2 MB pages, or, undocumented, under a quarter of
 * the 4 KB sweep's same level. */
#define SET_CONFLICT_MAX_WAYS 16

static void name_set_conflicts(struct tlb_sweep *s, const struct tlb_sweep *small,
                               const struct cpuid_tlb_info *info)
{
    for (size_t i = 0; i < s->analysis.n_levels; i++) {
        struct knee_level *l = &s->analysis.levels[i];
        double onset = l->entries_low;
        if (strcmp(l->name, "page walk") == 0 || !isfinite(onset) || onset > SET_CONFLICT_MAX_WAYS)
            continue;
        unsigned documented = cpuid_tlb_data_entries(info, (int)i + 1, TLB_PAGE_2M);
        double size = documented ? documented / 2.0 : NAN;
        if (!documented && small && i < small->analysis.n_levels &&
            strcmp(small->analysis.levels[i].name, "page walk") != 0)
            size = small->analysis.levels[i].entries / 4.0;
        if (!(onset < size)) continue;
        l->set_conflict_ways = (unsigned)onset;
        snprintf(l->name, sizeof(l->name), "set conflict");
        l->entries = NAN;
    }
}

void tlb_levels_document(struct tlb_sweep *s, const struct cpuid_tlb_info *info, unsigned page_bit)
{
    for (size_t i = 0; i < TLB_LEVELS_MAX; i++) {
        s->documented[i] = 0;
        s->agrees[i] = -1;
        s->reach_bytes[i] = NAN;
    }
    for (size_t i = 0; i < s->analysis.n_levels; i++) {
        const struct knee_level *l = &s->analysis.levels[i];
        if (strcmp(l->name, "page walk") == 0 || l->set_conflict_ways) continue;
        s->documented[i] = cpuid_tlb_data_entries(info, (int)i + 1, page_bit);
        if (s->documented[i] && isfinite(l->entries))
            s->agrees[i] = knee_level_agrees(l, s->documented[i]);
        if (isfinite(l->entries)) s->reach_bytes[i] = l->entries * (double)s->page_bytes;
    }
}

void tlb_finish_sweep(struct tlb_sweep *s, const struct tlb_curve *control,
                      const struct tlb_plan *plan, struct tlb_result *out, unsigned page_bit,
                      const struct knee_params *p)
{
    /* with --no-stagger the sweep's accesses share one cache set, which the control (its
     * lines spread over its pages) cannot reproduce: no control, so no level is named */
    const struct tlb_curve none = {0};
    if (analyse_sweep(s, plan->opts.stagger ? control : &none, p) != 0) return;
    if (plan->opts.mode == TLB_MODE_INC) {
        /* independent accesses overlap their misses, so a level's knee can vanish (seed 000:
         * the first one does): knees are numbered, never named or compared with CPUID */
        for (size_t i = 0; i < s->analysis.n_levels; i++) {
            struct knee_level *l = &s->analysis.levels[i];
            if (strcmp(l->name, "page walk") == 0)
                snprintf(l->name, sizeof(l->name), "past knee %d", (int)i % 10);
            else
                snprintf(l->name, sizeof(l->name), "TLB knee %d", (int)(i + 1) % 10);
        }
        tlb_levels_document(s, &(struct cpuid_tlb_info){0}, page_bit);
        for (size_t i = 0; i < TLB_LEVELS_MAX; i++)
            s->reach_bytes[i] = NAN;
        label_cache_knees(s, out);
        return;
    }
    if (page_bit == TLB_PAGE_2M)
        name_set_conflicts(s, out->n_threads > 0 ? &out->per_thread[0].small : NULL, &out->cpuid);
    else
        tlb_model_size(s, &out->cpuid, page_bit);
    tlb_levels_document(s, &out->cpuid, page_bit);
    label_cache_knees(s, out);
}
