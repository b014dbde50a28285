/* The TLB probe's "tlb" object of the JSON document. */
#include "src/report/report_tlb.h"

#include <math.h>

#include "src/report/json_values.h"
#include "src/report/report_locality.h"
#include "src/report/report_tlb_words.h"
#include "src/tlb/tlb_curve.h"

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
        if (!is_walk(l)) {
            bool gradual = knee_level_gradual(l);
            double low = l->entries_low > 0 ? l->entries_low : l->entries;
            double high = gradual ? l->rise_high : l->entries_high;
            json_object_set_new(o, "entries_low",
                                isfinite(low) && !l->set_conflict_ways
                                    ? json_integer((json_int_t)low)
                                    : json_null());
            json_object_set_new(o, "entries_high",
                                isfinite(high) && !l->set_conflict_ways
                                    ? json_integer((json_int_t)high)
                                    : json_null());
            json_object_set_new(o, "entries_method", json_string(level_method(l)));
            json_object_set_new(o, "entries_midpoint",
                                gradual && isfinite(l->midpoint)
                                    ? json_integer((json_int_t)l->midpoint)
                                    : json_null());
            bool ranged = isfinite(l->size_low) && isfinite(l->size_high) && !l->set_conflict_ways;
            json_object_set_new(o, "size_range_low",
                                ranged ? json_integer((json_int_t)l->size_low) : json_null());
            json_object_set_new(o, "size_range_high",
                                ranged ? json_integer((json_int_t)l->size_high) : json_null());
            json_object_set_new(o, "entries_decided",
                                isfinite(l->entries) ? json_boolean(knee_level_decided(l))
                                                     : json_null());
            json_object_set_new(o, "set_conflict_ways",
                                l->set_conflict_ways ? json_integer(l->set_conflict_ways)
                                                     : json_null());
        }
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

static json_t *fit_json(const struct tlb_reuse_level *r, size_t level, const char *name)
{
    const struct reuse_fit *f = &r->fit;
    json_t *o = json_object();
    json_object_set_new(o, "level", json_integer((json_int_t)level + 1));
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "pages_low", json_integer((json_int_t)r->pages_low));
    json_object_set_new(o, "pages_high", json_integer((json_int_t)r->pages_high));
    json_object_set_new(o, "ok", json_boolean(f->ok));
    json_object_set_new(o, "entries",
                        f->ok ? json_integer((json_int_t)floor(f->entries + 0.5)) : json_null());
    json_object_set_new(o, "base_ns", real_or_null(f->base_ns));
    json_object_set_new(o, "walk_ns", real_or_null(f->walk_ns));
    json_object_set_new(o, "rms_ns", real_or_null(f->rms_ns));
    json_object_set_new(o, "points_used", json_integer((json_int_t)f->points));
    json_object_set_new(o, "points_dropped", json_integer((json_int_t)f->dropped));
    json_object_set_new(o, "why", f->ok ? json_null() : json_string(f->why));
    return o;
}

/* The reuse chase: its points (sweep, control, translation) and one fit per level it sized. */
static json_t *reuse_json(const struct tlb_sweep *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "run", json_boolean(s->reuse_slots > 0 && s->reuse.n > 0));
    json_object_set_new(o, "slots", s->reuse_slots ? json_integer(s->reuse_slots) : json_null());
    json_t *points = json_array();
    for (size_t i = 0; i < s->reuse.n; i++) {
        const struct tlb_point *p = &s->reuse.pts[i];
        double control = tlb_curve_at(&s->reuse_control, p->pages);
        json_array_append_new(
            points, json_pack("{s:I,s:o,s:o,s:o,s:o}", "pages", (json_int_t)p->pages,
                              "ns_per_access", real_or_null(p->ns_per_access), "median_ns",
                              real_or_null(p->median_ns), "control_ns", real_or_null(control),
                              "translation_ns", real_or_null(p->ns_per_access - control)));
    }
    json_object_set_new(o, "points", points);
    json_t *fits = json_array();
    for (size_t i = 0; i < TLB_LEVELS_MAX && i < s->analysis.n_levels; i++)
        if (s->reuse_levels[i].planned)
            json_array_append_new(fits,
                                  fit_json(&s->reuse_levels[i], i, s->analysis.levels[i].name));
    json_object_set_new(o, "fits", fits);
    return o;
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
    if (with_control) {
        json_object_set_new(o, "control_points", points_json(&s->control, ghz, true));
        json_object_set_new(o, "reuse", reuse_json(s));
    }
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
    if (t->measured) json_object_set_new(root, "locality", locality_json(&t->locality));
    const struct tlb_sweep *s = &t->per_thread[0].small;
    /* the contract: tlb.points and tlb.levels are thread 0's main sweep */
    json_object_set_new(root, "page_size_bytes", json_integer((json_int_t)s->page_bytes));
    json_object_set_new(root, "points", points_json(&s->main, ghz, false));
    json_object_set_new(root, "levels", levels_json(s));
    if (!t->single_point) {
        json_object_set_new(root, "control_points", points_json(&s->control, ghz, true));
        json_object_set_new(root, "reuse", reuse_json(s));
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
