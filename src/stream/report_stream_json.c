/* STREAM's runs in the JSON report: runs[], the matrix or tiers they form, the page
 * comparisons, and what the runs measured of the node's memory (docs/design.md). */
#include <jansson.h>

#include "src/base/json_values.h"
#include "src/measure/report_locality.h"
#include "src/stream/report_stream.h"
#include "src/stream/report_stream_matrix.h"
#include "src/stream/report_stream_tiers.h"
#include "src/stream/run_profile.h"

static json_t *placement_json(const struct run_result *r)
{
    json_t *list = json_array();
    for (int i = 0; i < r->n_placement; i++) {
        const struct placement_entry *p = &r->placement[i];
        json_t *o = json_pack("{s:i,s:i,s:i,s:i,s:i}", "thread", p->thread, "pu", p->pu, "core",
                              p->core, "package", p->package, "numa", p->numa);
        json_object_set_new(o, "llc", p->llc >= 0 ? json_integer(p->llc) : json_null());
        json_object_set_new(o, "planned_pu",
                            p->planned_pu >= 0 ? json_integer(p->planned_pu) : json_null());
        if (r->measured) json_object_set_new(o, "bound", json_boolean(p->bound));
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *domains_json(const struct run_result *r)
{
    json_t *list = json_array();
    for (int d = 0; d < r->n_domains; d++) {
        const struct domain_result *dom = &r->domains[d];
        json_t *rates = json_object();
        for (int i = 0; i < r->n_results; i++) {
            int k = r->results[i].kernel;
            json_object_set_new(rates, kernel_table[k].name, real_or_null(dom->best_rate_mbps[k]));
        }
        json_array_append_new(list, json_pack("{s:s,s:i,s:i,s:I,s:o}", "kind",
                                              domain_kind_name(r->config.per_domain), "index",
                                              dom->index, "threads", dom->n_threads, "elements",
                                              (json_int_t)dom->elements, "best_rate_mbps", rates));
    }
    return list;
}

static json_t *backing_json(const struct run_result *r)
{
    const struct backing_info *b = &r->backing;
    json_t *o = json_object();
    bool seen = b->page_size_bytes != 0;
    json_object_set_new(o, "page_size_bytes",
                        seen ? json_integer((json_int_t)b->page_size_bytes) : json_null());
    json_object_set_new(o, "verified", json_boolean(b->verified));
    json_object_set_new(o, "how", json_string(b->how));
    json_object_set_new(o, "thp_fraction", seen ? real_or_null(b->thp_fraction) : json_null());
    json_object_set_new(o, "rss_bytes", json_integer((json_int_t)b->rss_bytes));
    json_object_set_new(o, "anon_huge_bytes", json_integer((json_int_t)b->anon_huge_bytes));
    json_object_set_new(o, "hugetlb_bytes", json_integer((json_int_t)b->hugetlb_bytes));
    json_object_set_new(o, "mismatch", string_or_null(b->mismatch));
    return o;
}

static json_t *results_json(const struct run_result *r, double peak_mbps)
{
    json_t *list = json_array();
    for (int i = 0; i < r->n_results; i++) {
        const struct kernel_result *k = &r->results[i];
        json_t *o = json_pack("{s:s}", "kernel", kernel_table[k->kernel].name);
        json_object_set_new(o, "best_rate_mbps", real_or_null(k->best_rate_mbps));
        json_object_set_new(o, "avg_time_s", real_or_null(k->avg_time_s));
        json_object_set_new(o, "min_time_s", real_or_null(k->min_time_s));
        json_object_set_new(o, "max_time_s", real_or_null(k->max_time_s));
        json_object_set_new(o, "bytes_counted", json_integer((json_int_t)k->bytes_counted));
        json_object_set_new(o, "bytes_estimated_traffic",
                            json_integer((json_int_t)k->bytes_estimated_traffic));
        json_object_set_new(o, "min_time_ticks", real_or_null(k->min_ticks));
        json_object_set_new(o, "finish_spread_s", real_or_null(k->finish_spread_s));
        json_object_set_new(o, "repetition_spread_pct",
                            k->rep_spread >= 0.0 ? json_real(100.0 * k->rep_spread) : json_null());
        json_object_set_new(o, "stores", json_string(kernel_stores_name(r, k)));
        if (peak_mbps > 0)
            json_object_set_new(o, "pct_of_peak",
                                real_or_null(100.0 * k->best_rate_mbps / peak_mbps));
        if (k->reduction_checked)
            json_object_set_new(o, "reduction_rel_error", real_or_null(k->reduction_rel_error));
        json_array_append_new(list, o);
    }
    return list;
}

/* "forced", or how --stores auto decided. */
static json_t *stores_chosen_by_json(const struct run_result *r)
{
    const struct store_choice *sc = &r->stores_choice;
    if (sc->method == STORES_FORCED) return json_string("forced");
    if (sc->method == STORES_REFERENCE) return json_string("reference");
    json_t *kernels = json_array();
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (sc->kernel_mask & (1u << k))
            json_array_append_new(kernels, json_string(kernel_table[k].name));
    if (sc->method == STORES_NOT_MEASURED)
        return json_pack("{s:s,s:s,s:o}", "method", "not measured", "why", sc->why, "kernels",
                         kernels);
    json_t *o = json_pack("{s:s,s:o}", "method", "measured", "kernels", kernels);
    json_object_set_new(o, "normal_mbps", real_or_null(sc->cand[ASSIGN_NORMAL].mbps));
    json_object_set_new(o, "nt_mbps", real_or_null(sc->cand[ASSIGN_NT].mbps));
    json_object_set_new(o, "rounds", json_integer(sc->rounds));
    json_object_set_new(o, "assignment", json_string(store_assignment_name(sc->assignment)));
    json_t *candidates = json_array();
    for (int i = 0; i < sc->n_candidates; i++) {
        const struct store_candidate *x = &sc->cand[i];
        json_t *kinds = json_object();
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (sc->kernel_mask & (1u << k))
                json_object_set_new(kinds, kernel_table[k].name,
                                    json_string(x->kind[k] == STORES_NT ? "nt" : "normal"));
        json_array_append_new(
            candidates,
            json_pack("{s:s,s:o,s:o,s:o,s:i}", "assignment",
                      store_assignment_name((enum store_assignment)i), "stores", kinds,
                      "total_mbps", x->passes ? real_or_null(x->mbps) : json_null(), "best_s",
                      x->passes ? real_or_null(x->best_s) : json_null(), "repetitions", x->passes));
    }
    json_object_set_new(o, "candidates", candidates);
    json_t *per = json_object();
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (sc->kernel_mask & (1u << k))
            json_object_set_new(
                per, kernel_table[k].name,
                json_pack("{s:s,s:o,s:o}", "stores", sc->chosen[k] == STORES_NT ? "nt" : "normal",
                          "normal_mbps", real_or_null(sc->kernel_mbps[STORES_NORMAL][k]), "nt_mbps",
                          real_or_null(sc->kernel_mbps[STORES_NT][k])));
    json_object_set_new(o, "per_kernel", per);
    return o;
}

static json_t *run_json(const struct run_result *r, double peak_mbps)
{
    json_t *o = json_object();
    json_t *config = run_profile_json(&r->config);
    json_object_set_new(config, "stores_chosen_by", stores_chosen_by_json(r));
    json_object_set_new(o, "config", config);
    json_object_set_new(o, "placement", placement_json(r));
    if (!r->measured) return o;
    json_object_set_new(o, "threads_migrated", json_boolean(r->migrated));
    json_object_set_new(o, "repetitions_done", json_integer((json_int_t)r->reps_done));
    json_object_set_new(o, "warm_up",
                        json_pack("{s:I,s:f,s:I,s:f}", "passes", (json_int_t)r->warm_up_passes,
                                  "seconds", r->warm_up_s, "own_stores_passes",
                                  (json_int_t)r->warm_up_own_passes, "own_stores_seconds",
                                  r->warm_up_own_s));
    json_object_set_new(o, "backing", backing_json(r));
    json_object_set_new(o, "locality", locality_json(&r->locality));
    json_object_set_new(o, "results", results_json(r, peak_mbps));
    if (r->config.per_domain != DOMAIN_NONE) json_object_set_new(o, "domains", domains_json(r));
    json_object_set_new(o, "threads_misplaced", json_integer(r->n_misplaced));
    json_object_set_new(o, "threads_unbound", json_integer(r->n_unbound));
    json_t *v = json_object();
    json_object_set_new(v, "passed", json_boolean(r->validation.passed));
    json_object_set_new(v, "max_rel_error", real_or_null(r->validation.max_rel_error));
    json_object_set_new(v, "tolerance", real_or_null(r->validation.tolerance));
    json_object_set_new(o, "validation", v);
    json_t *w = json_array();
    for (int i = 0; i < r->n_warnings; i++)
        json_array_append_new(w, json_string(r->warnings[i]));
    json_object_set_new(o, "warnings", w);
    return o;
}

static json_t *comparisons_json(const struct stream_result *stream)
{
    json_t *comparisons = json_array();
    for (size_t i = 0; i < stream->n_comparisons; i++) {
        const struct page_comparison *c = &stream->comparisons[i];
        json_t *o =
            json_pack("{s:s,s:I,s:I,s:s,s:s}", "kernel", kernel_table[c->kernel].name, "baseline",
                      (json_int_t)c->baseline, "variant", (json_int_t)c->variant, "baseline_pages",
                      stream->runs[c->baseline].config.pages, "variant_pages",
                      stream->runs[c->variant].config.pages);
        json_object_set_new(o, "relative_change", real_or_null(c->relative_change));
        json_array_append_new(comparisons, o);
    }
    return comparisons;
}

void report_stream_json(json_t *root, const struct stream_result *stream,
                        const struct measure_report_facts *f)
{
    json_t *memory = json_object_get(root, "memory"); /* the node's, when it has one */
    if (memory) report_stream_unmeasured_json(memory, stream, f);
    json_t *runs = json_array();
    for (size_t i = 0; i < stream->n_runs; i++)
        json_array_append_new(runs, run_json(&stream->runs[i], f->peak_mbps));
    json_object_set_new(root, "runs", runs);
    if (report_stream_is_matrix(stream))
        json_object_set_new(root, "matrix", report_stream_matrix_json(stream));
    if (report_stream_is_tiers(stream))
        json_object_set_new(root, "tiers", report_stream_tiers_json(stream, f));
    json_object_set_new(root, "comparisons", comparisons_json(stream));
}
