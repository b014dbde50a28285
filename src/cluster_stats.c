#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/cluster.h"
#include "src/parse.h"
#include "src/doubles.h"

void node_summary_parse(const char *json_text, int rank, int exit_code, struct node_summary *s)
{
    memset(s, 0, sizeof(*s));
    s->rank = rank;
    s->exit_code = exit_code;
    snprintf(s->host, sizeof(s->host), "rank %d", rank);
    json_error_t err;
    json_t *root = json_text && *json_text ? json_loads(json_text, 0, &err) : NULL;
    if (!root) {
        snprintf(s->error, sizeof(s->error), "no report (exit status %d)", exit_code);
        if (s->exit_code == 0) s->exit_code = 3;
        return;
    }
    s->report_json = strdup(json_text);
    const char *host =
        json_string_value(json_object_get(json_object_get(root, "system"), "hostname"));
    if (host && *host) { /* an empty name keeps "rank N": every row needs a name */
        snprintf(s->host, sizeof(s->host), "%s", host);
        utf8_trim_partial(s->host); /* else the cluster JSON report drops the node */
    }
    json_t *run = json_array_get(json_object_get(root, "runs"), 0);
    s->validated = json_is_true(json_object_get(json_object_get(run, "validation"), "passed"));
    json_t *acc = json_object_get(root, "acceptance");
    s->acceptance_evaluated = acc != NULL;
    s->acceptance_passed = json_is_true(json_object_get(acc, "passed"));
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(run, "results"), i, r)
    {
        const char *name = json_string_value(json_object_get(r, "kernel"));
        for (int k = 0; name && k < KERNEL_COUNT; k++)
            if (!strcasecmp(name, kernel_table[k].name))
                s->rate[k] = json_number_value(json_object_get(r, "best_rate_mbps"));
    }
    if (!run) snprintf(s->error, sizeof(s->error), "the report has no run");
    json_decref(root);
}

bool node_passed(const struct node_summary *s)
{
    return s->exit_code == 0 && !s->slow;
}

void cluster_flag(struct node_summary *nodes, int n, double tolerance_pct, double k_mad,
                  struct cluster_stats *st)
{
    memset(st, 0, sizeof(*st));
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!v) return;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (nodes[i].rate[k] > 0) v[m++] = nodes[i].rate[k];
        if (m == 0) continue;
        st->kernels |= 1u << k;
        double med = median_sorting(v, m);
        st->min[k] = v[0];
        st->max[k] = v[m - 1];
        for (int i = 0; i < m; i++)
            v[i] = fabs(v[i] - med);
        double mad = median_sorting(v, m);
        st->median[k] = med;
        st->mad[k] = mad;
        for (int i = 0; i < n; i++) {
            double r = nodes[i].rate[k];
            if (r <= 0) continue;
            bool slow = r < med * (1.0 - tolerance_pct / 100.0);
            bool outlier = mad > 0 && fabs(r - med) > k_mad * 1.4826 * mad;
            if ((slow || outlier) && !nodes[i].why[0])
                snprintf(nodes[i].why, sizeof(nodes[i].why), "%s %+.1f%% vs median",
                         kernel_table[k].name, 100.0 * (r - med) / med);
            nodes[i].slow |= slow;
            nodes[i].outlier |= outlier;
        }
    }
    free(v);
}
