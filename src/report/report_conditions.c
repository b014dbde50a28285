/* The report's "run_conditions": what else ran, swapped or erred on the run's CPUs while it
 * measured, and the settings its figures rest on; null for what could not be read. */
#include <jansson.h>

#include "src/base/json_values.h"
#include "src/report/report.h"

static json_t *share_or_null(double share)
{
    return share >= 0.0 ? json_real(share) : json_null();
}

static json_t *count_unless_unknown(long long count)
{
    return count >= 0 ? json_integer((json_int_t)count) : json_null();
}

static json_t *edac_json(const struct run_conditions *c)
{
    const struct conditions_delta *d = &c->delta;
    bool totals = c->measured && d->have_edac;
    bool during = c->measured;
    return json_pack(
        "{s:o,s:o,s:o,s:o,s:o}", "corrected",
        totals ? json_integer((json_int_t)d->ce_total) : json_null(), "uncorrected",
        totals ? json_integer((json_int_t)d->ue_total) : json_null(), "corrected_during_run",
        during ? count_unless_unknown(d->ce_growth) : json_null(), "uncorrected_during_run",
        during ? count_unless_unknown(d->ue_growth) : json_null(), "labels",
        string_or_null(c->settings.edac_labels));
}

/* The delta's keys; all null without one (--dry-run). */
static void delta_json(json_t *o, const struct run_conditions *c)
{
    const struct conditions_delta *d = &c->delta;
    bool m = c->measured;
    json_object_set_new(o, "elapsed_s", m ? real_or_null(d->elapsed_s) : json_null());
    json_object_set_new(o, "steal_share", m ? share_or_null(d->steal_share) : json_null());
    json_object_set_new(o, "others_share", m ? share_or_null(d->others_share) : json_null());
    json_object_set_new(o, "wait_share", m ? share_or_null(d->wait_share) : json_null());
    json_object_set_new(o, "swapped_pages",
                        m ? count_unless_unknown(d->swapped_pages) : json_null());
    json_object_set_new(o, "edac", edac_json(c));
}

static void settings_json(json_t *o, const struct conditions_settings *s)
{
    bool cpufreq = s->n_cpufreq > 0;
    json_object_set_new(o, "numa_balancing",
                        s->numa_balancing >= 0 ? json_integer(s->numa_balancing) : json_null());
    json_object_set_new(o, "governor", string_or_null(s->governor));
    json_object_set_new(o, "frequency_capped_cpus",
                        cpufreq ? json_integer(s->n_capped) : json_null());
    json_object_set_new(o, "frequency_cap_mhz",
                        s->n_capped > 0 ? json_real(s->capped_mhz) : json_null());
    json_object_set_new(o, "max_mhz", s->max_mhz > 0 ? json_real(s->max_mhz) : json_null());
    json_object_set_new(o, "boost", s->boost >= 0 ? json_boolean(s->boost) : json_null());
}

json_t *report_conditions_json(const struct run_conditions *c)
{
    json_t *cpus = json_array();
    for (int i = 0; i < c->n_cpus; i++)
        json_array_append_new(cpus, json_integer(c->cpus[i]));
    json_t *o = json_pack("{s:o}", "cpus", cpus);
    delta_json(o, c);
    settings_json(o, &c->settings);
    return o;
}
