/* The NUMA bandwidth matrix (--matrix numa): rows are the NUMA nodes whose cores ran the
 * threads (nodes with cores), columns the NUMA nodes the arrays were bound to (every node),
 * all by the OS's numbers. Each cell is one run, with the firmware's figure for its pair. */
#include "src/stream/report_stream_matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/int_set.h"
#include "src/base/json_values.h"
#include "src/measure/report_locality.h"

#define RULE "-------------------------------------------------------------\n"
#define ONE_NODE_NOTE "this machine has one NUMA node: the matrix is 1x1, local memory only"

bool report_stream_is_matrix(const struct stream_result *stream)
{
    return stream->n_runs > 0 && stream->runs[0].config.numa_cell;
}

/* The matrix's columns: every node a cell bound arrays to, in the OS's order, into cols[]
 * (room for n_runs). Returns how many. */
static int columns(const struct stream_result *stream, int *cols)
{
    int n = 0;
    for (size_t i = 0; i < stream->n_runs; i++)
        n = int_set_add(cols, n, stream->runs[i].config.mem_node);
    return n;
}

static const struct run_result *cell(const struct stream_result *stream, int cpu, int mem)
{
    for (size_t i = 0; i < stream->n_runs; i++)
        if (stream->runs[i].config.cpu_node == cpu && stream->runs[i].config.mem_node == mem)
            return &stream->runs[i];
    return NULL;
}

static const struct kernel_result *rate(const struct run_result *r, int kernel)
{
    for (int i = 0; r && i < r->n_results; i++)
        if ((int)r->results[i].kernel == kernel) return &r->results[i];
    return NULL;
}

void report_stream_line_end(FILE *out, const struct run_result *r, const char *against)
{
    if (!r->measured) {
        fprintf(out, "; planned\n");
        return;
    }
    char line[300];
    locality_text(&r->locality, against, line, sizeof(line));
    fprintf(out, "; %s; memory: %s\n", r->validation.passed ? "validated" : "FAILED validation",
            line);
    for (int w = 0; w < r->n_warnings; w++)
        fprintf(out, "  WARNING: %s\n", r->warnings[w]);
}

static void write_cells(FILE *out, const struct stream_result *stream)
{
    for (size_t i = 0; i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        const struct run_config *c = &r->config;
        char pus[256] = "", against[48];
        for (int t = 0; t < r->n_placement && strlen(pus) + 16 < sizeof(pus); t++)
            snprintf(pus + strlen(pus), sizeof(pus) - strlen(pus), "%s%d", t ? "," : "",
                     r->placement[t].pu);
        fprintf(out, "Cell cpu %d mem %d: %u thread%s on PUs %s", c->cpu_node, c->mem_node,
                c->threads, c->threads == 1 ? "" : "s", pus);
        snprintf(against, sizeof(against), "node %d", c->mem_node);
        report_stream_line_end(out, r, against);
    }
}

static void write_header(FILE *out, const int *cols, int n_cols)
{
    fprintf(out, "cpu\\mem");
    for (int m = 0; m < n_cols; m++)
        fprintf(out, " %11d%s", cols[m], m + 1 < n_cols ? " " : "");
    fputc('\n', out);
}

/* One row per node whose cores ran (runs are in row order), a figure per column:
 * the kernel's best rate, or (kernel < 0) the firmware's MB/s, or (ratio) rate / firmware. */
static void write_table(FILE *out, const struct stream_result *stream, int kernel, bool ratio,
                        const int *cols, int n_cols)
{
    write_header(out, cols, n_cols);
    int last_cpu = -1;
    for (size_t i = 0; i < stream->n_runs; i++) {
        int cpu = stream->runs[i].config.cpu_node;
        if (cpu == last_cpu) continue;
        last_cpu = cpu;
        fprintf(out, "%7d", cpu);
        for (int m = 0; m < n_cols; m++) {
            const struct run_result *r = cell(stream, cpu, cols[m]);
            const struct kernel_result *k = kernel >= 0 ? rate(r, kernel) : NULL;
            double fw = r ? (double)r->config.firmware_mbps : 0;
            bool rated = r && r->measured && k;
            char mark = rated ? locality_mark(&r->locality) : ' ';
            if (kernel < 0 && fw > 0)
                fprintf(out, " %11.0f", fw);
            else if (rated && !ratio)
                fprintf(out, " %11.1f", k->best_rate_mbps);
            else if (rated && fw > 0)
                fprintf(out, " %11.2f", k->best_rate_mbps / fw);
            else
                fprintf(out, " %11s", "-");
            if (m + 1 < n_cols || mark != ' ') fputc(kernel < 0 ? ' ' : mark, out);
        }
        fputc('\n', out);
    }
}

static bool any_firmware(const struct stream_result *stream)
{
    for (size_t i = 0; i < stream->n_runs; i++)
        if (stream->runs[i].config.firmware_mbps) return true;
    return false;
}

/* What the firmware says of each cell: planned or measured, it was not measured here. */
static void write_firmware(FILE *out, const struct stream_result *stream, const int *cols,
                           int n_cols)
{
    if (!any_firmware(stream)) {
        fprintf(out, "Firmware (ACPI HMAT, read by hwloc): no HMAT figure for any cell\n");
        return;
    }
    fprintf(out, "Firmware (ACPI HMAT, read by hwloc) bandwidth, MB/s, from the row's cores to "
                 "the column's node; - = no HMAT figure\n");
    write_table(out, stream, -1, false, cols, n_cols);
}

