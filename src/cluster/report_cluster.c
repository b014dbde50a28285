/* The cluster view: one row per node, the spread, and the nodes that stand out. */
#include <jansson.h>
#include <string.h>

#include "src/cluster/cluster.h"
#include "src/base/csv_field.h"
#include "src/base/utf8_text.h"

/* OK: validated, exit 0, but nothing judged its rates (too few peers, no expectations). */
static const char *verdict(const struct node_summary *s, const struct cluster_stats *st)
{
    if (s->exit_code == 1) return "FAIL";
    if (node_inconclusive(s)) return "INCONCLUSIVE";
    if (s->exit_code != 0 || s->error[0]) return "ERROR";
    if (s->slow) return "FAIL";
    return st->peer || s->rates_checked ? "PASS" : "OK";
}

/* Why the node failed or stands out (its error, if any, is said apart). */
static void reason(const struct node_summary *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->exit_code == 1 && (s->why[0] || !s->error[0]))
        snprintf(buf, len, "%s", s->why[0] ? s->why : "its run failed");
    else if (node_inconclusive(s))
        snprintf(buf, len, "%s", s->why);
    else if (s->exit_code != 0 || s->error[0])
        return;
    else if (s->slow)
        snprintf(buf, len, "slow: %s", s->why);
    else if (s->outlier)
        snprintf(buf, len, "fast outlier: %s (not failed)", s->why);
    size_t at = strlen(buf);
    bool short_of = s->exit_code == 1 || node_inconclusive(s) || s->slow;
    /* a node that passed its own checks but is slower than its peers: what its run would have
     * named had it fallen short there */
    bool peers_only = s->slow && s->exit_code == 0 && s->likely_if_short[0];
    const char *likely = peers_only ? s->likely_if_short : s->likely;
    if (at && short_of && likely[0]) snprintf(buf + at, len - at, "; likely: %s", likely);
}

/* "measured 1 of 2 cores" when the node's run could not use all of it; "" otherwise. */
static void restriction(const struct node_summary *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!s->cpus_restricted) return;
    if (s->machine_cores > 0)
        snprintf(buf, len, "measured %d of %d cores", s->cores, s->machine_cores);
    else
        snprintf(buf, len, "measured %d cores, not all of the node's", s->cores);
}

/* The thread count most nodes ran (of the nodes that said; the first one's on a tie). */
static unsigned usual_threads(const struct node_summary *nodes, int n)
{
    unsigned usual = 0;
    int best = 0;
    for (int i = 0; i < n; i++) {
        int count = 0;
        for (int j = 0; j < n && nodes[i].threads; j++)
            count += nodes[j].threads == nodes[i].threads;
        if (count > best) {
            best = count;
            usual = nodes[i].threads;
        }
    }
    return usual;
}

/* "ran 1 thread, most nodes 2" for a node whose thread count is not the usual one; "" else.
 * The options and the environment are equal on every node (cluster_env.h): only the cores
 * it may use (one thread per core without -t and OMP_NUM_THREADS) make it differ. */
static void other_threads(const struct node_summary *s, unsigned usual, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->threads && usual && s->threads != usual)
        snprintf(buf, len, "ran %u thread%s, most nodes %u", s->threads, s->threads == 1 ? "" : "s",
                 usual);
}

static int failed_nodes(const struct node_summary *nodes, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++)
        failed += !node_passed(&nodes[i]) && !node_inconclusive(&nodes[i]);
    return failed;
}

static int inconclusive_nodes(const struct node_summary *nodes, int n)
{
    int unjudged = 0;
    for (int i = 0; i < n; i++)
        unjudged += node_inconclusive(&nodes[i]);
    return unjudged;
}

