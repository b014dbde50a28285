/* Cluster statistics: medians, MADs, and which nodes are slow or outliers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "src/cluster/cluster.h"

static void make_nodes(struct node_summary *nodes, int n, double triad)
{
    memset(nodes, 0, (size_t)n * sizeof(*nodes));
    for (int i = 0; i < n; i++) {
        snprintf(nodes[i].host, sizeof(nodes[i].host), "node%03d", i);
        nodes[i].rank = i;
        nodes[i].rate[KERNEL_TRIAD] = triad + (i % 3) * 10.0; /* a little honest noise */
        nodes[i].rate[KERNEL_COPY] = triad * 0.9 + (i % 2) * 5.0;
    }
}

static void equals_flag_nobody(void **state)
{
    (void)state;
    struct node_summary nodes[16];
    struct cluster_stats st;
    make_nodes(nodes, 16, 60000.0);
    cluster_flag(nodes, 16, 5.0, CLUSTER_MAD_K, &st);
    for (int i = 0; i < 16; i++) {
        assert_false(nodes[i].slow);
        assert_false(nodes[i].outlier);
        assert_true(node_passed(&nodes[i]));
    }
    assert_true(st.median[KERNEL_TRIAD] == 60010.0);
    assert_true(st.min[KERNEL_TRIAD] == 60000.0);
    assert_true(st.max[KERNEL_TRIAD] == 60020.0);
    assert_int_equal(st.kernels, (1u << KERNEL_COPY) | (1u << KERNEL_TRIAD));
}

static void one_slow_node_among_many(void **state)
{
    (void)state;
    struct node_summary nodes[64];
    struct cluster_stats st;
    make_nodes(nodes, 64, 60000.0);
    nodes[17].rate[KERNEL_TRIAD] = 48000.0; /* a missing DIMM */
    cluster_flag(nodes, 64, 5.0, CLUSTER_MAD_K, &st);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(nodes[i].slow, i == 17);
        assert_int_equal(nodes[i].outlier, i == 17);
    }
    assert_false(node_passed(&nodes[17]));
    assert_non_null(strstr(nodes[17].why, "Triad -20.0% vs median"));
}

static void fast_outlier_is_flagged_but_passes(void **state)
{
    (void)state;
    struct node_summary nodes[9];
    struct cluster_stats st;
    make_nodes(nodes, 9, 60000.0);
    nodes[4].rate[KERNEL_TRIAD] = 66000.0; /* suspicious: far beyond its peers */
    cluster_flag(nodes, 9, 5.0, CLUSTER_MAD_K, &st);
    assert_true(nodes[4].outlier);
    assert_false(nodes[4].slow);
    assert_true(node_passed(&nodes[4]));
}

static void within_tolerance_is_not_slow(void **state)
{
    (void)state;
    struct node_summary nodes[2];
    struct cluster_stats st;
    make_nodes(nodes, 2, 60000.0);
    nodes[1].rate[KERNEL_TRIAD] = 58000.0; /* -1.7% vs the median of two */
    cluster_flag(nodes, 2, 5.0, CLUSTER_MAD_K, &st);
    assert_false(nodes[1].slow);
}

static void parse_node_reports(void **state)
{
    (void)state;
    struct node_summary s;
    node_summary_parse("{\"system\": {\"hostname\": \"cn042\"}, \"runs\": [{\"validation\": "
                       "{\"passed\": true}, \"results\": [{\"kernel\": \"Triad\", "
                       "\"best_rate_mbps\": 61234.5}]}], \"acceptance\": {\"passed\": false}}",
                       42, 1, &s);
    assert_string_equal(s.host, "cn042");
    assert_int_equal(s.rank, 42);
    assert_true(s.validated);
    assert_true(s.acceptance_evaluated);
    assert_false(s.acceptance_passed);
    assert_true(s.rate[KERNEL_TRIAD] == 61234.5);
    assert_false(node_passed(&s)); /* exit status 1 */
    free(s.report_json);

    node_summary_parse("", 3, 0, &s);
    assert_int_equal(s.exit_code, 3); /* no report is never a pass */
    assert_non_null(strstr(s.error, "no report"));
    node_summary_parse("{not json", 5, 3, &s);
    assert_false(node_passed(&s));
}

