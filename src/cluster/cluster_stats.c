#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "src/cluster/cluster.h"
#include "src/base/log.h"
#include "src/base/parse.h"
#include "src/base/stats.h"

/* Why a node's own run failed, in a few words: failed validation first, then its worst failed
 * rate check (deviation from the expected rate, before the tolerance), then its first other
 * failed acceptance check. */
static void own_failure(json_t *root, json_t *run, struct node_summary *s)
{
    if (run && !s->validated) {
        snprintf(s->why, sizeof(s->why), "validation failed");
        return;
    }
    const char *mismatch =
        json_string_value(json_object_get(json_object_get(run, "backing"), "mismatch"));
    if (mismatch) {
        snprintf(s->why, sizeof(s->why), "pages: %s", mismatch);
        utf8_trim_partial(s->why);
        return;
    }
    json_t *acc = json_object_get(root, "acceptance");
    double tol = json_number_value(json_object_get(acc, "tolerance_pct"));
    double worst = 0;
    bool rate_failed = false;
    json_t *other = NULL;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(acc, "checks"), i, c)
    {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *state = json_string_value(json_object_get(c, "verdict"));
        if (!name || json_is_true(json_object_get(c, "passed"))) continue;
        if (state && strcmp(state, "INCONCLUSIVE") == 0) continue; /* not what failed */
        json_t *floor = json_object_get(c, "expected_mbps");
        json_t *got = json_object_get(c, "measured_mbps");
        if (json_number_value(floor) > 0 && json_is_number(got)) {
            double want = json_number_value(floor) / (tol < 100 ? 1.0 - tol / 100.0 : 1.0);
            double dev = 100.0 * (json_number_value(got) / want - 1.0);
            if (!rate_failed || fabs(dev) > fabs(worst)) {
                worst = dev;
                snprintf(s->why, sizeof(s->why), "%s %+.1f%% vs expected", name, dev);
            }
            rate_failed = true;
        } else if (!other) {
            other = c;
        }
    }
    if (rate_failed || !other) return; /* a rate check's reason wins over the other checks' */
    const char *measured = json_string_value(json_object_get(other, "measured"));
    const char *expected = json_string_value(json_object_get(other, "expected"));
    snprintf(s->why, sizeof(s->why), "%s: %s, expected %s",
             json_string_value(json_object_get(other, "name")), measured ? measured : "?",
             expected ? expected : "?");
    utf8_trim_partial(s->why);
}

/* Why a node's own run could not be judged (exit 5): its first inconclusive check's why. */
static void own_doubt(json_t *root, struct node_summary *s)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(root, "acceptance"), "checks"), i, c)
    {
        const char *state = json_string_value(json_object_get(c, "verdict"));
        const char *why = json_string_value(json_object_get(c, "why"));
        if (!state || strcmp(state, "INCONCLUSIVE") != 0 || !why) continue;
        snprintf(s->why, sizeof(s->why), "%s", why);
        utf8_trim_partial(s->why);
        return;
    }
    snprintf(s->why, sizeof(s->why), "its run could not be judged (too noisy)");
}

/* The summaries of the causes in the report's array key, worst first, as many as fit. */
static void own_causes(json_t *root, const char *key, char *buf, size_t len)
{
    size_t i, at = 0;
    json_t *c;
    json_array_foreach(json_object_get(root, key), i, c)
    {
        const char *summary = json_string_value(json_object_get(c, "summary"));
        if (!summary || at >= len) continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", summary);
    }
    utf8_trim_partial(buf);
}