static void how_judged(const struct cluster_stats *st, double tolerance_pct, char *buf, size_t len)
{
    if (st->peer)
        snprintf(buf, len,
                 "Rates judged against the median of %d healthy nodes%s: a kernel beyond "
                 "max(%.0f x 1.4826 x MAD, %.1f%% of the median) below it FAILs, above it is "
                 "an outlier",
                 st->healthy, st->rates_checked ? " and --reference/--expect" : "", CLUSTER_MAD_K,
                 tolerance_pct);
    else if (st->rates_checked)
        snprintf(buf, len,
                 "Rates judged against --reference/--expect only: peer comparison needs %d "
                 "healthy nodes (%d here) and cannot tell which node is wrong",
                 CLUSTER_PEER_MIN, st->healthy);
    else
        snprintf(buf, len,
                 "Rates not judged: peer comparison needs %d healthy nodes (%d here) and cannot "
                 "tell which node is wrong, and no --reference/--expect was given",
                 CLUSTER_PEER_MIN, st->healthy);
}

static void summary(const struct node_summary *nodes, int n, const struct cluster_stats *st,
                    char *buf, size_t len)
{
    int failed = failed_nodes(nodes, n), unjudged = inconclusive_nodes(nodes, n);
    bool judged = st->peer || st->rates_checked;
    if (unjudged && !failed)
        snprintf(buf, len, "INCONCLUSIVE (%d of %d node%s too noisy to judge, none failed)",
                 unjudged, n, n == 1 ? "" : "s");
    else if (unjudged)
        snprintf(buf, len, "FAIL (%d of %d node%s failed, %d inconclusive)", failed, n,
                 n == 1 ? "" : "s", unjudged);
    else if (judged || st->healthy == 0)
        snprintf(buf, len, "%s (%d of %d node%s failed)", failed ? "FAIL" : "PASS", failed, n,
                 n == 1 ? "" : "s");
    else if (failed)
        snprintf(buf, len, "FAIL (%d of %d node%s failed); the others' rates not judged", failed, n,
                 n == 1 ? "" : "s");
    else
        snprintf(buf, len,
                 "PASS: every node validated; rates not judged (peer comparison needs %d "
                 "nodes, no --reference/--expect)",
                 CLUSTER_PEER_MIN);
}

static void pad(FILE *out, const char *text, size_t width)
{
    fputs(text, out);
    for (size_t c = utf8_chars(text); c < width; c++)
        fputc(' ', out);
}

/* A node's name as the table shows it: a newline, tab or terminal escape in it escaped. */
#define HOST_SHOWN TEXT_PRINTABLE_CAP(sizeof(((struct node_summary *)0)->host))
static const char *host_shown(const struct node_summary *s, char buf[HOST_SHOWN])
{
    return text_printable(buf, HOST_SHOWN, s->host);
}

