/* The TLB probe's "tlb" object of the JSON document. */
#include "src/tlb/report_tlb.h"

#include <math.h>
#include <string.h>

#include "src/base/json_values.h"
#include "src/measure/report_locality.h"
#include "src/tlb/report_tlb_cost.h"
#include "src/tlb/report_tlb_words.h"
#include "src/tlb/tlb_region.h"
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

static json_t *count_or_null(double v)
{
    return isfinite(v) ? json_integer((json_int_t)floor(v + 0.5)) : json_null();
}

/* Every level has every key, null where it does not apply or was not measured; entries lies in
 * entries_low..entries_high, the bracket that agrees_with_documented is judged on. */
static json_t *levels_json(const struct tlb_sweep *s)
{
    json_t *list = json_array();
    const struct knee_analysis *a = &s->analysis;
    for (size_t i = 0; i < a->n_levels; i++) {
        const struct knee_level *l = &a->levels[i];
        bool walk = is_walk(l);
        const char *method = level_method(l);
        double low = NAN, high = NAN;
        bool sized = !walk && knee_level_bracket(l, &low, &high);
        bool knee = !walk && !l->set_conflict_ways && isfinite(l->entries_low);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(l->name));
        json_object_set_new(o, "entries", sized ? count_or_null(l->entries) : json_null());
        json_object_set_new(o, "entries_method", method ? json_string(method) : json_null());
        bool unreached = method && strcmp(method, "not reached") == 0; /* more than at_x */
        json_object_set_new(o, "entries_low",
                            sized       ? count_or_null(low)
                            : unreached ? count_or_null(l->at_x)
                                        : json_null());
        json_object_set_new(o, "entries_high", sized ? count_or_null(high) : json_null());
        /* the same bracket under the names earlier reports gave it (keys are never removed) */
        json_object_set_new(o, "entries_upper", sized ? count_or_null(high) : json_null());
        json_object_set_new(o, "size_range_low", sized ? count_or_null(low) : json_null());
        json_object_set_new(o, "size_range_high", sized ? count_or_null(high) : json_null());
        json_object_set_new(o, "entries_approx", sized ? json_boolean(l->approx) : json_null());
        json_object_set_new(o, "entries_decided",
                            sized ? json_boolean(knee_level_decided(l)) : json_null());
        json_object_set_new(o, "onset_pages", knee ? count_or_null(l->entries_low) : json_null());
        json_object_set_new(o, "entries_midpoint", knee ? count_or_null(l->half_x) : json_null());
        json_object_set_new(o, "rise_end_pages", knee ? count_or_null(l->rise_high) : json_null());
        json_object_set_new(o, "rise_complete_at",
                            knee ? real_or_null(l->complete_x) : json_null());
        json_object_set_new(o, "set_conflict_ways",
                            l->set_conflict_ways ? json_integer(l->set_conflict_ways)
                                                 : json_null());
        json_object_set_new(o, "hit_ns", real_or_null(l->hit_ns));
        json_object_set_new(o, "miss_penalty_ns", real_or_null(l->miss_penalty_ns));
        json_object_set_new(o, "max_penalty_ns",
                            walk ? real_or_null(l->max_penalty_ns) : json_null());
        json_object_set_new(o, "at_pages", walk ? real_or_null(l->at_x) : json_null());
        unsigned documented = walk ? 0 : s->documented[i];
        json_object_set_new(o, "documented_entries",
                            documented ? json_integer(documented) : json_null());
        json_object_set_new(o, "agrees_with_documented",
                            walk || s->agrees[i] < 0 ? json_null() : json_boolean(s->agrees[i]));
        double off = documented ? knee_level_off(l, documented) : NAN;
        json_object_set_new(o, "documented_off", real_or_null(off));
        json_object_set_new(o, "reach_bytes",
                            !walk && isfinite(s->reach_bytes[i])
                                ? json_integer((json_int_t)s->reach_bytes[i])
                                : json_null());
        json_object_set_new(o, "model", report_tlb_model_json(s, i));
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

/* The keys of one sweep: tlb's own (thread 0's main sweep, its levels right after its points),
 * each thread's and the 2 MB sweep's. What is not shown is null: without s (nothing measured)
 * the points and levels are empty, without control the control points and reuse, without
 * analysis the knees. */
static void sweep_keys(json_t *o, const struct tlb_sweep *s, double ghz, bool levels_first,
                       bool control, bool analysis)
{
    json_object_set_new(o, "page_size_bytes",
                        s ? json_integer((json_int_t)s->page_bytes) : json_null());
    json_object_set_new(o, "points", s ? points_json(&s->main, ghz, false) : json_array());
    if (levels_first) json_object_set_new(o, "levels", s ? levels_json(s) : json_array());
    json_object_set_new(o, "control_points",
                        control ? points_json(&s->control, ghz, true) : json_null());
    json_object_set_new(o, "reuse", control ? reuse_json(s) : json_null());
    if (!levels_first) json_object_set_new(o, "levels", levels_json(s));
    json_object_set_new(o, "cache_knees", analysis ? cache_knees_json(s) : json_null());
    json_t *knees = analysis ? json_array() : json_null();
    for (size_t i = 0; analysis && i < s->analysis.n_main_knees; i++)
        json_array_append_new(knees, knee_json(&s->analysis.main_knees[i]));
    json_object_set_new(o, "knees", knees);
    json_object_set_new(o, "control_clean_until_lines",
                        analysis ? real_or_null(s->analysis.control_clean_until) : json_null());
}

static json_t *sweep_json(const struct tlb_sweep *s, double ghz, bool with_control)
{
    json_t *o = json_object();
    sweep_keys(o, s, ghz, false, with_control, true);
    json_object_set_new(o, "note", string_or_null(s->note));
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

static json_t *huge_json(const struct tlb_result *t, double ghz)
{
    json_t *huge = json_object();
    json_object_set_new(huge, "measured", json_boolean(t->huge_measured));
    json_object_set_new(huge, "why", t->huge_measured ? json_null() : json_string(t->huge_why));
    json_object_set_new(huge, "backing",
                        t->huge_measured ? backing_json(&t->huge_backing) : json_null());
    json_object_set_new(huge, "sweep",
                        t->huge_measured ? sweep_json(&t->huge, ghz, false) : json_null());
    const struct tlb_splinter *sp = &t->splinter;
    char whole[48], split[48], size[PAGE_TEXT_LEN];
    snprintf(whole, sizeof(whole), "whole %s translations", page_size_text(tlb_huge_bytes(), size));
    snprintf(split, sizeof(split), "split into %s translations",
             page_size_text(page_base_bytes(), size));
    json_object_set_new(huge, "splinter_check",
                        sp->measured
                            ? json_pack("{s:o,s:o,s:o,s:o,s:s}", "pieces", real_or_null(sp->at),
                                        "huge_ns", real_or_null(sp->huge_ns), "small_pages_ns",
                                        real_or_null(sp->small_ns), "control_ns",
                                        real_or_null(sp->control_ns), "verdict",
                                        sp->verdict == 1   ? whole
                                        : sp->verdict == 0 ? split
                                                           : "unclear")
                            : json_null());
    json_object_set_new(huge, "extends_reach",
                        t->huge_extends_reach < 0 ? json_null()
                                                  : json_boolean(t->huge_extends_reach));
    json_object_set_new(huge, "note", string_or_null(t->reach_note));
    return huge;
}

static json_t *throughput_json(const struct tlb_throughput *w)
{
    bool m = w->measured;
    json_t *o = json_object();
    json_object_set_new(o, "page_size_bytes", json_integer((json_int_t)w->page_bytes));
    json_object_set_new(o, "measured", json_boolean(m));
    json_object_set_new(o, "why", m ? json_null() : json_string(w->why));
    json_object_set_new(o, "threads", m ? json_integer(w->threads) : json_null());
    json_object_set_new(o, "region_bytes_per_thread",
                        m ? json_integer((json_int_t)w->region_bytes) : json_null());
    json_object_set_new(o, "best_accesses_per_s",
                        m ? real_or_null(w->best_accesses_per_s) : json_null());
    json_object_set_new(o, "median_accesses_per_s",
                        m ? real_or_null(w->median_accesses_per_s) : json_null());
    return o;
}

static json_t *config_json(const struct tlb_result *t)
{
    const struct tlb_options *o = &t->opts;
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
    return cfg;
}

/* What CPUID documents of the TLBs. */
static json_t *documented_json(const struct cpuid_tlb_info *c)
{
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
    return doc;
}

static json_t *clock_json(const struct tlb_result *t)
{
    if (!t->measured) return json_null();
    return json_pack("{s:o,s:o,s:s}", "tsc_ghz", real_or_null(t->tsc_ghz > 0 ? t->tsc_ghz : NAN),
                     "core_ghz_estimate", real_or_null(t->core_ghz > 0 ? t->core_ghz : NAN),
                     "cycles_basis",
                     t->core_ghz > 0  ? "core clock estimated from a dependent-add loop"
                     : t->tsc_ghz > 0 ? "TSC"
                                      : "unknown");
}

static json_t *thread_json(const struct tlb_result *t, const struct tlb_thread_result *r,
                           double ghz)
{
    json_t *to = json_object();
    json_object_set_new(to, "thread", json_integer(r->thread));
    json_object_set_new(to, "planned_pu",
                        r->planned_pu >= 0 ? json_integer(r->planned_pu) : json_null());
    json_object_set_new(to, "pu", r->pu >= 0 ? json_integer(r->pu) : json_null());
    json_object_set_new(to, "core", r->core >= 0 ? json_integer(r->core) : json_null());
    json_object_set_new(to, "bound", t->measured ? json_boolean(r->bound) : json_null());
    json_object_set_new(to, "migrated", t->measured ? json_boolean(r->migrated) : json_null());
    json_object_set_new(to, "differs", t->measured ? json_boolean(r->differs) : json_null());
    json_object_set_new(to, "why_differs", r->differs ? json_string(r->why_differs) : json_null());
    json_object_set_new(to, "differs_from",
                        r->differs && r->differs_from ? json_string(r->differs_from) : json_null());
    json_object_set_new(to, "sweep",
                        t->multi && t->measured ? sweep_json(&r->small, ghz, true) : json_null());
    return to;
}

json_t *report_tlb_json(const struct tlb_result *t)
{
    double ghz = cycle_ghz(t);
    json_t *root = json_object();
    json_object_set_new(root, "config", config_json(t));
    json_object_set_new(root, "measured", json_boolean(t->measured));
    json_object_set_new(root, "agree_tolerance", json_real(TLB_AGREE_REL));
    json_object_set_new(root, "documented", documented_json(&t->cpuid));
    json_object_set_new(root, "cost", report_tlb_cost_json(&t->cost));
    /* what a run did not measure (--dry-run, a single point, an interrupted run) is null */
    const struct tlb_sweep *s = t->measured && t->n_threads ? &t->per_thread[0].small : NULL;
    bool sweep = s && !t->single_point;
    json_object_set_new(root, "clock", clock_json(t));
    json_object_set_new(root, "backing", t->measured ? backing_json(&t->backing) : json_null());
    json_object_set_new(root, "locality", t->measured ? locality_json(&t->locality) : json_null());
    /* the contract: tlb.points and tlb.levels are thread 0's main sweep */
    sweep_keys(root, s, ghz, true, sweep, sweep);
    json_object_set_new(root, "sets", sweep ? report_tlb_sets_json(t) : json_null());
    json_object_set_new(root, "huge", sweep ? huge_json(t, ghz) : json_null());
    json_t *walk = sweep ? json_array() : json_null();
    for (int i = 0; sweep && i < 2; i++)
        json_array_append_new(walk, throughput_json(&t->walk[i]));
    json_object_set_new(root, "walk_throughput", walk);
    json_t *threads = json_array();
    for (int i = 0; i < t->n_threads; i++)
        json_array_append_new(threads, thread_json(t, &t->per_thread[i], ghz));
    json_object_set_new(root, "threads", threads);
    json_object_set_new(root, "threads_note",
                        t->differ_note[0] ? json_string(t->differ_note) : json_null());
    json_t *w = json_array();
    for (int i = 0; i < t->n_warnings; i++)
        json_array_append_new(w, json_string(t->warnings[i]));
    json_object_set_new(root, "warnings", w);
    json_object_set_new(root, "seconds", t->measured ? real_or_null(t->seconds) : json_null());
    return root;
}
