/* The cluster view: one row per node, the spread, and the nodes that stand out. */
#include <jansson.h>
#include <string.h>

#include "src/cluster.h"

static const char *verdict(const struct node_summary *s)
{
    if (s->exit_code == 1) return "FAIL";
    if (s->exit_code != 0) return "ERROR";
    return s->slow ? "FAIL" : "PASS";
}

int report_cluster_text(FILE *out, const struct node_summary *nodes, int n,
                        const struct cluster_stats *st, double tolerance_pct)
{
    int failed = 0;
    for (int i = 0; i < n; i++)
        failed += !node_passed(&nodes[i]);
    fprintf(out, "Cluster: %d node%s, tolerance %.1f%%, outliers beyond %.0f MADs\n", n,
            n == 1 ? "" : "s", tolerance_pct, CLUSTER_MAD_K);
    fprintf(out, "%-24s %5s", "Node", "Rank");
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (st->kernels & (1u << k)) fprintf(out, " %10s", kernel_table[k].name);
    fprintf(out, "  Verdict\n");
    for (int i = 0; i < n; i++) {
        const struct node_summary *s = &nodes[i];
        fprintf(out, "%-24.24s %5d", s->host, s->rank);
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (st->kernels & (1u << k)) {
                if (s->rate[k] > 0)
                    fprintf(out, " %10.1f", s->rate[k]);
                else
                    fprintf(out, " %10s", "-");
            }
        fprintf(out, "  %s", verdict(s));
        if (s->error[0]) fprintf(out, " (%s)", s->error);
        if (s->exit_code == 1 && !s->error[0])
            fprintf(out, " (%s)", s->validated ? "acceptance" : "validation");
        if (s->why[0]) fprintf(out, " %s: %s", s->slow ? "slow" : "outlier", s->why);
        fprintf(out, "\n");
    }
    const char *rows[] = {"median", "MAD", "min", "max"};
    for (int row = 0; row < 4; row++) {
        fprintf(out, "%-24s %5s", rows[row], "");
        for (int k = 0; k < KERNEL_COUNT; k++) {
            if (!(st->kernels & (1u << k))) continue;
            const double *v = row == 0   ? st->median
                              : row == 1 ? st->mad
                              : row == 2 ? st->min
                                         : st->max;
            fprintf(out, " %10.1f", v[k]);
        }
        fprintf(out, "\n");
    }
    fprintf(out, "Verdict: %s (%d of %d node%s failed)\n", failed ? "FAIL" : "PASS", failed, n,
            n == 1 ? "" : "s");
    return ferror(out) ? -1 : 0;
}

int report_cluster_json(FILE *out, const struct node_summary *nodes, int n,
                        const struct cluster_stats *st, double tolerance_pct)
{
    json_t *list = json_array(), *stats = json_object();
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const struct node_summary *s = &nodes[i];
        failed += !node_passed(s);
        json_t *rates = json_object();
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (s->rate[k] > 0)
                json_object_set_new(rates, kernel_table[k].name, json_real(s->rate[k]));
        json_t *node = json_pack("{s:s,s:i,s:s,s:b,s:b,s:i,s:o}", "hostname", s->host, "rank",
                                 s->rank, "verdict", verdict(s), "slow", s->slow, "outlier",
                                 s->outlier, "exit_status", s->exit_code, "best_rate_mbps", rates);
        if (s->why[0]) json_object_set_new(node, "reason", json_string(s->why));
        if (s->error[0]) json_object_set_new(node, "error", json_string(s->error));
        json_t *report = s->report_json ? json_loads(s->report_json, 0, NULL) : NULL;
        json_object_set_new(node, "report", report ? report : json_null());
        json_array_append_new(list, node);
    }
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (st->kernels & (1u << k))
            json_object_set_new(stats, kernel_table[k].name,
                                json_pack("{s:f,s:f,s:f,s:f}", "median", st->median[k], "mad",
                                          st->mad[k], "min", st->min[k], "max", st->max[k]));
    json_t *root = json_pack("{s:i,s:{s:i,s:f,s:f,s:b,s:o},s:o}", "schema", 1, "cluster", "nodes",
                             n, "tolerance_pct", tolerance_pct, "mad_k", CLUSTER_MAD_K, "passed",
                             failed == 0, "stats", stats, "nodes", list);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    fputc('\n', out);
    json_decref(root);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

int report_cluster_csv(FILE *out, const struct node_summary *nodes, int n)
{
    fprintf(out, "hostname,rank,kernel,best_rate_mbps,verdict,slow,outlier\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (nodes[i].rate[k] > 0)
                fprintf(out, "%s,%d,%s,%.1f,%s,%s,%s\n", nodes[i].host, nodes[i].rank,
                        kernel_table[k].name, nodes[i].rate[k], verdict(&nodes[i]),
                        nodes[i].slow ? "true" : "false", nodes[i].outlier ? "true" : "false");
    return ferror(out) ? -1 : 0;
}
