#include <jansson.h>

#include "src/base/interrupt.h"
#include "src/base/json_values.h"
#include "src/report/report.h"
#include "src/report/report_diagnosis.h"
#include "src/report/report_dimms.h"
#include "src/report/report_memory.h"

#define JSON_SCHEMA 1

static json_t *system_json(const struct report *rep)
{
    const struct topology_facts *t = &rep->topo;
    const struct sys_info *s = &rep->sys;
    json_t *pools = json_array();
    for (int i = 0; i < s->n_pools; i++)
        json_array_append_new(pools, json_pack("{s:I,s:I,s:I,s:I,s:I}", "page_size_bytes",
                                               (json_int_t)s->pools[i].page_size_bytes, "total",
                                               (json_int_t)s->pools[i].total, "free",
                                               (json_int_t)s->pools[i].free, "reserved",
                                               (json_int_t)s->pools[i].reserved, "surplus",
                                               (json_int_t)s->pools[i].surplus));
    json_t *sys = json_pack("{s:s,s:s,s:i,s:i,s:i,s:i}", "hostname", s->hostname, "cpu_model",
                            t->cpu_model, "packages", t->packages, "numa_nodes", t->numa_nodes,
                            "cores", t->cores, "pus", t->pus);
    json_object_set_new(sys, "llc_bytes_total",
                        t->llc_bytes_total ? json_integer((json_int_t)t->llc_bytes_total)
                                           : json_null());
    json_object_set_new(sys, "llc_count", t->llc_count ? json_integer(t->llc_count) : json_null());
    json_object_set_new(sys, "llc_level", t->llc_level ? json_integer(t->llc_level) : json_null());
    json_object_set_new(sys, "llc_source", json_string(t->llc_source));
    json_object_set_new(sys, "memcache_count", json_integer(t->memcache.count));
    json_object_set_new(sys, "memcache_levels", json_integer(t->memcache.levels));
    json_object_set_new(sys, "memcache_bytes_total", json_integer((json_int_t)t->memcache.bytes));
    json_object_set_new(sys, "memcache_nodes",
                        t->memcache.count ? json_string(t->memcache.nodes) : json_null());
    json_object_set_new(sys, "topology_is_this_system", json_boolean(t->this_system));
    json_object_set_new(sys, "topology_source", json_string(t->source));
    json_object_set_new(sys, "topology_is_machine", json_boolean(t->is_machine));
    json_object_set_new(sys, "cpus_usable", json_string(t->cpus));
    json_object_set_new(sys, "cpus_restricted", json_boolean(t->restricted));
    json_object_set_new(sys, "cpus_restricted_by",
                        t->restricted_by[0] ? json_string(t->restricted_by) : json_null());
    json_object_set_new(sys, "cpus_restricted_how",
                        t->restricted_how[0] ? json_string(t->restricted_how) : json_null());
    json_object_set_new(sys, "machine_cores", json_integer(t->machine_cores));
    json_object_set_new(sys, "machine_pus", json_integer(t->machine_pus));
    json_object_set_new(sys, "thp_enabled", json_string(s->thp_enabled));
    json_object_set_new(sys, "kernel", json_string(s->kernel));
    json_object_set_new(sys, "mem_available_bytes",
                        s->mem_available_bytes ? json_integer((json_int_t)s->mem_available_bytes)
                                               : json_null());
    json_object_set_new(sys, "glibc_version", json_string(s->glibc_version));
    json_t *hp = json_pack("{s:o}", "pools", pools);
    json_object_set_new(hp, "default_page_size_bytes",
                        s->default_hugepage_bytes
                            ? json_integer((json_int_t)s->default_hugepage_bytes)
                            : json_null());
    json_object_set_new(hp, "hugetlb_morecore", string_or_null(s->hugetlb_morecore));
    json_object_set_new(hp, "glibc_malloc_hugetlb", string_or_null(s->glibc_malloc_hugetlb));
    json_object_set_new(sys, "cgroup_memory_limit_bytes",
                        s->cgroup_limit_bytes ? json_integer((json_int_t)s->cgroup_limit_bytes)
                                              : json_null());
    json_object_set_new(sys, "cgroup_memory_headroom_bytes",
                        s->cgroup_limit_bytes ? json_integer((json_int_t)s->cgroup_headroom_bytes)
                                              : json_null());
    json_object_set_new(sys, "hugepages", hp);
    return sys;
}

static json_t *provenance_json(const struct provenance *p)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "microcode", p->microcode, "governor",
                          p->governor, "compiler", p->compiler, "cflags", p->cflags, "omp_env",
                          p->omp_env, "start_time", p->start_iso);
    json_object_set_new(o, "cpu_mhz", p->cur_mhz > 0 ? json_real(p->cur_mhz) : json_null());
    json_object_set_new(o, "cpu_max_mhz", p->max_mhz > 0 ? json_real(p->max_mhz) : json_null());
    json_object_set_new(o, "mem_total_bytes", json_integer((json_int_t)p->mem_total_bytes));
    json_object_set_new(o, "duration_s", real_or_null(p->duration_s));
    json_object_set_new(o, "peak_mbps", p->peak_mbps > 0 ? json_real(p->peak_mbps) : json_null());
    json_object_set_new(o, "peak_source", json_string(p->peak_source));
    return o;
}

static json_t *pct_or_null(double pct)
{
    return pct >= 0.0 ? json_real(pct) : json_null();
}

