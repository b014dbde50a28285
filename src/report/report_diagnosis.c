#include "src/report/report_diagnosis.h"

#include "src/base/json_values.h"
#include "src/base/utf8_text.h"
#include "src/measure/report_metrics.h"

void report_diagnosis_text(FILE *out, const struct report *rep)
{
    const struct efficiency *e = &rep->efficiency;
    if (e->known) {
        fprintf(out, "Efficiency: %s %.1f%% of the ceiling %.1f MB/s", e->kernel, e->pct,
                e->ceiling_mbps);
        if (e->typical_known)
            fprintf(out, "; typical for %s %.0f-%.0f%% (%s)", e->cpu_class, e->typical_min_pct,
                    e->typical_max_pct, e->typical_source);
        fputc('\n', out);
    }
    for (int i = 0; i < e->n_packages; i++) {
        const struct package_efficiency *p = &e->packages[i];
        fprintf(out,
                "Efficiency of package %d: %s %.1f%% of its ceiling %.1f MB/s (SMBIOS socket %d)\n",
                p->package, e->kernel, p->pct, p->ceiling_mbps, p->socket_id);
    }
    if (e->packages_why[0]) fprintf(out, "Efficiency per package: unknown: %s\n", e->packages_why);
    const struct diagnosis *d = &rep->diagnosis;
    if (d->n == 0 && d->asked_by[0])
        fprintf(out,
                "Likely causes (%s): none found in the DIMMs, memory errors, CPU time, swap and "
                "settings read (docs/acceptance.md)\n",
                d->asked_by);
    if (d->n == 0) return;
    if (d->asked_by[0])
        fprintf(out, "Likely causes, worst first (%s):\n", d->asked_by);
    else
        fprintf(out, "What disturbed the measurement:\n");
    for (int i = 0; i < d->n; i++) {
        const struct cause *c = &d->causes[i];
        char shown[TEXT_PRINTABLE_CAP(sizeof(c->evidence))];
        fprintf(out, "  %d. %s: %s\n     remedy: %s\n", i + 1, c->summary,
                text_printable(shown, sizeof(shown), c->evidence), c->remedy);
    }
}

void report_diagnosis_quiet(FILE *out, const struct report *rep)
{
    const struct diagnosis *d = &rep->diagnosis;
    for (int i = 0; i < d->n; i++)
        fprintf(out, "%s%s", i ? ", " : "; likely: ", d->causes[i].summary);
}

static json_t *number_if(bool known, double v)
{
    return known ? real_or_null(v) : json_null();
}

static json_t *efficiency_json(const struct efficiency *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "known", json_boolean(e->known));
    json_object_set_new(o, "why_unknown", string_or_null(e->known ? NULL : e->why_unknown));
    json_object_set_new(o, "kernel", string_or_null(e->kernel));
    json_object_set_new(o, "rate_mbps", number_if(e->rate_mbps > 0.0, e->rate_mbps));
    json_object_set_new(o, "ceiling_mbps", number_if(e->ceiling_mbps > 0.0, e->ceiling_mbps));
    json_object_set_new(o, "percent", number_if(e->known, e->pct));
    json_object_set_new(o, "cpu_class", string_or_null(e->cpu_class));
    json_object_set_new(o, "typical_min_percent", number_if(e->typical_known, e->typical_min_pct));
    json_object_set_new(o, "typical_max_percent", number_if(e->typical_known, e->typical_max_pct));
    json_object_set_new(o, "typical_source", string_or_null(e->typical_source));
    json_t *packages = json_array();
    for (int i = 0; i < e->n_packages; i++) {
        const struct package_efficiency *p = &e->packages[i];
        json_array_append_new(packages, json_pack("{s:i,s:i,s:o,s:o,s:o}", "package", p->package,
                                                  "smbios_socket", p->socket_id, "rate_mbps",
                                                  real_or_null(p->rate_mbps), "ceiling_mbps",
                                                  real_or_null(p->ceiling_mbps), "percent",
                                                  real_or_null(p->pct)));
    }
    json_object_set_new(o, "packages", packages);
    json_object_set_new(o, "packages_why_unknown", string_or_null(e->packages_why));
    return o;
}

static json_t *causes_json(const struct cause *c, int n)
{
    json_t *causes = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(causes, json_pack("{s:s,s:s,s:s,s:s}", "cause", c[i].id, "summary",
                                                c[i].summary, "evidence", c[i].evidence, "remedy",
                                                c[i].remedy));
    return causes;
}

void report_diagnosis_json(json_t *root, const struct report *rep)
{
    const struct diagnosis *d = &rep->diagnosis;
    json_object_set_new(root, "efficiency", efficiency_json(&rep->efficiency));
    json_object_set_new(root, "diagnosed_because", string_or_null(d->asked_by));
    json_object_set_new(root, "diagnosis", causes_json(d->causes, d->n));
    json_object_set_new(root, "diagnosis_if_short", causes_json(d->if_short, d->n_if_short));
}

void report_diagnosis_metrics(FILE *out, const struct report *rep)
{
    const struct diagnosis *d = &rep->diagnosis;
    if (d->n == 0) return;
    metrics_family(out, "membench_likely_cause",
                   "1 for each likely cause the report names (its JSON diagnosis[]), worst "
                   "first by the rank label.");
    for (int i = 0; i < d->n; i++) {
        char rank[16];
        snprintf(rank, sizeof(rank), "%d", i + 1);
        metrics_sample_begin(out, rep->sys.hostname, "membench_likely_cause");
        metrics_label(out, "cause", d->causes[i].id);
        metrics_label(out, "rank", rank);
        metrics_value(out, 1);
    }
}
