#include "src/verdict/efficiency.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernel_table.h"
#include "src/stream/results.h"
#include "src/sys/dimm_inventory.h"

/* The kernel the efficiency is of: Triad when the run measured it, else its first. */
static const struct kernel_result *judged_kernel(const struct run_result *run)
{
    for (int i = 0; i < run->n_results; i++)
        if (run->results[i].kernel == KERNEL_TRIAD) return &run->results[i];
    return run->n_results ? &run->results[0] : NULL;
}

__attribute__((format(printf, 2, 3))) static void unknown(struct efficiency *out, const char *fmt,
                                                          ...)
{
    out->known = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why_unknown, sizeof(out->why_unknown), fmt, ap);
    va_end(ap);
}

void efficiency_of(const struct run_result *run, int node_cores, double ceiling_mbps,
                   const char *ceiling_source, const struct cpu_identity *cpu,
                   struct efficiency *out)
{
    memset(out, 0, sizeof(*out));
    out->ceiling_mbps = ceiling_mbps;
    out->ceiling_source = ceiling_source ? ceiling_source : "";
    const struct typical_efficiency *t = cpu ? typical_efficiency_of(cpu) : NULL;
    if (t) {
        out->typical_known = true;
        out->typical_min_pct = t->min_pct;
        out->typical_max_pct = t->max_pct;
        out->cpu_class = t->cpu_class;
        out->typical_source = t->source;
    }
    const struct kernel_result *k = run && run->measured ? judged_kernel(run) : NULL;
    if (!k || k->best_rate_mbps <= 0.0) {
        unknown(out, "no kernel rate was measured");
        return;
    }
    out->kernel = kernel_table[k->kernel].name;
    out->rate_mbps = k->best_rate_mbps;
    if (ceiling_mbps <= 0.0) {
        unknown(out, "the ceiling is %.120s", out->ceiling_source);
        return;
    }
    if (run->config.numa_cell) {
        unknown(out, "a --matrix cell measures one node's memory, not the node's");
        return;
    }
    if (node_cores > 0 && run->config.threads < (unsigned)node_cores) {
        unknown(out,
                "the run used %u threads of the node's %d cores; the ceiling is the whole node's",
                run->config.threads, node_cores);
        return;
    }
    out->known = true;
    out->pct = 100.0 * out->rate_mbps / ceiling_mbps;
}
