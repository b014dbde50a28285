/* The memory tiers' runs (--matrix tiers), and what a plain run did not measure. */
#include "src/stream/report_stream_tiers.h"

#include <string.h>

#include "affinity/memory_nodes.h"
#include "src/base/json_values.h"
#include "src/measure/report_locality.h"
#include "src/stream/report_stream_matrix.h"

#define RULE "-------------------------------------------------------------\n"

bool report_stream_is_tiers(const struct stream_result *stream)
{
    return stream_first_tier_run(stream) < stream->n_runs;
}

/* The kernel the firmware's bandwidth is set against: Triad when it ran, else the last. */
static int ratio_kernel(unsigned mask)
{
    if (mask & (1u << KERNEL_TRIAD)) return KERNEL_TRIAD;
    int last = -1;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (mask & (1u << k)) last = k;
    return last;
}

static const struct kernel_result *rate(const struct run_result *r, int kernel)
{
    for (int i = 0; r && i < r->n_results; i++)
        if ((int)r->results[i].kernel == kernel) return &r->results[i];
    return NULL;
}

/* The nodes a tier run's threads were bound to, as a set of OS numbers. */
static hwloc_bitmap_t run_nodes(const struct run_config *c)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (unsigned t = 0; set && c->thread_node && t < c->threads; t++)
        hwloc_bitmap_set(set, (unsigned)c->thread_node[t]);
    return set;
}

static uint64_t firmware_mbps(const struct node_memory *memory, const struct run_config *c)
{
    return memory ? node_memory_tier_firmware_mbps(memory, c->tier, c->thread_node, c->threads) : 0;
}

static void write_tier_line(FILE *out, const struct run_result *r)
{
    const struct run_config *c = &r->config;
    char nodes[96] = "", against[64];
    hwloc_bitmap_t set = run_nodes(c);
    if (set) hwloc_bitmap_list_snprintf(nodes, sizeof(nodes), set);
    hwloc_bitmap_free(set);
    fprintf(out,
            "Tier %s: %u thread%s, each thread's arrays bound to its nearest node of the "
            "tier: node%s %s",
            c->tier_name, c->threads, c->threads == 1 ? "" : "s",
            strchr(nodes, ',') || strchr(nodes, '-') ? "s" : "", nodes);
    fprintf(out, " (thread:node");
    for (unsigned t = 0; t < c->threads; t++)
        fprintf(out, " %u:%d", t, c->thread_node[t]);
    fprintf(out, ")");
    snprintf(against, sizeof(against), "their thread's node of tier %s", c->tier_name);
    report_stream_line_end(out, r, against);
}

static void write_not_measured(FILE *out, const struct stream_result *stream,
                               const struct measure_report_facts *f)
{
    const struct node_memory *m = f->memory;
    for (int t = 0; m && t < m->tier_count; t++) {
        bool ran = false;
        for (size_t i = 0; i < stream->n_runs; i++)
            ran |= stream->runs[i].config.tier == t;
        if (ran) continue;
        char nodes[96];
        node_memory_tier_list(m, t, nodes, sizeof(nodes));
        fprintf(out, "Tier %s (nodes %s): not measured: no CPU usable by this run is near it\n",
                m->tiers[t].name, nodes);
    }
}

