/* The stride probe (tlb_sets.h) as the text and JSON reports give it. */
#include <math.h>
#include <stdio.h>

#include "src/tlb/report_tlb_words.h"

static const char *const index_names[] = {
    [TLB_SETS_UNDECIDED] = "undecided",
    [TLB_SETS_LOW_BITS] = "low bits",
    [TLB_SETS_NOT_LOW_BITS] = "not low bits",
};

static const char *level_name(const struct tlb_result *t)
{
    const struct tlb_sets *s = &t->sets;
    return s->level >= 0 ? t->per_thread[0].small.analysis.levels[s->level].name : NULL;
}

static void write_conclusion(FILE *out, const struct tlb_result *t)
{
    const struct tlb_sets *s = &t->sets;
    const struct tlb_sets_scan *a = &s->scan[0], *b = &s->scan[1];
    if (s->index != TLB_SETS_LOW_BITS) {
        fprintf(out, "  %s%s", s->why,
                s->index == TLB_SETS_UNDECIDED ? ": sizes from the sweep" : "");
        if (level_name(t))
            fprintf(out,
                    "; the %s sized by the model of a hashed index: %.0f (the sweep read %.0f)",
                    level_name(t), t->per_thread[0].small.analysis.levels[s->level].entries,
                    s->level_was);
        fprintf(out, "\n");
        return;
    }
    fprintf(out,
            "  set index: the low page-number bits (%.0f pages %u apart and %.0f pages %u apart "
            "fill the level: %.0f and %.0f entries): %.0f entries",
            a->capacity, a->stride, b->capacity, b->stride, a->entries, b->entries, s->entries);
    if (level_name(t))
        fprintf(out, " = %s (the sweep read %.0f)\n", level_name(t), s->level_was);
    else
        fprintf(out, "; no level of the sweep lies within a factor 2 of it: the sweep's stand\n");
}

void report_tlb_sets_text(FILE *out, const struct tlb_result *t)
{
    const struct tlb_sets *s = &t->sets;
    if (!s->run) {
        fprintf(out, "Stride probe: %s\n", s->why[0] ? s->why : "not run");
        return;
    }
    fprintf(out,
            "Stride probe (%.0f pages in one random cycle, a stride of base pages apart; %.1f s): "
            "ns per access at stride",
            s->pages, s->seconds);
    for (size_t k = 0; k < s->n_strides; k++)
        fprintf(out, "%s %u: %.1f", k ? "," : "", s->stride[k], s->ns[k]);
    fprintf(out, "\n");
    if (s->conflict_stride)
        fprintf(out, "  misses from stride %u: +%.1f ns a page\n", s->conflict_stride,
                s->full_ns - s->base_ns);
    write_conclusion(out, t);
    if (t->n_threads > 1)
        fprintf(out,
                "  measured by thread 0 (PU %d); its index told the model of %d of %d threads "
                "(those on its kind of core), each level read from the thread's own curve\n",
                t->per_thread[0].pu, s->threads, t->n_threads);
}

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *count(double v)
{
    return isfinite(v) ? json_integer((json_int_t)floor(v + 0.5)) : json_null();
}

static json_t *scan_json(const struct tlb_sets_scan *sc)
{
    if (!sc->n) return json_null();
    json_t *o = json_object(), *points = json_array();
    json_object_set_new(o, "stride", json_integer(sc->stride));
    for (size_t i = 0; i < sc->n; i++)
        json_array_append_new(points, json_pack("{s:I,s:o}", "pages", (json_int_t)sc->pages[i],
                                                "ns_per_access", number(sc->ns[i])));
    json_object_set_new(o, "points", points);
    json_object_set_new(o, "capacity_pages", number(sc->capacity));
    json_object_set_new(o, "entries", count(sc->entries));
    return o;
}

json_t *report_tlb_sets_json(const struct tlb_result *t)
{
    const struct tlb_sets *s = &t->sets;
    json_t *o = json_object();
    json_object_set_new(o, "run", json_boolean(s->run));
    json_object_set_new(o, "why", s->why[0] ? json_string(s->why) : json_null());
    json_object_set_new(o, "pages", s->run ? count(s->pages) : json_null());
    json_t *strides = json_array();
    for (size_t k = 0; s->run && k < s->n_strides; k++)
        json_array_append_new(strides, json_pack("{s:i,s:o}", "stride", s->stride[k],
                                                 "ns_per_access", number(s->ns[k])));
    json_object_set_new(o, "strides", strides);
    bool found = s->run && s->conflict_stride;
    json_object_set_new(o, "base_ns", found ? number(s->base_ns) : json_null());
    json_object_set_new(o, "miss_ns", found ? number(s->full_ns - s->base_ns) : json_null());
    json_object_set_new(o, "conflict_stride",
                        found ? json_integer(s->conflict_stride) : json_null());
    json_t *scans = json_array();
    for (size_t i = 0; found && i < 2; i++)
        if (s->scan[i].n) json_array_append_new(scans, scan_json(&s->scan[i]));
    json_object_set_new(o, "scans", scans);
    json_object_set_new(o, "index", s->run ? json_string(index_names[s->index]) : json_null());
    json_object_set_new(o, "entries", count(s->entries));
    json_object_set_new(o, "level", level_name(t) ? json_string(level_name(t)) : json_null());
    json_object_set_new(o, "level_was", level_name(t) ? count(s->level_was) : json_null());
    json_object_set_new(o, "threads", s->run ? json_integer(s->threads) : json_null());
    json_object_set_new(o, "seconds", s->run ? number(s->seconds) : json_null());
    return o;
}