static void table_and_json(void **state)
{
    (void)state;
    struct node_summary nodes[5];
    struct cluster_stats st;
    make_nodes(nodes, 5, 60000.0);
    nodes[2].rate[KERNEL_TRIAD] = 30000.0;
    cluster_flag(nodes, 5, 5.0, CLUSTER_MAD_K, &st);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(report_cluster_text(f, nodes, 5, &st, 5.0), 0);
    fclose(f);
    assert_non_null(strstr(text, "node002"));
    assert_non_null(strstr(text, "FAIL slow: Triad"));
    assert_non_null(strstr(text, "Verdict: FAIL (1 of 5 nodes failed)"));
    free(text);
    f = open_memstream(&text, &len);
    assert_int_equal(report_cluster_json(f, nodes, 5, &st, 5.0), 0);
    fclose(f);
    assert_non_null(strstr(text, "\"nodes\": ["));
    assert_non_null(strstr(text, "\"verdict\": \"FAIL\""));
    free(text);
}

static char *text_of(const struct node_summary *nodes, int n, const struct cluster_stats *st,
                     int format)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    int rc = format == 0   ? report_cluster_text(f, nodes, n, st, 5.0)
             : format == 1 ? report_cluster_json(f, nodes, n, st, 5.0)
                           : report_cluster_csv(f, nodes, n, st);
    assert_int_equal(rc, 0);
    fclose(f);
    char *copy = strdup(text); /* not the memstream's buffer: gcc sees a local's address */
    free(text);
    return copy;
}

/* Of two or three nodes, which is wrong? Peers are not compared, rates not claimed judged. */
static void too_few_peers_judge_nobody(void **state)
{
    (void)state;
    struct node_summary nodes[3];
    struct cluster_stats st;
    for (int n = 2; n <= 3; n++) {
        make_nodes(nodes, n, 60000.0);
        nodes[1].rate[KERNEL_TRIAD] = 90000.0; /* 50% too fast: its healthy peer is not blamed */
        cluster_flag(nodes, n, 5.0, CLUSTER_MAD_K, &st);
        assert_false(st.peer);
        for (int i = 0; i < n; i++) {
            assert_true(node_passed(&nodes[i]));
            assert_false(nodes[i].slow);
            assert_false(nodes[i].outlier);
        }
        char *text = text_of(nodes, n, &st, 0);
        assert_non_null(strstr(text, "Rates not judged: peer comparison needs 4 healthy nodes"));
        assert_non_null(strstr(text, "Verdict: PASS: every node validated; rates not judged"));
        assert_null(strstr(text, "PASS\n")); /* rows say OK: no rate check was made */
        assert_non_null(strstr(text, "  OK\n"));
        free(text);
    }
    /* with --expect/--reference, the nodes' own checks judge them */
    make_nodes(nodes, 2, 60000.0);
    nodes[0].rates_checked = nodes[1].rates_checked = true;
    cluster_flag(nodes, 2, 5.0, CLUSTER_MAD_K, &st);
    char *text = text_of(nodes, 2, &st, 0);
    assert_non_null(strstr(text, "Rates judged against --reference/--expect only"));
    assert_non_null(strstr(text, "Verdict: PASS (0 of 2 nodes failed)"));
    free(text);
}

/* A node far above its peers is an outlier; it is never failed and never fails a peer. */
static void too_fast_is_not_blamed_on_peers(void **state)
{
    (void)state;
    struct node_summary nodes[5];
    struct cluster_stats st;
    make_nodes(nodes, 5, 60000.0);
    nodes[3].rate[KERNEL_TRIAD] = 96000.0;
    nodes[3].rate[KERNEL_COPY] = 70000.0;
    cluster_flag(nodes, 5, 5.0, CLUSTER_MAD_K, &st);
    assert_true(st.peer);
    for (int i = 0; i < 5; i++) {
        assert_true(node_passed(&nodes[i]));
        assert_int_equal(nodes[i].outlier, i == 3);
    }
    assert_int_equal(nodes[3].fast_kernels, (1u << KERNEL_TRIAD) | (1u << KERNEL_COPY));
    assert_string_equal(nodes[3].why, "Triad +60.0% vs median"); /* the worst of the two */
    char *text = text_of(nodes, 5, &st, 0);
    assert_non_null(strstr(text, "PASS fast outlier: Triad +60.0% vs median (not failed)"));
    assert_non_null(strstr(text, "Verdict: PASS (0 of 5 nodes failed)"));
    free(text);
}