static bool has_rate_checks(json_t *root)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(root, "acceptance"), "checks"), i, c)
    {
        if (json_is_number(json_object_get(c, "expected_mbps"))) return true;
    }
    return false;
}

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
    json_t *sys = json_object_get(root, "system");
    const char *host = json_string_value(json_object_get(sys, "hostname"));
    if (host && *host) { /* an empty name keeps "rank N": every row needs a name */
        snprintf(s->host, sizeof(s->host), "%s", host);
        utf8_trim_partial(s->host); /* else the cluster JSON report drops the node */
    }
    s->cpus_restricted = json_is_true(json_object_get(sys, "cpus_restricted"));
    s->cores = (int)json_integer_value(json_object_get(sys, "cores"));
    s->machine_cores = (int)json_integer_value(json_object_get(sys, "machine_cores"));
    const char *cpus = json_string_value(json_object_get(sys, "cpus_usable"));
    snprintf(s->cpus_usable, sizeof(s->cpus_usable), "%s", cpus ? cpus : "");
    utf8_trim_partial(s->cpus_usable);
    json_t *run = json_array_get(json_object_get(root, "runs"), 0);
    s->validated = json_is_true(json_object_get(json_object_get(run, "validation"), "passed"));
    json_int_t threads =
        json_integer_value(json_object_get(json_object_get(run, "config"), "threads"));
    s->threads = threads > 0 && threads <= UINT_MAX ? (unsigned)threads : 0;
    json_t *acc = json_object_get(root, "acceptance");
    s->acceptance_evaluated = acc != NULL;
    s->acceptance_passed = json_is_true(json_object_get(acc, "passed"));
    s->rates_checked = has_rate_checks(root);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(run, "results"), i, r)
    {
        const char *name = json_string_value(json_object_get(r, "kernel"));
        int k = name ? kernel_find(name) : -1;
        if (k >= 0) s->rate[k] = json_number_value(json_object_get(r, "best_rate_mbps"));
    }
    if (!run) snprintf(s->error, sizeof(s->error), "the report has no run");
    if (s->exit_code == 1) own_failure(root, run, s);
    if (s->exit_code == EXIT_INCONCLUSIVE) own_doubt(root, s);
    own_causes(root, "diagnosis", s->likely, sizeof(s->likely));
    own_causes(root, "diagnosis_if_short", s->likely_if_short, sizeof(s->likely_if_short));
    json_decref(root);
}

bool node_passed(const struct node_summary *s)
{
    return s->exit_code == 0 && !s->error[0] && !s->slow;
}

bool node_inconclusive(const struct node_summary *s)
{
    return s->exit_code == EXIT_INCONCLUSIVE && !s->error[0];
}

int cluster_exit_status(const struct node_summary *nodes, int n)
{
    int status = EXIT_OK;
    bool failed = false, unjudged = false;
    for (int i = 0; i < n; i++) {
        bool doubt = node_inconclusive(&nodes[i]);
        unjudged |= doubt;
        failed |= !doubt && !node_passed(&nodes[i]);
        if (nodes[i].exit_code > 1 && !doubt) status = nodes[i].exit_code;
    }
    if (status != EXIT_OK) return status;
    return failed ? EXIT_FAILED : unjudged ? EXIT_INCONCLUSIVE : EXIT_OK;
}

static bool has_rates(const struct node_summary *s)
{
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (s->rate[k] > 0) return true;
    return false;
}

/* The node's worst deviating kernel among mask (largest |deviation|), as its reason. */
static void name_worst(struct node_summary *s, unsigned mask)
{
    int worst = -1;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if ((mask & (1u << k)) &&
            (worst < 0 || fabs(s->deviation_pct[k]) > fabs(s->deviation_pct[worst])))
            worst = k;
    if (worst >= 0)
        snprintf(s->why, sizeof(s->why), "%s %+.1f%% vs median", kernel_table[worst].name,
                 s->deviation_pct[worst]);
}

void cluster_flag(struct node_summary *nodes, int n, double tolerance_pct, double k_mad,
                  struct cluster_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (int i = 0; i < n; i++) {
        struct node_summary *s = &nodes[i];
        s->healthy = s->exit_code == 0 && !s->error[0] && has_rates(s);
        s->slow = s->outlier = false;
        s->slow_kernels = s->fast_kernels = 0;
        memset(s->deviation_pct, 0, sizeof(s->deviation_pct));
        if (s->healthy) s->why[0] = '\0';
        st->healthy += s->healthy;
        st->rates_checked |= s->rates_checked;
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (s->rate[k] > 0) st->shown |= 1u << k;
    }
    st->peer = st->healthy >= CLUSTER_PEER_MIN;
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!v) return;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (nodes[i].healthy && nodes[i].rate[k] > 0) v[m++] = nodes[i].rate[k];
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
        if (!st->peer || med <= 0) continue;
        double margin = fmax(k_mad * 1.4826 * mad, tolerance_pct / 100.0 * med);
        for (int i = 0; i < n; i++) {
            struct node_summary *s = &nodes[i];
            double r = s->rate[k];
            if (!s->healthy || r <= 0) continue;
            s->deviation_pct[k] = 100.0 * (r - med) / med;
            if (r < med - margin) s->slow_kernels |= 1u << k;
            if (r > med + margin) s->fast_kernels |= 1u << k;
        }
    }
    free(v);
    for (int i = 0; i < n; i++) {
        struct node_summary *s = &nodes[i];
        s->slow = s->slow_kernels != 0;
        s->outlier = (s->slow_kernels | s->fast_kernels) != 0;
        name_worst(s, s->slow ? s->slow_kernels : s->fast_kernels);
    }
}