static void write_table(FILE *out, const struct stream_result *stream,
                        const struct measure_report_facts *f, unsigned mask)
{
    int rk = ratio_kernel(mask);
    fprintf(out, "%-14s %-10s %7s", "Tier", "Nodes", "Threads");
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (mask & (1u << k)) fprintf(out, " %12s", kernel_table[k].name);
    fprintf(out, " %14s %s/firmware\n", "Firmware MB/s", kernel_table[rk].name);
    for (size_t i = stream_first_tier_run(stream); i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        char nodes[96] = "";
        hwloc_bitmap_t set = run_nodes(&r->config);
        if (set) hwloc_bitmap_list_snprintf(nodes, sizeof(nodes), set);
        hwloc_bitmap_free(set);
        fprintf(out, "%-14s %-10s %7u", r->config.tier_name, nodes, r->config.threads);
        for (int k = 0; k < KERNEL_COUNT; k++) {
            if (!(mask & (1u << k))) continue;
            const struct kernel_result *kr = rate(r, k);
            if (kr && r->measured)
                fprintf(out, " %12.1f", kr->best_rate_mbps);
            else
                fprintf(out, " %12s", "-");
        }
        uint64_t fw = firmware_mbps(f->memory, &r->config);
        const struct kernel_result *kr = rate(r, rk);
        if (fw)
            fprintf(out, " %14llu", (unsigned long long)fw);
        else
            fprintf(out, " %14s", "no HMAT");
        if (fw && kr && r->measured)
            fprintf(out, " %.2f\n", kr->best_rate_mbps / (double)fw);
        else
            fprintf(out, " -\n");
    }
}

void report_stream_tiers_text(FILE *out, const struct stream_result *stream,
                              const struct measure_report_facts *f)
{
    size_t first = stream_first_tier_run(stream), n = stream->n_runs - first;
    const struct run_config *c = &stream->runs[first].config;
    char size[32];
    format_bytes(c->array_bytes, size, sizeof(size));
    fprintf(out, "Memory tiers (%s): %zu tier%s %s, each from the cores nearest it\n",
            c->verdict_tier ? "the verdict's tier runs, after run 1" : "--matrix tiers", n,
            n == 1 ? "" : "s", f->dry_run ? "planned" : "measured");
    fprintf(out, "Array size = %llu (elements), %s per array (%s); pages %s; %s stores; %s\n",
            (unsigned long long)c->elements, size, c->size_label, c->pages, c->stores,
            isa_name(c->isa));
    for (size_t i = first; i < stream->n_runs; i++)
        write_tier_line(out, &stream->runs[i]);
    write_not_measured(out, stream, f);
    fprintf(out, RULE);
    if (f->dry_run) return;
    write_table(out, stream, f, c->kernel_mask);
    fprintf(out, "Firmware MB/s: the HMAT bandwidth to each node from its nearest cores, summed "
                 "over the tier's nodes\n" RULE);
}

static json_t *tier_row(const struct stream_result *stream, const struct measure_report_facts *f,
                        size_t i, int rk)
{
    const struct run_result *r = &stream->runs[i];
    json_t *nodes = json_array(), *rates = json_object();
    hwloc_bitmap_t set = run_nodes(&r->config);
    unsigned os;
    hwloc_bitmap_foreach_begin(os, set) json_array_append_new(nodes, json_integer(os));
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(r->config.kernel_mask & (1u << k))) continue;
        const struct kernel_result *kr = rate(r, k);
        json_object_set_new(rates, kernel_table[k].name,
                            kr && r->measured ? json_real(kr->best_rate_mbps) : json_null());
    }
    uint64_t fw = firmware_mbps(f->memory, &r->config);
    const struct kernel_result *kr = rate(r, rk);
    json_t *row =
        json_pack("{s:s,s:o,s:i,s:I,s:o}", "tier", r->config.tier_name, "nodes", nodes, "threads",
                  (int)r->config.threads, "run", (json_int_t)i, "rates", rates);
    json_object_set_new(row, "firmware_mbps", fw ? json_integer((json_int_t)fw) : json_null());
    json_object_set_new(row, "firmware_ratio",
                        fw && kr && r->measured ? json_real(kr->best_rate_mbps / (double)fw)
                                                : json_null());
    json_object_set_new(row, "validated",
                        r->measured ? json_boolean(r->validation.passed) : json_null());
    json_object_set_new(row, "locality", r->measured ? locality_json(&r->locality) : json_null());
    return row;
}