/* MAD = 0 still flags (the tolerance is the floor); a tiny MAD does not flag 1-2% noise. */
static void mad_floor_is_the_tolerance(void **state)
{
    (void)state;
    struct node_summary nodes[6];
    struct cluster_stats st;
    make_nodes(nodes, 6, 60000.0);
    for (int i = 0; i < 6; i++)
        nodes[i].rate[KERNEL_TRIAD] = 60000.0;
    nodes[5].rate[KERNEL_TRIAD] = 66000.0; /* +10%, MAD 0 */
    cluster_flag(nodes, 6, 5.0, CLUSTER_MAD_K, &st);
    assert_true(st.mad[KERNEL_TRIAD] == 0.0);
    assert_true(nodes[5].outlier);
    assert_true(node_passed(&nodes[5]));
    for (int i = 0; i < 6; i++)
        nodes[i].rate[KERNEL_TRIAD] = 60000.0 + i; /* MAD 1.5 MB/s */
    nodes[5].rate[KERNEL_TRIAD] = 58900.0;         /* -1.8%: noise, not a slow node */
    cluster_flag(nodes, 6, 5.0, CLUSTER_MAD_K, &st);
    for (int i = 0; i < 6; i++) {
        assert_false(nodes[i].slow);
        assert_false(nodes[i].outlier);
    }
}

/* The reason names the worst kernel, not the first one flagged. */
static void reason_names_the_worst_kernel(void **state)
{
    (void)state;
    struct node_summary nodes[5];
    struct cluster_stats st;
    make_nodes(nodes, 5, 60000.0);
    nodes[2].rate[KERNEL_COPY] *= 0.9;  /* -10% */
    nodes[2].rate[KERNEL_SCALE] = 0;    /* not measured anywhere */
    nodes[2].rate[KERNEL_TRIAD] *= 0.7; /* -30% */
    cluster_flag(nodes, 5, 5.0, CLUSTER_MAD_K, &st);
    assert_true(nodes[2].slow);
    assert_int_equal(nodes[2].slow_kernels, (1u << KERNEL_COPY) | (1u << KERNEL_TRIAD));
    assert_non_null(strstr(nodes[2].why, "Triad -30."));
    char *csv = text_of(nodes, 5, &st, 2);
    /* per-kernel flags: Copy and Triad are slow, not every row of the node */
    assert_non_null(strstr(csv, "node002,2,Copy,48600.0,FAIL,true,true,"));
    assert_non_null(strstr(csv, "node001,1,Copy,54005.0,PASS,false,false,,,\n"));
    free(csv);
}

/* Nodes that failed on their own are judged by their run and left out of the statistics. */
static void failed_nodes_are_out_of_the_statistics(void **state)
{
    (void)state;
    struct node_summary nodes[7];
    struct cluster_stats st;
    make_nodes(nodes, 7, 60000.0);
    nodes[5].exit_code = 1; /* failed validation: its rate says nothing */
    nodes[5].rate[KERNEL_TRIAD] = 1000.0;
    snprintf(nodes[5].why, sizeof(nodes[5].why), "validation failed");
    nodes[6].exit_code = 3;
    nodes[6].rate[KERNEL_TRIAD] = 0;
    nodes[6].rate[KERNEL_COPY] = 0;
    snprintf(nodes[6].error, sizeof(nodes[6].error), "membench: --pages 1g: no pool");
    cluster_flag(nodes, 7, 5.0, CLUSTER_MAD_K, &st);
    assert_int_equal(st.healthy, 5);
    assert_true(st.min[KERNEL_TRIAD] == 60000.0); /* not 1000 */
    assert_true(st.median[KERNEL_TRIAD] == 60010.0);
    for (int i = 0; i < 5; i++)
        assert_true(node_passed(&nodes[i]));
    assert_false(node_passed(&nodes[5]));
    assert_false(node_passed(&nodes[6]));
    char *text = text_of(nodes, 7, &st, 0);
    assert_non_null(strstr(text, "FAIL validation failed\n"));
    assert_non_null(strstr(text, "ERROR (membench: --pages 1g: no pool)"));
    assert_non_null(strstr(text, "Verdict: FAIL (2 of 7 nodes failed)"));
    free(text);
    char *csv = text_of(nodes, 7, &st, 2);
    assert_non_null(strstr(csv, "node006,6,,,ERROR,,,,membench: --pages 1g: no pool,\n"));
    free(csv);
}

