/* A reference's memory inventory: written from the node's NUMA nodes, read back for the
 * checks. */
#include "src/verdict/reference_memory.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "affinity/memory_nodes.h"
#include "kernels/kernel_table.h"
#include "src/base/parse.h"
#include "src/stream/results.h"

/* One node of "memory.nodes": {os_index, kind, bytes, tier}. */
static int read_mem_node(json_t *v, struct reference_mem_node *n)
{
    json_t *os = json_object_get(v, "os_index"), *bytes = json_object_get(v, "bytes");
    json_t *kind = json_object_get(v, "kind"), *tier = json_object_get(v, "tier");
    if (!json_is_integer(os) || json_integer_value(os) < 0 ||
        json_integer_value(os) > (json_int_t)UINT32_MAX || !json_is_integer(bytes) ||
        json_integer_value(bytes) < 0 || !json_is_string(kind) || !json_is_string(tier))
        return -1;
    n->os = (unsigned)json_integer_value(os);
    n->bytes = (unsigned long long)json_integer_value(bytes);
    snprintf(n->kind, sizeof(n->kind), "%s", json_string_value(kind));
    snprintf(n->tier, sizeof(n->tier), "%s", json_string_value(tier));
    utf8_trim_partial(n->kind);
    utf8_trim_partial(n->tier);
    return 0;
}

/* "memory": {"nodes": [...], "tiers": [{"name": ...}]}, the node's memory inventory; optional
 * (older references have none, and are checked without it). */
int reference_memory_read(json_t *mem, struct reference_memory *r, char *why, size_t why_len)
{
    memset(r, 0, sizeof(*r));
    if (!mem) return 0;
    json_t *nodes = json_object_get(mem, "nodes"), *tiers = json_object_get(mem, "tiers");
    if (!json_is_array(nodes) || json_array_size(nodes) > REFERENCE_MEM_NODES_MAX ||
        !json_is_array(tiers) || json_array_size(tiers) > REFERENCE_MEM_TIERS_MAX)
        goto bad;
    for (size_t i = 0; i < json_array_size(nodes); i++)
        if (read_mem_node(json_array_get(nodes, i), &r->nodes[r->n_nodes++]) != 0) goto bad;
    for (size_t i = 0; i < json_array_size(tiers); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(tiers, i), "name"));
        if (!name) goto bad;
        snprintf(r->tiers[r->n_tiers], sizeof(r->tiers[0]), "%s", name);
        utf8_trim_partial(r->tiers[r->n_tiers++]);
    }
    r->present = true;
    return 0;
bad:
    snprintf(why, why_len,
             "'memory' must hold 'nodes' (at most %d of {os_index, kind, bytes, tier}) and "
             "'tiers' (at most %d of {name})",
             REFERENCE_MEM_NODES_MAX, REFERENCE_MEM_TIERS_MAX);
    return -1;
}

/* The node's memory inventory: every NUMA node by OS number, its kind, bytes and tier. */
json_t *reference_memory_json(const struct node_memory *m)
{
    json_t *nodes = json_array(), *tiers = json_array();
    for (int i = 0; m && i < m->count; i++) {
        const struct mem_node *n = &m->nodes[i];
        const struct mem_tier *t = &m->tiers[n->tier];
        json_array_append_new(nodes,
                              json_pack("{s:I,s:s,s:I,s:s}", "os_index", (json_int_t)n->os, "kind",
                                        t->kind, "bytes", (json_int_t)n->bytes, "tier", t->name));
    }
    for (int t = 0; m && t < m->tier_count; t++) {
        char list[256];
        node_memory_tier_list(m, t, list, sizeof(list));
        json_array_append_new(tiers, json_pack("{s:s,s:s,s:s}", "name", m->tiers[t].name, "kind",
                                               m->tiers[t].kind, "nodes", list));
    }
    return json_pack("{s:o,s:o}", "nodes", nodes, "tiers", tiers);
}

/* One tier's {"nodes": "4-7", "rates_mbps": {"Triad": 90000}}; --expect's rates win. */
static int read_tier_rates(const char *name, json_t *v, struct expectations *e)
{
    json_t *rates = json_object_get(v, "rates_mbps"), *nodes = json_object_get(v, "nodes");
    struct tier_expectation *t = name[0] ? expectations_tier(e, name) : NULL;
    if (!t || !json_is_object(rates) || (nodes && !json_is_string(nodes))) return -1;
    if (nodes) snprintf(t->nodes, sizeof(t->nodes), "%s", json_string_value(nodes));
    utf8_trim_partial(t->nodes);
    const char *key;
    json_t *rate;
    json_object_foreach(rates, key, rate)
    {
        int k = kernel_find(key);
        double mbps = json_number_value(rate);
        if (k < 0 || !json_is_number(rate) || !(mbps > 0.0) || mbps > 1e9) return -1;
        e->reference_kernels |= 1u << k;
        if (t->rate_mbps[k] != 0.0) continue;
        t->rate_mbps[k] = mbps;
        t->rated_by_reference |= 1u << k;
    }
    return 0;
}

int reference_tier_rates_read(json_t *tiers, struct expectations *e, char *why, size_t why_len)
{
    if (!tiers) return 0;
    const char *name;
    json_t *v;
    if (!json_is_object(tiers)) goto bad;
    json_object_foreach(tiers, name, v)
    {
        if (read_tier_rates(name, v, e) != 0) goto bad;
    }
    return 0;
bad:
    snprintf(why, why_len,
             "'tier_rates' must map at most %d tier names to {\"nodes\": \"0-3\", "
             "\"rates_mbps\": {kernel: MB/s above 0 up to 1e9}}",
             REFERENCE_MEM_TIERS_MAX);
    return -1;
}

/* One tier run's {"nodes": "4-7", "rates_mbps": {kernel: best MB/s}}. */
static json_t *tier_rates_of(const struct run_result *r)
{
    const struct run_config *c = &r->config;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char nodes[64] = "";
    for (unsigned t = 0; set && c->thread_node && t < c->threads; t++)
        hwloc_bitmap_set(set, (unsigned)c->thread_node[t]);
    if (set) hwloc_bitmap_list_snprintf(nodes, sizeof(nodes), set);
    hwloc_bitmap_free(set);
    json_t *rates = json_object();
    for (int i = 0; i < r->n_results; i++)
        json_object_set_new(rates, kernel_table[r->results[i].kernel].name,
                            json_real(r->results[i].best_rate_mbps));
    return json_pack("{s:s,s:o}", "nodes", nodes, "rates_mbps", rates);
}

json_t *reference_tier_rates_json(const struct node_facts *node)
{
    json_t *tiers = node->n_tier_runs ? json_object() : NULL;
    for (size_t i = 0; tiers && i < node->n_tier_runs; i++)
        if (node->tier_runs[i].measured)
            json_object_set_new(tiers, node->tier_runs[i].config.tier_name,
                                tier_rates_of(&node->tier_runs[i]));
    return tiers;
}