void report_stream_matrix_text(FILE *out, const struct stream_result *stream, bool dry_run)
{
    const struct run_config *c = &stream->runs[0].config;
    int *cols = malloc(stream->n_runs * sizeof(int));
    if (!cols) return;
    int n_mem = columns(stream, cols);
    char size[32];
    format_bytes(c->array_bytes, size, sizeof(size));
    fprintf(out, "NUMA bandwidth matrix (--matrix numa): %zu cell%s\n", stream->n_runs,
            stream->n_runs == 1 ? "" : "s");
    fprintf(out, "Array size = %llu (elements), %s per array (%s); pages %s; %s stores; %s\n",
            (unsigned long long)c->elements, size, c->size_label, c->pages, c->stores,
            isa_name(c->isa));
    fprintf(out, "Threads: one per core of the row's NUMA node, bound compact; arrays bound to "
                 "the column's node before first touch; nodes by the OS's numbers, rows the "
                 "nodes with cores\n");
    if (n_mem == 1) fprintf(out, "NOTE: %s\n", ONE_NODE_NOTE);
    write_cells(out, stream);
    write_firmware(out, stream, cols, n_mem);
    fprintf(out, RULE);
    bool marked = false, unknown = false;
    for (size_t i = 0; i < stream->n_runs; i++) {
        marked |= stream->runs[i].measured && locality_mark(&stream->runs[i].locality) == '*';
        unknown |= stream->runs[i].measured && locality_mark(&stream->runs[i].locality) == '?';
    }
    for (int k = 0; !dry_run && k < KERNEL_COUNT; k++) {
        if (!(c->kernel_mask & (1u << k))) continue;
        fprintf(out,
                "%s best rate, MB/s: rows = threads on the cores of NUMA node, columns = arrays "
                "on NUMA node\n",
                kernel_table[k].name);
        write_table(out, stream, k, false, cols, n_mem);
        if (!any_firmware(stream)) continue;
        fprintf(out, "%s measured / firmware (HMAT):\n", kernel_table[k].name);
        write_table(out, stream, k, true, cols, n_mem);
    }
    free(cols);
    if (dry_run) return;
    if (marked)
        fprintf(out,
                "* fewer than %.0f%% of the cell's sampled pages on its memory node: not "
                "the rate of that node (see the cell's warning)\n",
                100.0 * LOCALITY_MIN_FRACTION);
    if (unknown) fprintf(out, "? page locality unknown for the cell (see the cell's line)\n");
    fprintf(out, RULE);
}

json_t *report_stream_matrix_json(const struct stream_result *stream)
{
    const struct run_config *c0 = &stream->runs[0].config;
    json_t *kernels = json_array();
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (c0->kernel_mask & (1u << k))
            json_array_append_new(kernels, json_string(kernel_table[k].name));
    json_t *cells = json_array();
    for (size_t i = 0; i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        json_t *rates = json_object(), *ratios = json_object();
        double fw = (double)r->config.firmware_mbps;
        for (int k = 0; k < r->n_results; k++) {
            const char *name = kernel_table[r->results[k].kernel].name;
            double mbps = r->measured ? r->results[k].best_rate_mbps : NAN;
            json_object_set_new(rates, name, real_or_null(mbps));
            json_object_set_new(ratios, name, real_or_null(fw > 0 ? mbps / fw : NAN));
        }
        json_t *o =
            json_pack("{s:i,s:i,s:i,s:I}", "cpu_node", r->config.cpu_node, "mem_node",
                      r->config.mem_node, "threads", (int)r->config.threads, "run", (json_int_t)i);
        json_object_set_new(o, "rates", rates);
        json_object_set_new(o, "firmware_mbps",
                            fw > 0 ? json_integer((json_int_t)r->config.firmware_mbps)
                                   : json_null());
        json_object_set_new(o, "ratio_to_firmware", ratios);
        json_object_set_new(o, "validated",
                            r->measured ? json_boolean(r->validation.passed) : json_null());
        json_object_set_new(o, "locality", r->measured ? locality_json(&r->locality) : json_null());
        json_array_append_new(cells, o);
    }
    int *cols = malloc(stream->n_runs * sizeof(int));
    int n_mem = cols ? columns(stream, cols) : 0;
    json_t *m = json_pack("{s:s,s:i}", "domain", "numa", "nodes", n_mem);
    json_t *rows = json_array(), *columns_json = json_array();
    for (size_t i = 0; i < stream->n_runs; i++)
        if (i == 0 || stream->runs[i].config.cpu_node != stream->runs[i - 1].config.cpu_node)
            json_array_append_new(rows, json_integer(stream->runs[i].config.cpu_node));
    for (int j = 0; j < n_mem; j++)
        json_array_append_new(columns_json, json_integer(cols[j]));
    free(cols);
    json_object_set_new(m, "rows", rows);
    json_object_set_new(m, "columns", columns_json);
    json_object_set_new(m, "note", n_mem == 1 ? json_string(ONE_NODE_NOTE) : json_null());
    json_object_set_new(m, "kernels", kernels);
    json_object_set_new(m, "cells", cells);
    return m;
}