/* A node that failed its --expect/--reference rate checks: the worst check and deviation. */
static void failed_expectations_name_the_worst_check(void **state)
{
    (void)state;
    struct node_summary s;
    node_summary_parse(
        "{\"system\": {\"hostname\": \"cn7\", \"cores\": 1, \"machine_cores\": 2, "
        "\"cpus_restricted\": true, \"cpus_usable\": \"0\"}, \"runs\": [{\"validation\": "
        "{\"passed\": true}, \"results\": [{\"kernel\": \"Copy\", \"best_rate_mbps\": 5000}, "
        "{\"kernel\": \"Triad\", \"best_rate_mbps\": 3540}]}], \"acceptance\": {\"passed\": "
        "false, \"tolerance_pct\": 5, \"checks\": [{\"name\": \"validation\", \"passed\": true}, "
        "{\"name\": \"Copy\", \"passed\": false, \"expected_mbps\": 5700, \"measured_mbps\": "
        "5000}, {\"name\": \"Triad\", \"passed\": false, \"expected_mbps\": 5700, "
        "\"measured_mbps\": 3540}, {\"name\": \"cores\", \"passed\": false, \"measured\": \"1\", "
        "\"expected\": \"2\"}]}}",
        7, 1, &s);
    assert_true(s.rates_checked);
    assert_string_equal(s.why, "Triad -41.0% vs expected");
    assert_true(s.cpus_restricted);
    struct cluster_stats st;
    cluster_flag(&s, 1, 5.0, CLUSTER_MAD_K, &st);
    assert_int_equal(st.healthy, 0);
    char *text = text_of(&s, 1, &st, 0);
    assert_non_null(strstr(text, "FAIL Triad -41.0% vs expected; measured 1 of 2 cores"));
    assert_non_null(strstr(text, "Note: node cn7 (rank 7) measured 1 of 2 cores (CPUs 0)"));
    assert_non_null(strstr(text, "--bind-to none"));
    free(text);
    char *json = text_of(&s, 1, &st, 1);
    json_t *root = json_loads(json, 0, NULL);
    assert_non_null(root);
    json_t *node = json_array_get(json_object_get(root, "nodes"), 0);
    assert_string_equal(json_string_value(json_object_get(node, "reason")),
                        "Triad -41.0% vs expected");
    assert_true(json_is_true(json_object_get(node, "cpus_restricted")));
    assert_string_equal(json_string_value(json_object_get(node, "note")), "measured 1 of 2 cores");
    json_decref(root);
    free(json);
    free(s.report_json);
}

/* A node that falls short carries its own likely causes into its row; a node that passes,
 * or only stands out fast, does not. */
static void short_nodes_carry_their_likely_causes(void **state)
{
    (void)state;
    struct node_summary nodes[6];
    struct cluster_stats st;
    make_nodes(nodes, 5, 60000.0);
    node_summary_parse(
        "{\"system\": {\"hostname\": \"cn5\", \"cores\": 2}, \"runs\": [{\"validation\": "
        "{\"passed\": true}, \"results\": [{\"kernel\": \"Triad\", \"best_rate_mbps\": 40000}]}], "
        "\"diagnosis\": [{\"cause\": \"other_work\", \"summary\": \"other work took 40% of "
        "the run's CPUs\"}, {\"cause\": \"swapping\", \"summary\": \"12 pages swapped during "
        "the run\"}]}",
        5, 0, &nodes[5]);
    assert_string_equal(nodes[5].likely,
                        "other work took 40% of the run's CPUs, 12 pages swapped during the run");
    snprintf(nodes[0].likely, sizeof(nodes[0].likely), "hypervisor took 9%% of the CPUs");
    cluster_flag(nodes, 6, 5.0, CLUSTER_MAD_K, &st);
    assert_true(nodes[5].slow);
    char *text = text_of(nodes, 6, &st, 0);
    assert_non_null(strstr(text, "FAIL slow: Triad -33.3% vs median; likely: other work took "
                                 "40% of the run's CPUs, 12 pages swapped during the run"));
    assert_null(strstr(text, "hypervisor took")); /* node000 passed */
    free(text);
    char *json = text_of(nodes, 6, &st, 1);
    assert_non_null(strstr(json, "; likely: other work took 40%"));
    free(json);
    free(nodes[5].report_json);
}

