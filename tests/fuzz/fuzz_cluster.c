/* Rank 0 of a cluster run: node_summary_parse on every node's JSON report, cluster_flag over
 * them, and the text, CSV and JSON cluster reports. Input: up to 16 reports separated by a
 * form feed ('\f'); node i exits 1 when i % 5 == 3, 3 when i % 5 == 4, else 0. */
#include <jansson.h>
#include <math.h>

#include "src/cluster/cluster.h"
#include "tests/fuzz/fuzz.h"

#define MAX_NODES 16

struct nodes {
    struct node_summary s[MAX_NODES];
    int n;
};

static void parse_node(const uint8_t *piece, size_t len, int index, void *ctx)
{
    struct nodes *nodes = ctx;
    static const int exits[] = {0, 0, 0, 1, 3};
    char *text = fuzz_cstr(piece, len);
    struct node_summary *s = &nodes->s[nodes->n++];
    node_summary_parse(text, index, exits[index % 5], s);
    FUZZ_CHECK(memchr(s->host, '\0', sizeof(s->host)) && s->host[0], "node %d: no host", index);
    FUZZ_CHECK(fuzz_valid_utf8(s->host), "node %d: host is not UTF-8", index);
    FUZZ_CHECK(s->report_json || (s->error[0] && s->exit_code != 0),
               "node %d: no report, yet no error", index);
    for (int k = 0; k < KERNEL_COUNT; k++)
        FUZZ_CHECK(isfinite(s->rate[k]), "node %d: %s rate %g", index, kernel_table[k].name,
                   s->rate[k]);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct nodes nodes;
    memset(&nodes, 0, sizeof(nodes));
    fuzz_split(data, size, '\f', MAX_NODES, parse_node, &nodes);
    struct cluster_stats st;
    cluster_flag(nodes.s, nodes.n, 5.0, CLUSTER_MAD_K, &st);

    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w"))) abort();
    FUZZ_CHECK(report_cluster_text(devnull, nodes.s, nodes.n, &st, 5.0) == 0, "text report");
    FUZZ_CHECK(report_cluster_csv(devnull, nodes.s, nodes.n, &st) == 0, "CSV report");
    char *json = NULL;
    size_t json_len = 0;
    FILE *mem = open_memstream(&json, &json_len);
    if (!mem) abort();
    int rc = report_cluster_json(mem, nodes.s, nodes.n, &st, 5.0);
    fclose(mem);
    FUZZ_CHECK(rc == 0, "JSON report failed");
    json_error_t err;
    json_t *root = json_loads(json, 0, &err);
    FUZZ_CHECK(root, "the cluster JSON report does not parse: %s", err.text);
    size_t listed = json_array_size(json_object_get(root, "nodes"));
    FUZZ_CHECK(listed == (size_t)nodes.n, "the JSON report lists %zu of %d nodes", listed, nodes.n);
    json_decref(root);
    free(json);
    for (int i = 0; i < nodes.n; i++)
        free(nodes.s[i].report_json);
    return 0;
}
