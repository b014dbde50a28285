/* Each TLB level of a base-page sweep sized by the model of tlb_model_fit.h, with the
 * associativity CPUID documents for it where it documents one that can be this level. */
#include <math.h>
#include <string.h>

#include "src/tlb/tlb_levels.h"

/* A documented level this far from where the sweep's misses begin is some other TLB (a
 * hypervisor's, a figure for other page sizes): its ways say nothing of this one. */
#define DOCUMENTED_FAR 2.5
/* A walk costs at least this many times every step before it (tlb_knees.c's rule for the step
 * into page walks). */
#define WALK_OVER_STEPS 3.0

static const struct cpuid_tlb_entry *documented_entry(const struct cpuid_tlb_info *info, int level,
                                                      unsigned page_bit)
{
    static const char order[] = {'L', 'D', 'U'};
    for (size_t o = 0; o < sizeof(order); o++)
        for (int i = 0; i < info->n; i++) {
            const struct cpuid_tlb_entry *e = &info->e[i];
            if (e->level == level && e->type == order[o] && (e->page_sizes & page_bit)) return e;
        }
    return NULL;
}

/* The candidate ways from CPUID: AMD's 0x80000006/19 codes name ranges (AMD PPR: 6 is "8 to 15
 * ways", 8 "16 to 31", 0xA "32 to 47"; the decoder keeps the lower bound), so their candidates
 * are the bound and 1.5x it; 0x80000005 counts ways, and Intel's leaves give them exactly. */
static size_t documented_ways(const struct cpuid_tlb_info *info, const struct cpuid_tlb_entry *e,
                              unsigned *ways)
{
    ways[0] = e->ways;
    bool amd_code = strstr(info->source, "0x80000005") && e->level >= 2 && e->ways >= 8;
    if (!amd_code) return 1;
    ways[1] = e->ways * 3 / 2;
    return 2;
}

static void size_level(struct tlb_sweep *s, size_t i, const struct cpuid_tlb_info *info,
                       unsigned page_bit)
{
    const struct knee_analysis *a = &s->analysis;
    const struct knee_level *l = &a->levels[i];
    struct tlb_model_input in = {
        .n = a->n_points, .onset_pages = l->entries_low, .rise_end_pages = l->rise_high};
    double x[KNEE_POINTS_MAX];
    for (size_t k = 0; k < s->main.n && k < KNEE_POINTS_MAX; k++)
        x[k] = s->main.pts[k].pages;
    in.pages = x;
    in.translation_ns = a->translation_ns;
    bool last = i + 1 < a->n_levels && strcmp(a->levels[i + 1].name, "page walk") == 0;
    for (size_t k = 0; last && k < i; k++)
        in.min_walk_ns = fmax(in.min_walk_ns, WALK_OVER_STEPS * a->levels[k].miss_penalty_ns);
    in.index_known = s->model_index_known[i];
    in.index = s->model_index[i];
    const struct cpuid_tlb_entry *e = documented_entry(info, (int)i + 1, page_bit);
    if (e && e->entries < DOCUMENTED_FAR * l->entries_low &&
        e->entries * DOCUMENTED_FAR > l->entries_low) {
        in.n_ways = documented_ways(info, e, in.ways);
        /* a hashed index known: the fit's ways are the hash's evenness, not CPUID's */
        s->model_ways_documented[i] = !(in.index_known && in.index == TLB_INDEX_HASHED);
    }
    tlb_model_fit_run(&in, &s->model[i]);
}

void tlb_model_size(struct tlb_sweep *s, const struct cpuid_tlb_info *info, unsigned page_bit)
{
    for (size_t i = 0; i < TLB_LEVELS_MAX; i++) {
        memset(&s->model[i], 0, sizeof(s->model[i]));
        s->model_ways_documented[i] = false;
    }
    if (!s->analysed || !s->analysis.has_control || s->main.n != s->analysis.n_points) return;
    for (size_t i = 0; i < s->analysis.n_levels && i < TLB_LEVELS_MAX; i++) {
        const struct knee_level *l = &s->analysis.levels[i];
        if (strcmp(l->name, "page walk") == 0 || l->set_conflict_ways ||
            !isfinite(l->entries_low) || !isfinite(l->entries))
            continue;
        size_level(s, i, info, page_bit);
    }
}

double tlb_model_apply_hashed(struct tlb_sweep *s, size_t i, const struct cpuid_tlb_info *info,
                              unsigned page_bit)
{
    if (i >= TLB_LEVELS_MAX || i >= s->analysis.n_levels) return NAN;
    const struct tlb_model_fit *m = &s->model[i];
    struct knee_level *l = &s->analysis.levels[i];
    if (!s->model_index_known[i] || s->model_index[i] != TLB_INDEX_HASHED || !m->ok ||
        m->index != TLB_INDEX_HASHED || !isfinite(l->entries))
        return NAN;
    double was = l->entries;
    l->entries = m->entries;
    l->size_low = m->entries_low;
    l->size_high = m->entries_high;
    l->approx = true;
    l->reuse_sized = false;
    l->model_sized = true;
    tlb_levels_document(s, info, page_bit);
    return was;
}