/* A node that passed its own run but is slower than its peers: its row names what its run
 * would have named had it fallen short (diagnosis_if_short[]: its configuration too); a node
 * whose own run failed names its diagnosis[]. */
static void peer_slow_nodes_name_their_configuration(void **state)
{
    (void)state;
    struct node_summary nodes[7];
    struct cluster_stats st;
    make_nodes(nodes, 5, 60000.0);
    const char *slow_json =
        "{\"system\": {\"hostname\": \"cn5\"}, \"runs\": [{\"validation\": {\"passed\": "
        "true}, \"results\": [{\"kernel\": \"Triad\", \"best_rate_mbps\": 40000}]}], "
        "\"diagnosis\": [{\"summary\": \"other work took 6% of the run's CPUs\"}], "
        "\"diagnosis_if_short\": [{\"summary\": \"socket 0 channels F, J, L empty\"}, "
        "{\"summary\": \"other work took 6% of the run's CPUs\"}]}";
    node_summary_parse(slow_json, 5, 0, &nodes[5]);
    /* the same facts on a node whose own --expect failed: its diagnosis[] was asked */
    const char *failed_json =
        "{\"system\": {\"hostname\": \"cn6\"}, \"runs\": [{\"validation\": {\"passed\": "
        "true}, \"results\": [{\"kernel\": \"Triad\", \"best_rate_mbps\": 40000}]}], "
        "\"diagnosis\": [{\"summary\": \"DIMMs at 2400 of their rated 3200 MT/s\"}], "
        "\"diagnosis_if_short\": [{\"summary\": \"DIMMs at 2400 of their rated 3200 MT/s\"}, "
        "{\"summary\": \"not this one\"}]}";
    node_summary_parse(failed_json, 6, 1, &nodes[6]);
    snprintf(nodes[0].likely_if_short, sizeof(nodes[0].likely_if_short),
             "socket 1 has mixed DIMMs");
    cluster_flag(nodes, 7, 5.0, CLUSTER_MAD_K, &st);
    assert_true(nodes[5].slow);
    char *text = text_of(nodes, 7, &st, 0);
    assert_non_null(strstr(text, "FAIL slow: Triad -33.3% vs median; likely: socket 0 channels F, "
                                 "J, L empty, other work took 6% of the run's CPUs"));
    assert_non_null(strstr(text, "; likely: DIMMs at 2400 of their rated 3200 MT/s\n"));
    assert_null(strstr(text, "not this one"));
    assert_null(strstr(text, "mixed DIMMs")); /* node000 passed: a fact, not a cause */
    free(text);
    free(nodes[5].report_json);
    free(nodes[6].report_json);
}

/* A node whose run was INCONCLUSIVE (exit 5) is its own row: not FAIL, not ERROR, not in the
 * statistics; the cluster is INCONCLUSIVE (exit 5) unless another node failed. */
