/* The probes' objects of the JSON document: "timer", "faults", "shootdown". */
#include <jansson.h>
#include <math.h>

#include "src/base/json_values.h"
#include "src/probes/probes.h"
#include "src/probes/report_probes_ran.h"

static void json_timer(json_t *root, const struct timer_probe_report *t)
{
    json_t *timer = json_object_get(root, "timer");
    if (!timer) {
        timer = json_object();
        json_object_set_new(root, "timer", timer);
    }
    json_object_set_new(timer, "clocksource", json_string(t->clocksource));
    json_object_set_new(timer, "precision", json_real(t->precision));
    json_object_set_new(timer, "op_seconds", json_real(t->op_seconds));
    json_t *clocks = json_array();
    for (int i = 0; i < t->n_clocks; i++) {
        const struct timer_clock_row *c = &t->clocks[i];
        json_t *o = json_pack("{s:s}", "clock", c->name);
        json_object_set_new(o, "skipped", string_or_null(c->skipped));
        bool ok = c->available;
        json_object_set_new(o, "resolution_s", ok ? real_or_null(c->resolution_s) : json_null());
        json_object_set_new(o, "resolution_from",
                            ok ? string_or_null(c->resolution_from) : json_null());
        json_object_set_new(o, "granularity_s", ok ? real_or_null(c->granularity_s) : json_null());
        json_object_set_new(o, "call_cost_s", ok ? real_or_null(c->call_cost_s) : json_null());
        json_object_set_new(o, "min_interval_s",
                            ok ? real_or_null(c->min_interval_s) : json_null());
        json_object_set_new(o, "reps_for_op", ok ? real_or_null(c->reps_for_op) : json_null());
        json_array_append_new(clocks, o);
    }
    json_object_set_new(timer, "clocks", clocks);
    const struct tsc_info *s = &t->tsc;
    json_t *tsc = json_object();
    json_object_set_new(tsc, "available", json_boolean(s->available));
    json_object_set_new(tsc, "hz", s->available ? real_or_null(s->hz) : json_null());
    json_object_set_new(tsc, "hz_source", string_or_null(s->hz_source));
    json_object_set_new(tsc, "hz_cpuid_15",
                        s->hz_cpuid_15 > 0 ? json_real(s->hz_cpuid_15) : json_null());
    json_object_set_new(tsc, "hz_cpuid_16",
                        s->hz_cpuid_16 > 0 ? json_real(s->hz_cpuid_16) : json_null());
    json_object_set_new(tsc, "hz_calibrated",
                        s->hz_calibrated > 0 ? json_real(s->hz_calibrated) : json_null());
    json_object_set_new(tsc, "calibration_s",
                        s->hz_calibrated > 0 ? json_real(s->calibration_s) : json_null());
    json_object_set_new(tsc, "invariant",
                        s->invariant_known ? json_boolean(s->invariant) : json_null());
    json_object_set_new(timer, "tsc", tsc);
}

static json_t *json_fault_run(const struct fault_run *f)
{
    json_t *o = json_pack("{s:s}", "backing", fault_backing_name(f->backing));
    json_object_set_new(o, "skipped", string_or_null(f->skipped));
    json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    json_object_set_new(o, "pages_touched", json_integer((json_int_t)f->pages_touched));
    if (f->skipped[0]) {
        static const char *const keys[] = {"minor_faults", "major_faults", "seconds",
                                           "ns_per_fault", "ns_per_page"};
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            json_object_set_new(o, keys[i], json_null());
        return o;
    }
    json_object_set_new(o, "minor_faults", json_integer((json_int_t)f->minor_faults));
    json_object_set_new(o, "major_faults", json_integer((json_int_t)f->major_faults));
    json_object_set_new(o, "seconds", real_or_null(f->seconds));
    json_object_set_new(o, "seconds_min", real_or_null(f->seconds_min));
    json_object_set_new(o, "repetitions", json_integer(f->reps));
    json_object_set_new(o, "ns_per_fault", real_or_null(f->ns_per_fault));
    json_object_set_new(o, "ns_per_page", real_or_null(f->ns_per_page));
    json_object_set_new(o, "us_per_major_fault", real_or_null(f->us_per_major_fault));
    if (f->backing == FAULT_FILE || f->backing == FAULT_FILE_READAHEAD) {
        json_object_set_new(o, "advice", string_or_null(f->advice));
        json_object_set_new(o, "resident_before", real_or_null(f->resident_before));
    } else {
        const struct backing_info *s = &f->smaps;
        json_t *sm = json_object();
        json_object_set_new(sm, "verified", json_boolean(s->verified));
        json_object_set_new(sm, "page_size_bytes",
                            s->verified ? json_integer((json_int_t)s->page_size_bytes)
                                        : json_null());
        json_object_set_new(sm, "rss_bytes", json_integer((json_int_t)s->rss_bytes));
        json_object_set_new(sm, "anon_huge_bytes", json_integer((json_int_t)s->anon_huge_bytes));
        json_object_set_new(sm, "hugetlb_bytes", json_integer((json_int_t)s->hugetlb_bytes));
        json_object_set_new(sm, "how", json_string(s->how));
        json_object_set_new(o, "smaps", sm);
    }
    json_object_set_new(o, "note", string_or_null(f->note));
    return o;
}

