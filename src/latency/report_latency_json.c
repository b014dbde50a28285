/* --latency as the report's "latency" object (docs/design.md lists every key). */
#include "src/latency/report_latency.h"

#include <math.h>

#include "src/base/json_values.h"
#include "src/measure/report_locality.h"

static json_t *backing_json(const struct backing_info *b)
{
    return json_pack("{s:b,s:s,s:o,s:o}", "verified", b->verified, "how", b->how, "thp_fraction",
                     real_or_null(b->thp_fraction), "mismatch", string_or_null(b->mismatch));
}

json_t *report_latency_json(const struct latency_result *l)
{
    const struct latency_point *p = &l->idle;
    double ghz = latency_core_ghz(p);
    bool m = p->measured;
    json_t *o = json_object();
    json_object_set_new(o, "measured", json_boolean(m));
    json_object_set_new(o, "idle_ns", real_or_null(m ? p->ns : NAN));
    json_object_set_new(o, "idle_ns_min", real_or_null(m ? p->ns_min : NAN));
    json_object_set_new(o, "idle_ns_max", real_or_null(m ? p->ns_max : NAN));
    json_object_set_new(o, "idle_cycles", real_or_null(m && ghz > 0 ? p->ns * ghz : NAN));
    json_object_set_new(o, "core_ghz", real_or_null(m && ghz > 0 ? ghz : NAN));
    json_object_set_new(o, "core_ghz_source",
                        json_string(!m        ? "not measured"
                                    : ghz > 0 ? "dependent-add loop timed on the chasing core"
                                              : "unknown: no cycle-counting loop on this CPU"));
    json_object_set_new(o, "repetitions", json_integer(p->repetitions));
    json_object_set_new(o, "hops_per_repetition", json_integer((json_int_t)p->hops));
    json_object_set_new(o, "validated", json_boolean(p->validated));
    json_object_set_new(o, "why", string_or_null(p->why));
    json_object_set_new(o, "buffer_bytes", json_integer((json_int_t)p->buffer_bytes));
    json_object_set_new(o, "size_rule", json_string(l->size_rule));
    json_object_set_new(o, "llc_bytes",
                        l->llc_bytes ? json_integer((json_int_t)l->llc_bytes) : json_null());
    json_object_set_new(o, "pages", json_string(p->pages ? p->pages : ""));
    json_object_set_new(o, "page_size_bytes",
                        m && p->backing.page_size_bytes
                            ? json_integer((json_int_t)p->backing.page_size_bytes)
                            : json_null());
    json_object_set_new(o, "backing", m ? backing_json(&p->backing) : json_null());
    json_object_set_new(o, "cpu", json_integer(p->cpu));
    json_object_set_new(o, "mem_node", json_integer(p->mem_node));
    json_object_set_new(o, "mem_bound", json_boolean(p->mem_bound));
    json_object_set_new(o, "locality", m ? locality_json(&p->locality) : json_null());
    json_object_set_new(o, "load_threads", json_integer(l->load_threads));
    json_object_set_new(o, "loaded_measured", json_boolean(l->loaded_measured));
    json_object_set_new(o, "loaded_why", string_or_null(l->loaded_why));
    json_t *loaded = json_array();
    for (size_t i = 0; i < l->n_steps; i++) {
        const struct latency_step *s = &l->steps[i];
        json_array_append_new(loaded, json_pack("{s:I,s:o,s:o,s:o}", "delay", (json_int_t)s->delay,
                                                "bandwidth_mbps", real_or_null(s->bandwidth_mbps),
                                                "ns", real_or_null(s->ns), "cycles",
                                                real_or_null(ghz > 0 ? s->ns * ghz : NAN)));
    }
    json_object_set_new(o, "loaded", loaded);
    if (l->n_pairs) {
        json_t *pairs = json_array();
        for (size_t i = 0; i < l->n_pairs; i++) {
            const struct latency_pair *q = &l->pairs[i];
            double ns = q->measured ? q->ns : NAN, fw = (double)q->firmware_ns;
            json_t *c = json_pack("{s:i,s:i,s:i,s:o}", "cpu_node", q->cpu_node, "mem_node",
                                  q->mem_node, "cpu", q->cpu, "ns", real_or_null(ns));
            json_object_set_new(c, "locality",
                                q->measured ? locality_json(&q->locality) : json_null());
            json_object_set_new(c, "firmware_ns",
                                fw > 0 ? json_integer((json_int_t)q->firmware_ns) : json_null());
            json_object_set_new(c, "ratio_to_firmware", real_or_null(fw > 0 ? ns / fw : NAN));
            json_array_append_new(pairs, c);
        }
        json_object_set_new(o, "matrix", pairs);
    }
    json_t *w = json_array();
    for (int i = 0; i < l->n_warnings; i++)
        json_array_append_new(w, json_string(l->warnings[i]));
    json_object_set_new(o, "warnings", w);
    return o;
}