static void inconclusive_node_is_its_own_row(void **state)
{
    (void)state;
    struct node_summary nodes[6];
    struct cluster_stats st;
    make_nodes(nodes, 5, 60000.0);
    node_summary_parse(
        "{\"system\": {\"hostname\": \"cn9\", \"cores\": 2}, \"runs\": [{\"validation\": "
        "{\"passed\": true}, \"results\": [{\"kernel\": \"Triad\", \"best_rate_mbps\": 30000}]}], "
        "\"acceptance\": {\"passed\": false, \"verdict\": \"INCONCLUSIVE\", \"tolerance_pct\": 5, "
        "\"checks\": [{\"name\": \"Triad\", \"passed\": false, \"verdict\": \"INCONCLUSIVE\", "
        "\"expected_mbps\": 57000, \"measured_mbps\": 30000, \"why\": \"Triad varied 60% across "
        "repetitions, more than the 5% tolerance\"}]}}",
        5, 5, &nodes[5]);
    assert_true(node_inconclusive(&nodes[5]));
    assert_false(node_passed(&nodes[5]));
    assert_string_equal(nodes[5].error, "");
    cluster_flag(nodes, 6, 5.0, CLUSTER_MAD_K, &st);
    assert_int_equal(st.healthy, 5);
    assert_false(nodes[5].slow);
    assert_int_equal(cluster_exit_status(nodes, 6), 5);
    char *text = text_of(nodes, 6, &st, 0);
    assert_non_null(strstr(text, "INCONCLUSIVE Triad varied 60% across repetitions"));
    assert_non_null(strstr(text, "Verdict: INCONCLUSIVE (1 of 6 nodes too noisy to judge, none "
                                 "failed)"));
    free(text);
    char *json = text_of(nodes, 6, &st, 1);
    json_t *root = json_loads(json, 0, NULL);
    assert_non_null(root);
    json_t *node = json_array_get(json_object_get(root, "nodes"), 5);
    assert_string_equal(json_string_value(json_object_get(node, "verdict")), "INCONCLUSIVE");
    json_t *cluster = json_object_get(root, "cluster");
    assert_false(json_is_true(json_object_get(cluster, "passed")));
    assert_string_equal(json_string_value(json_object_get(cluster, "verdict")), "INCONCLUSIVE");
    assert_int_equal(json_integer_value(json_object_get(cluster, "inconclusive_nodes")), 1);
    json_decref(root);
    free(json);
    nodes[2].exit_code = 1; /* another node failed: the cluster fails */
    snprintf(nodes[2].why, sizeof(nodes[2].why), "validation failed");
    assert_int_equal(cluster_exit_status(nodes, 6), 1);
    cluster_flag(nodes, 6, 5.0, CLUSTER_MAD_K, &st);
    text = text_of(nodes, 6, &st, 0);
    assert_non_null(strstr(text, "Verdict: FAIL (1 of 6 nodes failed, 1 inconclusive)"));
    free(text);
    nodes[3].exit_code = 3; /* and a node's error status wins */
    snprintf(nodes[3].error, sizeof(nodes[3].error), "out of memory");
    assert_int_equal(cluster_exit_status(nodes, 6), 3);
    free(nodes[5].report_json);
}

/* Byte offset of the n-th character of s. */
static size_t char_column(const char *line, const char *at)
{
    size_t col = 0;
    for (const char *p = line; p < at; p++)
        col += ((unsigned char)*p & 0xC0) != 0x80;
    return col;
}

static bool valid_utf8(const char *s)
{
    json_t *j = json_string(s); /* jansson refuses invalid UTF-8 */
    json_decref(j);
    return j != NULL;
}

/* Minimal RFC 4180 reader: the fields of the first record at *p, advancing *p. */
static int csv_record(const char **p, char fields[][160], int max)
{
    int n = 0;
    const char *s = *p;
    for (;;) {
        char *out = fields[n];
        size_t o = 0;
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                if (*s == '"') s++;
                if (o < 159) out[o++] = *s;
            }
            if (*s == '"') s++;
        } else {
            for (; *s && *s != ',' && *s != '\n'; s++)
                if (o < 159) out[o++] = *s;
        }
        out[o] = '\0';
        n++;
        if (*s == ',' && n < max) {
            s++;
            continue;
        }
        if (*s == '\n') s++;
        *p = s;
        return n;
    }
}

/* Short names: the median/MAD/min/max rows' numbers stand under the nodes' numbers. */
static void short_names_keep_the_statistics_aligned(void **state)
{
    (void)state;
    struct node_summary nodes[4];
    struct cluster_stats st;
    make_nodes(nodes, 4, 60000.0);
    for (int i = 0; i < 4; i++)
        snprintf(nodes[i].host, sizeof(nodes[i].host), "%c", 'a' + i);
    cluster_flag(nodes, 4, 5.0, CLUSTER_MAD_K, &st);
    char *text = text_of(nodes, 4, &st, 0);
    const size_t numbers_end = 6 + 6 + 2 * 11; /* "median", " %5d" rank, two kernel columns */
    int checked = 0;
    for (char *line = text; *line; line = strchr(line, '\n') + 1) {
        size_t len = strcspn(line, "\n");
        if (line[0] >= 'a' && line[0] <= 'd' && line[1] == ' ') {
            assert_memory_equal(line + numbers_end, "  PASS", 6);
            checked++;
        }
        for (const char *const *row = (const char *const[]){"median", "MAD ", "min ", "max ", 0};
             *row; row++)
            if (!strncmp(line, *row, strlen(*row))) {
                assert_int_equal(len, numbers_end);
                checked++;
            }
        if (!line[len]) break;
    }
    assert_int_equal(checked, 8);
    free(text);
}