json_t *report_stream_tiers_json(const struct stream_result *stream,
                                 const struct measure_report_facts *f)
{
    size_t first = stream_first_tier_run(stream);
    unsigned mask = stream->runs[first].config.kernel_mask;
    int rk = ratio_kernel(mask);
    json_t *kernels = json_array(), *rows = json_array(), *missing = json_array();
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (mask & (1u << k)) json_array_append_new(kernels, json_string(kernel_table[k].name));
    for (size_t i = first; i < stream->n_runs; i++)
        json_array_append_new(rows, tier_row(stream, f, i, rk));
    const struct node_memory *m = f->memory;
    for (int t = 0; m && t < m->tier_count; t++) {
        bool ran = false;
        for (size_t i = 0; i < stream->n_runs; i++)
            ran |= stream->runs[i].config.tier == t;
        if (!ran)
            json_array_append_new(missing, json_pack("{s:s,s:s}", "tier", m->tiers[t].name,
                                                     "reason", "no usable CPU is near it"));
    }
    return json_pack("{s:b,s:o,s:s,s:o,s:o}", "for_verdict",
                     stream->runs[first].config.verdict_tier, "kernels", kernels, "ratio_kernel",
                     kernel_table[rk].name, "rows", rows, "not_measured", missing);
}

/* The nodes whose memory a plain run's threads first-touched: their PUs' nodes. */
static hwloc_bitmap_t measured_nodes(const struct stream_result *stream,
                                     const struct node_memory *memory)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (size_t i = 0; set && i < stream->n_runs; i++)
        for (int t = 0; t < stream->runs[i].n_placement; t++) {
            int pu = stream->runs[i].placement[t].pu;
            int node = pu >= 0 ? node_memory_pu_node(memory, (unsigned)pu) : -1;
            if (node >= 0) hwloc_bitmap_set(set, (unsigned)node);
        }
    return set;
}

static bool plain_runs(const struct stream_result *stream, const struct measure_report_facts *f)
{
    return f->memory && stream->n_runs > 0 && !f->dry_run && !report_stream_is_tiers(stream) &&
           !stream->runs[0].config.numa_cell;
}

void report_stream_unmeasured_text(FILE *out, const struct stream_result *stream,
                                   const struct measure_report_facts *f)
{
    if (!plain_runs(stream, f)) return;
    hwloc_bitmap_t set = measured_nodes(stream, f->memory);
    const struct node_memory *m = f->memory;
    bool any = false;
    for (int i = 0; set && i < m->count; i++) {
        const struct mem_node *n = &m->nodes[i];
        if (hwloc_bitmap_isset(set, n->os)) continue;
        char size[32], list[96];
        format_bytes(n->bytes, size, sizeof(size));
        if (!any) {
            hwloc_bitmap_list_snprintf(list, sizeof(list), set);
            fprintf(out,
                    "Measured: the local memory of the threads' nodes, node%s %s. Not "
                    "measured:",
                    hwloc_bitmap_weight(set) == 1 ? "" : "s", list);
        }
        fprintf(out, "%s node %u (%s, %s, tier %s)", any ? "," : "", n->os, m->tiers[n->tier].kind,
                size, m->tiers[n->tier].name);
        any = true;
    }
    if (any) fprintf(out, "; measure every tier with --matrix tiers\n");
    hwloc_bitmap_free(set);
}

void report_stream_unmeasured_json(json_t *memory, const struct stream_result *stream,
                                   const struct measure_report_facts *f)
{
    if (!plain_runs(stream, f)) return;
    hwloc_bitmap_t set = measured_nodes(stream, f->memory);
    json_t *yes = json_array(), *no = json_array();
    for (int i = 0; set && i < f->memory->count; i++) {
        unsigned os = f->memory->nodes[i].os;
        json_array_append_new(hwloc_bitmap_isset(set, os) ? yes : no, json_integer(os));
    }
    hwloc_bitmap_free(set);
    json_object_set_new(memory, "measured_nodes", yes);
    json_object_set_new(memory, "unmeasured_nodes", no);
}