int report_cluster_text(FILE *out, const struct node_summary *nodes, int n,
                        const struct cluster_stats *st, double tolerance_pct)
{
    char line[400], why[400], cores[80], host[HOST_SHOWN];
    char shown[TEXT_PRINTABLE_CAP(sizeof(why))], cpus[TEXT_PRINTABLE_CAP(sizeof(cores))];
    size_t width = 6; /* "median", or the longest name: a name is never cut */
    for (int i = 0; i < n; i++)
        if (utf8_chars(host_shown(&nodes[i], host)) > width) width = utf8_chars(host);
    fprintf(out, "Cluster: %d node%s, tolerance %.1f%%, outliers beyond %.0f MADs\n", n,
            n == 1 ? "" : "s", tolerance_pct, CLUSTER_MAD_K);
    how_judged(st, tolerance_pct, line, sizeof(line));
    fprintf(out, "%s\n", line);
    for (int i = 0; i < n; i++) {
        restriction(&nodes[i], cores, sizeof(cores));
        if (cores[0])
            fprintf(out,
                    "Note: node %s (rank %d) %s (CPUs %s): the launcher or a cgroup bound it; "
                    "use mpirun --bind-to none or srun --cpu-bind=none\n",
                    host_shown(&nodes[i], host), nodes[i].rank, cores,
                    text_printable(cpus, sizeof(cpus), nodes[i].cpus_usable));
    }
    unsigned usual = usual_threads(nodes, n);
    for (int i = 0; i < n; i++) {
        other_threads(&nodes[i], usual, cores, sizeof(cores));
        if (cores[0])
            fprintf(out,
                    "Note: node %s (rank %d) %s: without -t and OMP_NUM_THREADS each node runs "
                    "one thread per core it may use; its rates are judged as they are\n",
                    host_shown(&nodes[i], host), nodes[i].rank, cores);
    }
    pad(out, "Node", width);
    fprintf(out, " %5s", "Rank");
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (st->shown & (1u << k)) fprintf(out, " %10s", kernel_table[k].name);
    fprintf(out, "  Verdict\n");
    for (int i = 0; i < n; i++) {
        const struct node_summary *s = &nodes[i];
        pad(out, host_shown(s, host), width);
        fprintf(out, " %5d", s->rank);
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (st->shown & (1u << k)) {
                if (s->rate[k] > 0)
                    fprintf(out, " %10.1f", s->rate[k]);
                else
                    fprintf(out, " %10s", "-");
            }
        fprintf(out, "  %s", verdict(s, st));
        reason(s, why, sizeof(why));
        restriction(s, cores, sizeof(cores));
        if (why[0]) fprintf(out, " %s", text_printable(shown, sizeof(shown), why));
        if (s->error[0]) fprintf(out, " (%s)", text_printable(shown, sizeof(shown), s->error));
        if (cores[0]) fprintf(out, "%s%s", why[0] || s->error[0] ? "; " : " ", cores);
        fprintf(out, "\n");
    }
    const char *rows[] = {"median", "MAD", "min", "max"};
    for (int row = 0; row < 4; row++) {
        pad(out, rows[row], width);
        fprintf(out, " %5s", "");
        for (int k = 0; k < KERNEL_COUNT; k++) {
            if (!(st->shown & (1u << k))) continue;
            const double *v = row == 0   ? st->median
                              : row == 1 ? st->mad
                              : row == 2 ? st->min
                                         : st->max;
            if (st->kernels & (1u << k))
                fprintf(out, " %10.1f", v[k]);
            else
                fprintf(out, " %10s", "-"); /* no healthy node measured it */
        }
        fprintf(out, "\n");
    }
    summary(nodes, n, st, line, sizeof(line));
    fprintf(out, "Verdict: %s\n", line);
    return ferror(out) ? -1 : 0;
}

static json_t *kernel_names(unsigned mask)
{
    json_t *list = json_array();
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (mask & (1u << k)) json_array_append_new(list, json_string(kernel_table[k].name));
    return list;
}

