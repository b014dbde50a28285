#include "src/report/report_memory.h"

#include <string.h>

#include "src/base/json_values.h"
#include "src/base/parse.h"

static size_t append(char *buf, size_t len, size_t at, const char *fmt, uint64_t v)
{
    if (at >= len) return at;
    int n = snprintf(buf + at, len - at, fmt, (unsigned long long)v);
    return n > 0 ? at + (size_t)n : at;
}

static size_t pair_text(char *buf, size_t len, size_t at, uint64_t both, uint64_t read,
                        uint64_t write, const char *unit)
{
    if (both) at = append(buf, len, at, "%llu", both);
    if ((read || write) && !(both && read == both && write == both)) {
        at = append(buf, len, at, both ? " (" : "", 0);
        if (read) at = append(buf, len, at, "read %llu", read);
        if (write) at = append(buf, len, at, read ? ", write %llu" : "write %llu", write);
        at = append(buf, len, at, both ? ")" : "", 0);
    }
    return append(buf, len, at, unit, 0);
}

void memory_firmware_text(const struct mem_firmware *f, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    bool bw = f->bandwidth || f->read_bandwidth || f->write_bandwidth;
    bool lat = f->latency || f->read_latency || f->write_latency;
    if (!bw && !lat) {
        snprintf(buf, len, "no HMAT figure");
        return;
    }
    at = append(buf, len, at, "HMAT ", 0);
    if (bw)
        at = pair_text(buf, len, at, f->bandwidth, f->read_bandwidth, f->write_bandwidth, " MB/s");
    if (bw && lat) at = append(buf, len, at, ", ", 0);
    if (lat) pair_text(buf, len, at, f->latency, f->read_latency, f->write_latency, " ns");
}

static void node_line(FILE *out, const struct node_memory *m, const struct mem_node *n)
{
    char size[32], cpus[96] = "", fw[160];
    format_bytes(n->bytes, size, sizeof(size));
    if (n->initiator) hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), n->initiator);
    memory_firmware_text(&n->firmware, fw, sizeof(fw));
    fprintf(out, m->count == 1 ? " %u: %s" : "  node %u: %s", n->os, size);
    if (n->has_cpus)
        fprintf(out, ", cores on it (CPUs %s)", cpus);
    else if (n->initiator_node >= 0)
        fprintf(out, ", memory only; nearest cores CPUs %s (node %d, from %s)", cpus,
                n->initiator_node, n->initiator_source);
    else
        fprintf(out, ", memory only; nearest cores unknown");
    if (n->memcache_bytes) {
        char cache[32];
        format_bytes(n->memcache_bytes, cache, sizeof(cache));
        fprintf(out, "; %s memory-side cache in front", cache);
    }
    fprintf(out, "; %s%s\n", fw, n->usable ? "" : "; its cores are not usable by this run");
}

void report_memory_text(FILE *out, const struct node_memory *m)
{
    if (m->count == 0) {
        fprintf(out, "Memory nodes: none found by hwloc\n");
        return;
    }
    if (m->count == 1) {
        fprintf(out, "Memory node");
        node_line(out, m, &m->nodes[0]);
        return;
    }
    uint64_t total = 0;
    for (int i = 0; i < m->count; i++)
        total += m->nodes[i].bytes;
    char size[32];
    format_bytes(total, size, sizeof(size));
    fprintf(out, "Memory nodes: %d NUMA node%s, %s in all, %d tier%s; %s\n", m->count,
            m->count == 1 ? "" : "s", size, m->tier_count, m->tier_count == 1 ? "" : "s",
            m->hmat ? "the firmware's figures (ACPI HMAT, read by hwloc) from each node's "
                      "nearest cores"
                    : "no HMAT: the firmware gives no bandwidth or latency");
    for (int t = 0; t < m->tier_count; t++) {
        const struct mem_tier *tier = &m->tiers[t];
        char nodes[96];
        node_memory_tier_list(m, t, nodes, sizeof(nodes));
        format_bytes(tier->bytes, size, sizeof(size));
        fprintf(out, "Tier %s (%s): node%s %s, %s\n", tier->name, tier->kind,
                tier->count == 1 ? "" : "s", nodes, size);
        for (int i = 0; i < m->count; i++)
            if (m->nodes[i].tier == t) node_line(out, m, &m->nodes[i]);
    }
}

static json_t *firmware_json(const struct mem_firmware *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "bandwidth_mbps", positive_or_null(f->bandwidth));
    json_object_set_new(o, "read_bandwidth_mbps", positive_or_null(f->read_bandwidth));
    json_object_set_new(o, "write_bandwidth_mbps", positive_or_null(f->write_bandwidth));
    json_object_set_new(o, "latency_ns", positive_or_null(f->latency));
    json_object_set_new(o, "read_latency_ns", positive_or_null(f->read_latency));
    json_object_set_new(o, "write_latency_ns", positive_or_null(f->write_latency));
    return o;
}

static json_t *node_json(const struct node_memory *m, const struct mem_node *n)
{
    char cpus[256] = "";
    if (n->initiator) hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), n->initiator);
    json_t *o = json_object();
    json_object_set_new(o, "os_index", json_integer(n->os));
    json_object_set_new(o, "hwloc_logical_index", json_integer(n->logical));
    json_object_set_new(o, "bytes", json_integer((json_int_t)n->bytes));
    json_object_set_new(o, "subtype", string_or_null(n->subtype));
    json_object_set_new(o, "kind", json_string(m->tiers[n->tier].kind));
    json_object_set_new(o, "has_cpus", json_boolean(n->has_cpus));
    json_object_set_new(o, "has_cpus_source", json_string(n->cpus_known ? "sysfs" : "inferred"));
    json_object_set_new(o, "nearest_cpus", n->initiator ? json_string(cpus) : json_null());
    json_object_set_new(o, "nearest_node",
                        n->initiator_node >= 0 ? json_integer(n->initiator_node) : json_null());
    json_object_set_new(o, "nearest_from", string_or_null(n->initiator_source));
    json_object_set_new(o, "usable", json_boolean(n->usable));
    json_object_set_new(o, "firmware", firmware_json(&n->firmware));
    json_object_set_new(o, "memory_side_cache_bytes", positive_or_null(n->memcache_bytes));
    json_object_set_new(o, "memory_side_cache_levels", json_integer(n->memcache_levels));
    json_object_set_new(o, "tier", json_string(m->tiers[n->tier].name));
    return o;
}

json_t *report_memory_json(const struct node_memory *m)
{
    json_t *nodes = json_array(), *tiers = json_array();
    for (int i = 0; i < m->count; i++)
        json_array_append_new(nodes, node_json(m, &m->nodes[i]));
    for (int t = 0; t < m->tier_count; t++) {
        json_t *list = json_array();
        for (int i = 0; i < m->count; i++)
            if (m->nodes[i].tier == t) json_array_append_new(list, json_integer(m->nodes[i].os));
        const struct mem_tier *tier = &m->tiers[t];
        json_array_append_new(tiers, json_pack("{s:s,s:s,s:b,s:o,s:I}", "name", tier->name, "kind",
                                               tier->kind, "has_cpus", tier->has_cpus, "nodes",
                                               list, "bytes", (json_int_t)tier->bytes));
    }
    return json_pack("{s:b,s:o,s:o}", "hmat", m->hmat, "nodes", nodes, "tiers", tiers);
}
