/* Cluster statistics: medians, MADs, and which nodes are slow or outliers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "src/cluster.h"

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
    struct node_summary nodes[3];
    struct cluster_stats st;
    make_nodes(nodes, 3, 60000.0);
    nodes[2].rate[KERNEL_TRIAD] = 30000.0;
    cluster_flag(nodes, 3, 5.0, CLUSTER_MAD_K, &st);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(report_cluster_text(f, nodes, 3, &st, 5.0), 0);
    fclose(f);
    assert_non_null(strstr(text, "node002"));
    assert_non_null(strstr(text, "FAIL slow: Triad"));
    assert_non_null(strstr(text, "Verdict: FAIL (1 of 3 nodes failed)"));
    free(text);
    f = open_memstream(&text, &len);
    assert_int_equal(report_cluster_json(f, nodes, 3, &st, 5.0), 0);
    fclose(f);
    assert_non_null(strstr(text, "\"nodes\": ["));
    assert_non_null(strstr(text, "\"verdict\": \"FAIL\""));
    free(text);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
