/* The NUMA bandwidth matrix (--matrix numa): rows are the NUMA nodes whose cores ran the
 * threads, columns the NUMA nodes the arrays were bound to. Each cell is one run. */
#include "src/report/report_matrix.h"

#include <string.h>

#include "src/base/json_values.h"
#include "src/measure/report_locality.h"

#define RULE "-------------------------------------------------------------\n"
#define ONE_NODE_NOTE "this machine has one NUMA node: the matrix is 1x1, local memory only"

bool report_is_matrix(const struct report *rep)
{
    return rep->n_runs > 0 && rep->runs[0].config.numa_cell;
}

static int columns(const struct report *rep)
{
    int n = rep->topo.numa_nodes;
    for (size_t i = 0; i < rep->n_runs; i++)
        if (rep->runs[i].config.mem_node + 1 > n) n = rep->runs[i].config.mem_node + 1;
    return n;
}

static const struct run_result *cell(const struct report *rep, int cpu, int mem)
{
    for (size_t i = 0; i < rep->n_runs; i++)
        if (rep->runs[i].config.cpu_node == cpu && rep->runs[i].config.mem_node == mem)
            return &rep->runs[i];
    return NULL;
}

static const struct kernel_result *rate(const struct run_result *r, int kernel)
{
    for (int i = 0; r && i < r->n_results; i++)
        if ((int)r->results[i].kernel == kernel) return &r->results[i];
    return NULL;
}

static void write_cells(FILE *out, const struct report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        const struct run_result *r = &rep->runs[i];
        const struct run_config *c = &r->config;
        char pus[256] = "", against[48], line[300];
        for (int t = 0; t < r->n_placement && strlen(pus) + 16 < sizeof(pus); t++)
            snprintf(pus + strlen(pus), sizeof(pus) - strlen(pus), "%s%d", t ? "," : "",
                     r->placement[t].pu);
        fprintf(out, "Cell cpu %d mem %d: %u thread%s on PUs %s", c->cpu_node, c->mem_node,
                c->threads, c->threads == 1 ? "" : "s", pus);
        if (!r->measured) {
            fprintf(out, "; planned\n");
            continue;
        }
        snprintf(against, sizeof(against), "node %d", c->mem_node);
        locality_text(&r->locality, against, line, sizeof(line));
        fprintf(out, "; %s; memory: %s\n", r->validation.passed ? "validated" : "FAILED validation",
                line);
        for (int w = 0; w < r->n_warnings; w++)
            fprintf(out, "  WARNING: %s\n", r->warnings[w]);
    }
}

static void write_table(FILE *out, const struct report *rep, int kernel, int n_mem)
{
    fprintf(out,
            "%s best rate, MB/s: rows = threads on the cores of NUMA node, columns = arrays "
            "on NUMA node\n",
            kernel_table[kernel].name);
    fprintf(out, "cpu\\mem");
    for (int m = 0; m < n_mem; m++)
        fprintf(out, " %11d%s", m, m + 1 < n_mem ? " " : "");
    fputc('\n', out);
    int last_cpu = -1;
    for (size_t i = 0; i < rep->n_runs; i++) {
        int cpu = rep->runs[i].config.cpu_node;
        if (cpu == last_cpu) continue;
        last_cpu = cpu;
        fprintf(out, "%7d", cpu);
        for (int m = 0; m < n_mem; m++) {
            const struct run_result *r = cell(rep, cpu, m);
            const struct kernel_result *k = rate(r, kernel);
            char mark = r && r->measured && k ? locality_mark(&r->locality) : ' ';
            if (!r || !r->measured || !k)
                fprintf(out, " %11s", "-");
            else
                fprintf(out, " %11.1f", k->best_rate_mbps);
            if (m + 1 < n_mem || mark != ' ') fputc(mark, out);
        }
        fputc('\n', out);
    }
}

void report_matrix_text(FILE *out, const struct report *rep)
{
    const struct run_config *c = &rep->runs[0].config;
    int n_mem = columns(rep);
    char size[32];
    format_bytes(c->array_bytes, size, sizeof(size));
    fprintf(out, "NUMA bandwidth matrix (--matrix numa): %zu cell%s\n", rep->n_runs,
            rep->n_runs == 1 ? "" : "s");
    fprintf(out, "Array size = %llu (elements), %s per array (%s); pages %s; %s stores; %s\n",
            (unsigned long long)c->elements, size, c->size_label, c->pages, c->stores,
            isa_name(c->isa));
    fprintf(out, "Threads: one per core of the row's NUMA node, bound compact; arrays bound to "
                 "the column's node before first touch\n");
    if (n_mem == 1) fprintf(out, "NOTE: %s\n", ONE_NODE_NOTE);
    write_cells(out, rep);
    if (rep->dry_run) {
        fprintf(out, RULE);
        return;
    }
    fprintf(out, RULE);
    bool marked = false, unknown = false;
    for (size_t i = 0; i < rep->n_runs; i++) {
        marked |= rep->runs[i].measured && locality_mark(&rep->runs[i].locality) == '*';
        unknown |= rep->runs[i].measured && locality_mark(&rep->runs[i].locality) == '?';
    }
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (c->kernel_mask & (1u << k)) write_table(out, rep, k, n_mem);
    if (marked)
        fprintf(out,
                "* fewer than %.0f%% of the cell's sampled pages on its memory node: not "
                "the rate of that node (see the cell's warning)\n",
                100.0 * LOCALITY_MIN_FRACTION);
    if (unknown) fprintf(out, "? page locality unknown for the cell (see the cell's line)\n");
    fprintf(out, RULE);
}

json_t *report_matrix_json(const struct report *rep)
{
    const struct run_config *c0 = &rep->runs[0].config;
    json_t *kernels = json_array();
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (c0->kernel_mask & (1u << k))
            json_array_append_new(kernels, json_string(kernel_table[k].name));
    json_t *cells = json_array();
    for (size_t i = 0; i < rep->n_runs; i++) {
        const struct run_result *r = &rep->runs[i];
        json_t *rates = json_object();
        for (int k = 0; k < r->n_results; k++)
            json_object_set_new(rates, kernel_table[r->results[k].kernel].name,
                                r->measured ? real_or_null(r->results[k].best_rate_mbps)
                                            : json_null());
        json_t *o =
            json_pack("{s:i,s:i,s:i,s:I}", "cpu_node", r->config.cpu_node, "mem_node",
                      r->config.mem_node, "threads", (int)r->config.threads, "run", (json_int_t)i);
        json_object_set_new(o, "rates", rates);
        json_object_set_new(o, "validated",
                            r->measured ? json_boolean(r->validation.passed) : json_null());
        json_object_set_new(o, "locality", r->measured ? locality_json(&r->locality) : json_null());
        json_array_append_new(cells, o);
    }
    int n_mem = columns(rep);
    json_t *m = json_pack("{s:s,s:i}", "domain", "numa", "nodes", n_mem);
    json_object_set_new(m, "note", n_mem == 1 ? json_string(ONE_NODE_NOTE) : json_null());
    json_object_set_new(m, "kernels", kernels);
    json_object_set_new(m, "cells", cells);
    return m;
}