/* Long, multibyte, comma/quote names: whole, aligned, valid UTF-8; CSV and JSON parse. */
static void hostnames_stay_whole_and_aligned(void **state)
{
    (void)state;
    static const char *const names[] = {
        "compute-node-with-a-very-long-name-in-a-big-cluster-rack-17-slot-A",
        "compute-node-with-a-very-long-name-in-a-big-cluster-rack-17-slot-B",
        ("n\xc5\x93ud-\xe3\x83\x8e\xe3\x83\xbc\xe3\x83\x89-\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
         "\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"),
        "cn,1 \"rack\"\nB", "cn5\t\x1b[31mred\x1b[0m"};
    /* as the text table shows them: escaped, on one line, no terminal escape */
    const char *const shown[] = {names[0], names[1], names[2], "cn,1 \"rack\"\\nB",
                                 "cn5\\t\\x1B[31mred\\x1B[0m"};
    struct node_summary nodes[5];
    struct cluster_stats st;
    make_nodes(nodes, 5, 60000.0);
    for (int i = 0; i < 5; i++)
        snprintf(nodes[i].host, sizeof(nodes[i].host), "%s", names[i]);
    nodes[3].rate[KERNEL_COPY] = nodes[3].rate[KERNEL_TRIAD] = 0;
    nodes[3].exit_code = 3;
    snprintf(nodes[3].error, sizeof(nodes[3].error), "membench: a, \"quoted\" error");
    cluster_flag(nodes, 5, 5.0, CLUSTER_MAD_K, &st);

    char *text = text_of(nodes, 5, &st, 0);
    assert_true(valid_utf8(text));
    for (const char *p = text; *p; p++)
        assert_false((unsigned char)*p < 0x20 && *p != '\n');
    size_t rank_col = 0;
    for (int i = 0; i < 5; i++) {
        char *row = strstr(text, shown[i]);
        assert_non_null(row); /* never cut */
        char *line = row;
        while (line > text && line[-1] != '\n')
            line--;
        char want[16];
        snprintf(want, sizeof(want), " %5d ", i);
        char *rank = strstr(row, want);
        assert_non_null(rank);
        size_t col = char_column(line, rank);
        if (!rank_col) rank_col = col;
        assert_int_equal(col, rank_col); /* padded by characters, not bytes */
    }
    free(text);

    char *csv = text_of(nodes, 5, &st, 2);
    const char *p = csv;
    char fields[12][160];
    assert_int_equal(csv_record(&p, fields, 12), 10);
    assert_string_equal(fields[0], "hostname");
    int rows = 0, errored = 0;
    while (*p) {
        assert_int_equal(csv_record(&p, fields, 12), 10);
        rows++;
        if (!strcmp(fields[0], names[3])) {
            errored++;
            assert_string_equal(fields[3], ""); /* no rate */
            assert_string_equal(fields[4], "ERROR");
            assert_string_equal(fields[8], "membench: a, \"quoted\" error");
        } else {
            bool known = false;
            for (int i = 0; i < 5; i++)
                known |= !strcmp(fields[0], names[i]);
            assert_true(known);
        }
    }
    assert_int_equal(rows, 4 * 2 + 1);
    assert_int_equal(errored, 1);
    free(csv);

    char *json = text_of(nodes, 5, &st, 1);
    json_t *root = json_loads(json, 0, NULL);
    assert_non_null(root);
    for (int i = 0; i < 5; i++)
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(json_object_get(root, "nodes"), i), "hostname")),
                            names[i]);
    json_decref(root);
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equals_flag_nobody),
        cmocka_unit_test(one_slow_node_among_many),
        cmocka_unit_test(fast_outlier_is_flagged_but_passes),
        cmocka_unit_test(within_tolerance_is_not_slow),
        cmocka_unit_test(parse_node_reports),
        cmocka_unit_test(table_and_json),
        cmocka_unit_test(too_few_peers_judge_nobody),
        cmocka_unit_test(too_fast_is_not_blamed_on_peers),
        cmocka_unit_test(mad_floor_is_the_tolerance),
        cmocka_unit_test(reason_names_the_worst_kernel),
        cmocka_unit_test(failed_nodes_are_out_of_the_statistics),
        cmocka_unit_test(failed_expectations_name_the_worst_check),
        cmocka_unit_test(short_names_keep_the_statistics_aligned),
        cmocka_unit_test(hostnames_stay_whole_and_aligned),
        cmocka_unit_test(inconclusive_node_is_its_own_row),
        cmocka_unit_test(short_nodes_carry_their_likely_causes),
        cmocka_unit_test(peer_slow_nodes_name_their_configuration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