/* A rate check's spreads, the reference behind it and why it could not judge. */
static void rate_check_json(json_t *o, const struct acceptance_check *c)
{
    json_object_set_new(o, "repetition_spread_pct", pct_or_null(c->rep_spread_pct));
    json_object_set_new(o, "reference_mbps", json_real(c->reference_mbps));
    json_object_set_new(o, "from_reference", json_boolean(c->from_reference));
    json_object_set_new(o, "reference_runs",
                        c->from_reference && c->ref_runs > 0 ? json_integer(c->ref_runs)
                                                             : json_null());
    json_object_set_new(o, "reference_spread_pct", pct_or_null(c->ref_spread_pct));
    json_object_set_new(o, "why", c->why[0] ? json_string(c->why) : json_null());
    json_object_set_new(o, "note", c->note[0] ? json_string(c->note) : json_null());
}

/* --reference-runs K: what the K runs of the saved reference measured. */
static json_t *saved_runs_json(const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    const struct reference_runs *k = stream->saved_runs;
    json_t *kernels = json_object();
    for (int i = 0; i < stream->runs[0].n_results; i++) {
        enum kernel_id id = stream->runs[0].results[i].kernel;
        json_t *each = json_array();
        for (int j = 0; j < k->runs; j++)
            json_array_append_new(each, json_real(k->best_mbps[id][j]));
        json_object_set_new(kernels, kernel_table[id].name,
                            json_pack("{s:f,s:f,s:o}", "median_mbps", k->median_mbps[id],
                                      "spread_pct", 100.0 * k->spread[id], "best_mbps", each));
    }
    return json_pack("{s:i,s:f,s:f,s:o}", "runs", k->runs, "interval_s", k->interval_s, "span_s",
                     k->span_s, "kernels", kernels);
}

static json_t *acceptance_json(const struct report *rep)
{
    const struct acceptance_result *a = &rep->acceptance;
    json_t *checks = json_array();
    for (int i = 0; i < a->n_checks; i++) {
        const struct acceptance_check *c = &a->checks[i];
        json_t *o = json_pack("{s:s,s:s,s:s,s:b}", "name", c->name, "expected", c->expected,
                              "measured", c->measured, "passed", c->passed);
        if (c->expected_value > 0) {
            json_object_set_new(o, "expected_mbps", json_real(c->expected_value));
            json_object_set_new(o, "measured_mbps", real_or_null(c->measured_value));
        }
        json_object_set_new(o, "verdict", json_string(check_verdict_name(check_state(c))));
        if (c->rate_check) rate_check_json(o, c);
        if (!c->rate_check && check_state(c) == CHECK_INCONCLUSIVE) /* a tier not measured */
            json_object_set_new(o, "why", json_string(c->why));
        json_array_append_new(checks, o);
    }
    return json_pack("{s:b,s:s,s:f,s:o}", "passed", a->passed, "verdict",
                     check_verdict_name(acceptance_verdict(a)), "tolerance_pct", a->tolerance_pct,
                     "checks", checks);
}

/* The keys of the measurements whose JSON goes into this slot, in the order they ran. */
static void write_parts(json_t *root, const struct report *rep, enum measure_slot slot)
{
    struct measure_report_facts f = report_facts(rep);
    for (size_t i = 0; i < rep->n_parts; i++)
        if (rep->parts[i].m->json && rep->parts[i].m->data_slot == slot)
            rep->parts[i].m->json(root, rep->parts[i].result, &f);
}

int report_write_json(FILE *out, const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_integer(JSON_SCHEMA));
    json_object_set_new(root, "membench_version", json_string(rep->version));
    json_object_set_new(root, "dry_run", json_boolean(rep->dry_run));
    json_object_set_new(root, "interrupted", json_boolean(rep->interrupted != 0));
    if (rep->interrupted)
        json_object_set_new(root, "interrupted_by", json_string(interrupt_name(rep->interrupted)));
    if (rep->kept[0]) /* stopped early: what this report holds */
        json_object_set_new(root, "kept", json_string(rep->kept));
    json_object_set_new(root, "system", system_json(rep));
    if (rep->memory) json_object_set_new(root, "memory", report_memory_json(rep->memory));
    json_object_set_new(root, "provenance", provenance_json(&rep->prov));
    if (rep->dimms) json_object_set_new(root, "memory_hardware", report_dimms_json(rep->dimms));
    json_object_set_new(root, "timer",
                        json_pack("{s:s,s:o,s:o,s:o}", "clock", rep->timer.clock_name,
                                  "resolution_s", real_or_null(rep->timer.resolution_s),
                                  "granularity_s", real_or_null(rep->timer.granularity_s),
                                  "call_cost_s", real_or_null(rep->timer.call_cost_s)));
    if (rep->conditions.read)
        json_object_set_new(root, "run_conditions", report_conditions_json(&rep->conditions));
    write_parts(root, rep, MEASURE_LEAD);
    write_parts(root, rep, MEASURE_BEFORE_TAIL);
    if (rep->acceptance.evaluated) json_object_set_new(root, "acceptance", acceptance_json(rep));
    report_diagnosis_json(root, rep);
    if (stream->saved_runs && (stream->n_runs == 1 || stream_first_tier_run(stream) == 1))
        json_object_set_new(root, "saved_reference", saved_runs_json(rep));
    write_parts(root, rep, MEASURE_AFTER_TAIL);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    fputc('\n', out);
    json_decref(root);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