static json_t *json_faults(const struct fault_report *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
    json_object_set_new(o, "page_bytes", json_integer((json_int_t)page_base_bytes()));
    json_object_set_new(o, "thp_enabled", json_string(f->thp_enabled));
    json_object_set_new(o, "directory", json_string(f->dir));
    json_object_set_new(o, "filesystem", json_string(f->fs_type));
    json_object_set_new(o, "filesystem_memory_backed", json_boolean(f->fs_memory_backed));
    json_t *runs = json_array();
    for (int i = 0; i < f->n_runs; i++)
        json_array_append_new(runs, json_fault_run(&f->runs[i]));
    json_object_set_new(o, "runs", runs);
    return o;
}

static json_t *json_shootdown(const struct shootdown_report *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "cpu", json_integer(s->measure_pu));
    json_object_set_new(o, "cpu_bound", json_boolean(s->measure_bound));
    json_t *remote = json_array();
    for (int i = 0; i < s->n_remote_pus; i++)
        json_array_append_new(remote, json_integer(s->remote_pus[i]));
    json_object_set_new(o, "remote_cpus", remote);
    json_t *irq = json_object();
    json_object_set_new(irq, "source", json_string("/proc/interrupts TLB"));
    json_object_set_new(irq, "available", json_boolean(s->interrupts_available));
    json_object_set_new(irq, "note", string_or_null(s->interrupts_note));
    json_object_set_new(o, "interrupts", irq);
    json_object_set_new(o, "hypervisor", string_or_null(s->hypervisor));
    json_object_set_new(o, "pv_tlb_flush",
                        s->pv_tlb_flush < 0 ? json_null() : json_boolean(s->pv_tlb_flush));
    json_object_set_new(o, "flush_ceiling_pages",
                        s->flush_ceiling >= 0 ? json_integer(s->flush_ceiling) : json_null());
    json_t *runs = json_array();
    for (int i = 0; i < s->n_runs; i++) {
        const struct shootdown_run *r = &s->runs[i];
        json_t *x =
            json_pack("{s:s,s:i,s:i,s:i}", "mode", shootdown_mode_name(r->mode), "remote_threads",
                      (int)r->remote_threads, "pages", (int)r->pages, "ops", (int)r->ops);
        json_object_set_new(x, "us_per_op", real_or_null(r->us_per_op));
        json_object_set_new(x, "us_min", real_or_null(r->us_min));
        json_object_set_new(x, "us_mean", real_or_null(r->us_mean));
        json_object_set_new(x, "us_per_cycle", real_or_null(r->us_per_cycle));
        json_object_set_new(x, "added_us_per_remote", real_or_null(r->added_us_per_remote));
        json_object_set_new(x, "attributed", json_boolean(r->attributed));
        json_object_set_new(x, "ops_interrupted",
                            r->attributed ? json_integer(r->ops_interrupted) : json_null());
        json_object_set_new(x, "ops_not_interrupted",
                            r->attributed ? json_integer(r->ops_not_interrupted) : json_null());
        json_object_set_new(x, "us_interrupted", real_or_null(r->us_interrupted));
        json_object_set_new(x, "us_not_interrupted", real_or_null(r->us_not_interrupted));
        json_object_set_new(x, "added_us_per_remote_interrupted",
                            real_or_null(r->added_us_per_remote_interrupted));
        json_object_set_new(x, "shootdowns",
                            r->shootdowns >= 0 ? json_integer(r->shootdowns) : json_null());
        json_object_set_new(x, "shootdowns_remote",
                            r->shootdowns_remote >= 0 ? json_integer(r->shootdowns_remote)
                                                      : json_null());
        json_object_set_new(x, "shootdowns_per_op", real_or_null(r->shootdowns_per_op));
        json_object_set_new(x, "siblings_bound", json_boolean(r->siblings_bound));
        json_array_append_new(runs, x);
    }
    json_object_set_new(o, "runs", runs);
    json_t *summary = json_array();
    for (int i = 0; i < s->n_summary; i++) {
        const struct shootdown_summary *m = &s->summary[i];
        json_t *x = json_pack("{s:s,s:i}", "mode", shootdown_mode_name(m->mode), "remote_threads",
                              (int)m->remote_threads);
        json_object_set_new(x, "added_us_per_remote", real_or_null(m->added_us_per_remote));
        json_object_set_new(x, "added_us_per_remote_interrupted",
                            real_or_null(m->added_us_per_remote_interrupted));
        json_object_set_new(x, "shootdowns_per_op", real_or_null(m->shootdowns_per_op));
        json_array_append_new(summary, x);
    }
    json_object_set_new(o, "summary", summary);
    json_t *skipped = json_array();
    for (int i = 0; i < s->n_skipped; i++)
        json_array_append_new(skipped, json_pack("{s:i,s:s}", "remote_threads",
                                                 (int)s->skipped[i].remote_threads, "reason",
                                                 s->skipped[i].reason));
    json_object_set_new(o, "skipped", skipped);
    json_object_set_new(o, "note", string_or_null(s->note));
    return o;
}

void report_probes_json(json_t *root, const struct probe_results *r)
{
    if (!r) return;
    json_t *req = json_array();
    static const char *const names[PROBE_COUNT] = {"faults", "shootdown", "timer"};
    for (int p = 0; p < PROBE_COUNT; p++)
        if (r->requested & PROBE_BIT(p)) json_array_append_new(req, json_string(names[p]));
    json_object_set_new(root, "probes", req);
    if (ran(r, PROBE_TIMER)) json_timer(root, &r->timer);
    if (ran(r, PROBE_FAULTS)) json_object_set_new(root, "faults", json_faults(&r->faults));
    if (ran(r, PROBE_SHOOTDOWN))
        json_object_set_new(root, "shootdown", json_shootdown(&r->shootdown));
}
