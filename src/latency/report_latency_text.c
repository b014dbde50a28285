/* --latency as text and as one line (-q). */
#include "src/latency/report_latency.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/int_set.h"
#include "src/base/parse.h"
#include "src/measure/report_locality.h"

void report_latency_page_words(uint64_t bytes, char *buf, size_t len)
{
    if (bytes == 0)
        snprintf(buf, len, "unknown");
    else if (bytes % (1ull << 30) == 0)
        snprintf(buf, len, "%llu GiB", (unsigned long long)(bytes >> 30));
    else if (bytes % (1ull << 20) == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
    else
        snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
}

static void cycles_words(const struct latency_point *p, double ns, char *buf, size_t len)
{
    double ghz = latency_core_ghz(p);
    if (ghz > 0)
        snprintf(buf, len, "%.0f cycles at %.2f GHz measured", ns * ghz, ghz);
    else
        snprintf(buf, len, "cycles unknown: the core clock could not be measured here");
}

static void write_idle(FILE *out, const struct latency_result *l)
{
    const struct latency_point *p = &l->idle;
    char buffer[32], page[32], cycles[96];
    format_bytes(p->buffer_bytes, buffer, sizeof(buffer));
    report_latency_page_words(p->backing.page_size_bytes, page, sizeof(page));
    if (!p->measured) {
        fprintf(out,
                "Latency: not measured%s%s, buffer %s (%s), pages %s, CPU %d, memory node %d\n",
                p->why[0] ? ": " : "", p->why, buffer, l->size_rule, p->pages, p->cpu, p->mem_node);
        return;
    }
    cycles_words(p, p->ns, cycles, sizeof(cycles));
    fprintf(out, "Latency: idle %.1f ns (%s), buffer %s on %s pages, CPU %d, memory node %d\n",
            p->ns, cycles, buffer, page, p->cpu, p->mem_node);
    fprintf(out,
            "  median of %d repetitions of %llu dependent loads: min %.1f, max %.1f ns "
            "(spread %.1f%%)\n",
            p->repetitions, (unsigned long long)p->hops, p->ns_min, p->ns_max,
            p->ns > 0 ? 100.0 * (p->ns_max - p->ns_min) / p->ns : 0.0);
    fprintf(out,
            "  chase: one random cycle over %llu cache lines, no hop within a page; %s\n"
            "  buffer: %s; --pages %s, %s (%s)\n",
            (unsigned long long)p->lines,
            p->validated ? "validated (every repetition ended on the predicted line)"
                         : "NOT VALIDATED",
            l->size_rule, p->pages,
            p->backing.verified ? "verified in /proc/self/smaps" : "NOT verified", p->backing.how);
    if (p->backing.thp_fraction > 0)
        fprintf(out, "  transparent huge pages: %.0f%% of the buffer\n",
                100.0 * p->backing.thp_fraction);
    char node[32], loc[240];
    snprintf(node, sizeof(node), "memory node %d", p->mem_node);
    locality_text(&p->locality, node, loc, sizeof(loc));
    fprintf(out, "  memory: %s\n", loc);
}

/* The matrix's columns: every node a cell's buffer was bound to, OS order. Returns how many. */
static int pair_columns(const struct latency_result *l, int *cols)
{
    int n = 0;
    for (size_t i = 0; i < l->n_pairs; i++)
        n = int_set_add(cols, n, l->pairs[i].mem_node);
    return n;
}

static const struct latency_pair *pair_at(const struct latency_result *l, int cpu, int mem)
{
    for (size_t i = 0; i < l->n_pairs; i++)
        if (l->pairs[i].cpu_node == cpu && l->pairs[i].mem_node == mem) return &l->pairs[i];
    return NULL;
}

enum pair_figure { PAIR_NS, PAIR_FIRMWARE, PAIR_RATIO };

/* Rows the nodes with cores (pairs are in row order), a figure per column, "-" for none. */
static void write_pairs(FILE *out, const struct latency_result *l, const int *cols, int n,
                        enum pair_figure what)
{
    fprintf(out, "%8s", "cpu\\mem");
    for (int j = 0; j < n; j++)
        fprintf(out, " %9d", cols[j]);
    for (size_t i = 0; i < l->n_pairs; i++) {
        if (i > 0 && l->pairs[i].cpu_node == l->pairs[i - 1].cpu_node) continue;
        fprintf(out, "\n%8d", l->pairs[i].cpu_node);
        for (int j = 0; j < n; j++) {
            const struct latency_pair *q = pair_at(l, l->pairs[i].cpu_node, cols[j]);
            double fw = q ? (double)q->firmware_ns : 0;
            if (what == PAIR_NS && q && q->measured)
                fprintf(out, " %8.1f%c", q->ns, locality_mark(&q->locality));
            else if (what == PAIR_FIRMWARE && fw > 0)
                fprintf(out, " %9.0f", fw);
            else if (what == PAIR_RATIO && q && q->measured && fw > 0)
                fprintf(out, " %9.2f", q->ns / fw);
            else
                fprintf(out, " %9s", "-");
        }
    }
    fputc('\n', out);
}

/* --latency --matrix numa: rows the chasing CPU's node, columns the memory's node. */
static void write_matrix(FILE *out, const struct latency_result *l)
{
    int *cols = malloc(l->n_pairs * sizeof(int));
    if (!cols) return;
    int n = pair_columns(l, cols);
    bool firmware = false;
    for (size_t i = 0; i < l->n_pairs; i++)
        firmware |= l->pairs[i].firmware_ns > 0;
    if (!l->dry_run) {
        fprintf(out, "Idle latency matrix, ns: rows = the chasing CPU's NUMA node (its first "
                     "usable PU; nodes with cores), columns = the buffer's NUMA node (OS "
                     "numbers)\n");
        write_pairs(out, l, cols, n, PAIR_NS);
        fprintf(out,
                "  * = under %.0f%% of sampled pages on the column's node, ? = locality "
                "unknown\n",
                100.0 * LOCALITY_MIN_FRACTION);
    }
    if (!firmware)
        fprintf(out, "Firmware (ACPI HMAT, read by hwloc): no HMAT latency for any cell\n");
    else {
        fprintf(out, "Firmware (ACPI HMAT, read by hwloc) latency, ns, from the row's cores to "
                     "the column's node; - = no HMAT figure\n");
        write_pairs(out, l, cols, n, PAIR_FIRMWARE);
        if (!l->dry_run) {
            fprintf(out, "Idle latency measured / firmware (HMAT):\n");
            write_pairs(out, l, cols, n, PAIR_RATIO);
        }
    }
    free(cols);
}

static void write_loaded(FILE *out, const struct latency_result *l)
{
    if (!l->n_steps) {
        fprintf(out, "Loaded latency: not measured: %s\n", l->loaded_why);
        return;
    }
    fprintf(out,
            "Loaded latency: the chase on CPU %d while %d load thread%s (one per other core, "
            "bound) run b = s*a,\n  pausing DELAY spin iterations after each 8 KiB chunk"
            "%s%s:\n",
            l->idle.cpu, l->load_threads, l->load_threads == 1 ? "" : "s",
            l->loaded_measured ? "" : "; ", l->loaded_measured ? "" : l->loaded_why);
    fprintf(out, "  %8s %16s %12s %8s\n", "delay", "bandwidth MB/s", "latency ns", "cycles");
    double ghz = latency_core_ghz(&l->idle);
    for (size_t i = 0; i < l->n_steps; i++) {
        const struct latency_step *s = &l->steps[i];
        fprintf(out, "  %8llu %16.1f %12.1f", (unsigned long long)s->delay, s->bandwidth_mbps,
                s->ns);
        if (ghz > 0)
            fprintf(out, " %8.0f\n", s->ns * ghz);
        else
            fprintf(out, " %8s\n", "unknown");
    }
}

void report_latency_text(FILE *out, const struct latency_result *l)
{
    if (l->dry_run) {
        char buffer[32];
        format_bytes(l->idle.buffer_bytes, buffer, sizeof(buffer));
        fprintf(out,
                "Latency (planned): chase %s (%s) on %s pages, CPU %d, memory node %d; loaded "
                "curve: %s\n",
                buffer, l->size_rule, l->idle.pages, l->idle.cpu, l->idle.mem_node,
                l->load_threads ? "yes" : l->loaded_why);
        if (l->n_pairs) {
            fprintf(out,
                    "Latency matrix (planned): %zu cells, rows the nodes with cores, columns "
                    "every node (OS numbers)\n",
                    l->n_pairs);
            write_matrix(out, l);
        }
        return;
    }
    write_idle(out, l);
    if (l->idle.measured) write_loaded(out, l);
    if (l->n_pairs) write_matrix(out, l);
    for (int w = 0; w < l->n_warnings; w++)
        fprintf(out, "  warning: %s\n", l->warnings[w]);
}

void report_latency_quiet(FILE *out, const struct latency_result *l)
{
    const struct latency_point *p = &l->idle;
    if (!p->measured) {
        fprintf(out, "latency: %s buffer_bytes=%llu pages=%s cpu=%d mem_node=%d\n",
                l->dry_run ? "planned" : "not_measured", (unsigned long long)p->buffer_bytes,
                p->pages, p->cpu, p->mem_node);
        return;
    }
    double ghz = latency_core_ghz(p);
    fprintf(out, "latency: idle_ns=%.1f", p->ns);
    if (ghz > 0)
        fprintf(out, " cycles=%.0f core_ghz=%.2f", p->ns * ghz, ghz);
    else
        fprintf(out, " cycles=unknown");
    fprintf(out, " buffer_bytes=%llu page_size_bytes=%llu cpu=%d mem_node=%d loaded_steps=%zu\n",
            (unsigned long long)p->buffer_bytes, (unsigned long long)p->backing.page_size_bytes,
            p->cpu, p->mem_node, l->n_steps);
}

void report_latency_csv(FILE *out, const struct latency_result *l)
{
    const struct latency_point *p = &l->idle;
    double ghz = latency_core_ghz(p);
    fputs("kind,delay,bandwidth_mbps,ns,cycles,cpu,mem_node,buffer_bytes,page_size_bytes,"
          "cpu_node,firmware_ns,ratio_to_firmware\n",
          out);
    if (!p->measured) return;
    fprintf(out, "idle,,,%.3f,", p->ns);
    if (ghz > 0) fprintf(out, "%.1f", p->ns * ghz);
    fprintf(out, ",%d,%d,%llu,%llu,,,\n", p->cpu, p->mem_node, (unsigned long long)p->buffer_bytes,
            (unsigned long long)p->backing.page_size_bytes);
    for (size_t i = 0; i < l->n_steps; i++) {
        const struct latency_step *s = &l->steps[i];
        fprintf(out, "loaded,%llu,%.1f,%.3f,", (unsigned long long)s->delay, s->bandwidth_mbps,
                s->ns);
        if (ghz > 0) fprintf(out, "%.1f", s->ns * ghz);
        fprintf(out, ",%d,%d,%llu,%llu,,,\n", p->cpu, p->mem_node,
                (unsigned long long)p->buffer_bytes,
                (unsigned long long)p->backing.page_size_bytes);
    }
    for (size_t i = 0; i < l->n_pairs; i++) {
        const struct latency_pair *q = &l->pairs[i];
        fprintf(out, "matrix,,,%.3f,", q->ns);
        if (ghz > 0) fprintf(out, "%.1f", q->ns * ghz);
        fprintf(out, ",%d,%d,%llu,%llu,%d,", q->cpu, q->mem_node,
                (unsigned long long)p->buffer_bytes, (unsigned long long)p->backing.page_size_bytes,
                q->cpu_node);
        if (q->firmware_ns)
            fprintf(out, "%llu,%.3f", (unsigned long long)q->firmware_ns,
                    q->ns / (double)q->firmware_ns);
        else
            fputc(',', out);
        fputc('\n', out);
    }
}