int report_cluster_json(FILE *out, const struct node_summary *nodes, int n,
                        const struct cluster_stats *st, double tolerance_pct)
{
    json_t *list = json_array(), *stats = json_object();
    char text[400];
    for (int i = 0; i < n; i++) {
        const struct node_summary *s = &nodes[i];
        json_t *rates = json_object();
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (s->rate[k] > 0)
                json_object_set_new(rates, kernel_table[k].name, json_real(s->rate[k]));
        json_t *node = json_pack("{s:s,s:i,s:s,s:b,s:b,s:i,s:o}", "hostname", s->host, "rank",
                                 s->rank, "verdict", verdict(s, st), "slow", s->slow, "outlier",
                                 s->outlier, "exit_status", s->exit_code, "best_rate_mbps", rates);
        reason(s, text, sizeof(text));
        if (text[0]) json_object_set_new(node, "reason", json_string(text));
        if (s->error[0]) json_object_set_new(node, "error", json_string(s->error));
        json_object_set_new(node, "slow_kernels", kernel_names(s->slow_kernels));
        json_object_set_new(node, "fast_kernels", kernel_names(s->fast_kernels));
        json_object_set_new(node, "cpus_restricted", json_boolean(s->cpus_restricted));
        restriction(s, text, sizeof(text));
        if (text[0]) json_object_set_new(node, "note", json_string(text));
        json_object_set_new(node, "threads", s->threads ? json_integer(s->threads) : json_null());
        json_t *report = s->report_json ? json_loads(s->report_json, 0, NULL) : NULL;
        json_object_set_new(node, "report", report ? report : json_null());
        json_array_append_new(list, node);
    }
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (st->kernels & (1u << k))
            json_object_set_new(stats, kernel_table[k].name,
                                json_pack("{s:f,s:f,s:f,s:f}", "median", st->median[k], "mad",
                                          st->mad[k], "min", st->min[k], "max", st->max[k]));
    json_t *cluster = json_pack(
        "{s:i,s:f,s:f,s:b,s:o}", "nodes", n, "tolerance_pct", tolerance_pct, "mad_k", CLUSTER_MAD_K,
        "passed", failed_nodes(nodes, n) == 0 && inconclusive_nodes(nodes, n) == 0, "stats", stats);
    int failed = failed_nodes(nodes, n), unjudged = inconclusive_nodes(nodes, n);
    json_object_set_new(cluster, "verdict",
                        json_string(failed     ? "FAIL"
                                    : unjudged ? "INCONCLUSIVE"
                                               : "PASS"));
    json_object_set_new(cluster, "inconclusive_nodes", json_integer(unjudged));
    json_object_set_new(cluster, "healthy_nodes", json_integer(st->healthy));
    json_object_set_new(cluster, "peer_min", json_integer(CLUSTER_PEER_MIN));
    json_object_set_new(cluster, "peer_compared", json_boolean(st->peer));
    json_object_set_new(cluster, "rates_checked", json_boolean(st->rates_checked));
    how_judged(st, tolerance_pct, text, sizeof(text));
    json_object_set_new(cluster, "judged", json_string(text));
    summary(nodes, n, st, text, sizeof(text));
    json_object_set_new(cluster, "summary", json_string(text));
    json_t *root = json_pack("{s:i,s:o,s:o}", "schema", 1, "cluster", cluster, "nodes", list);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    fputc('\n', out);
    json_decref(root);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

/* One row per node and kernel (one row with no kernel for a node without rates); slow and
 * outlier are that kernel's flags, empty where the peers did not judge it. */
int report_cluster_csv(FILE *out, const struct node_summary *nodes, int n,
                       const struct cluster_stats *st)
{
    char why[400], cores[80];
    fprintf(out, "hostname,rank,kernel,best_rate_mbps,verdict,slow,outlier,reason,error,note\n");
    for (int i = 0; i < n; i++) {
        const struct node_summary *s = &nodes[i];
        reason(s, why, sizeof(why));
        restriction(s, cores, sizeof(cores));
        bool judged = st->peer && s->healthy;
        int rows = 0;
        for (int k = 0; k <= KERNEL_COUNT; k++) {
            if (k < KERNEL_COUNT && !(s->rate[k] > 0)) continue;
            if (k == KERNEL_COUNT && rows > 0) break;
            rows++;
            csv_field(out, s->host);
            fprintf(out, ",%d,", s->rank);
            if (k < KERNEL_COUNT) {
                unsigned bit = 1u << k;
                fprintf(out, "%s,%.1f,%s,", kernel_table[k].name, s->rate[k], verdict(s, st));
                if (judged)
                    fprintf(out, "%s,%s,", s->slow_kernels & bit ? "true" : "false",
                            (s->slow_kernels | s->fast_kernels) & bit ? "true" : "false");
                else
                    fprintf(out, ",,");
            } else {
                fprintf(out, ",,%s,,,", verdict(s, st));
            }
            csv_field(out, why);
            fputc(',', out);
            csv_field(out, s->error);
            fputc(',', out);
            csv_field(out, cores);
            fputc('\n', out);
        }
    }
    return ferror(out) ? -1 : 0;
}
