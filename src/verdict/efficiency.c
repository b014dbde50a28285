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

/* The sockets' indices in ascending order of their number. */
static void sockets_in_order(const struct dimm_inventory *inv, int *order)
{
    for (int i = 0; i < inv->n_sockets; i++)
        order[i] = i;
    for (int i = 1; i < inv->n_sockets; i++)
        for (int j = i; j > 0 && inv->sockets[order[j]].id < inv->sockets[order[j - 1]].id; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

/* Why the packages cannot be compared with the sockets; NULL when they can. */
static const char *packages_unfit(const struct run_result *run, int node_cores,
                                  const struct dimm_inventory *inv, char *why, size_t len)
{
    if (!inv || !inv->read)
        snprintf(why, len, "no SMBIOS memory tables: %.120s", inv ? inv->why_unknown : "");
    else if (inv->n_sockets != run->n_domains || run->n_domains > EFFICIENCY_PACKAGES_MAX)
        snprintf(why, len, "SMBIOS describes %d socket%s, the run measured %d packages",
                 inv->n_sockets, inv->n_sockets == 1 ? "" : "s", run->n_domains);
    else if (node_cores > 0 && run->config.threads < (unsigned)node_cores)
        snprintf(why, len, "the run used %u threads of the node's %d cores", run->config.threads,
                 node_cores);
    else
        for (int i = 0; i < inv->n_sockets; i++)
            if (inv->sockets[i].ceiling_mbps <= 0.0)
                snprintf(why, len, "socket %d's ceiling is unknown: %.100s", inv->sockets[i].id,
                         inv->why_unknown);
    return why[0] ? why : NULL;
}

void efficiency_per_package(const struct run_result *run, int node_cores,
                            const struct dimm_inventory *inv, struct efficiency *out)
{
    out->n_packages = 0;
    out->packages_why[0] = '\0';
    if (!run || !run->measured || run->config.per_domain != DOMAIN_PACKAGE) return;
    const struct kernel_result *k = judged_kernel(run);
    if (!k || run->n_domains < 1) return;
    if (packages_unfit(run, node_cores, inv, out->packages_why, sizeof(out->packages_why))) return;
    int order[EFFICIENCY_PACKAGES_MAX];
    sockets_in_order(inv, order);
    for (int d = 0; d < run->n_domains; d++) {
        int rank = 0; /* the packages in logical order, as the sockets in theirs */
        for (int e = 0; e < run->n_domains; e++)
            rank += run->domains[e].index < run->domains[d].index;
        const struct dimm_socket *s = &inv->sockets[order[rank]];
        struct package_efficiency *p = &out->packages[d];
        p->package = run->domains[d].index;
        p->socket_id = s->id;
        p->rate_mbps = run->domains[d].best_rate_mbps[k->kernel];
        p->ceiling_mbps = s->ceiling_mbps;
        p->pct = 100.0 * p->rate_mbps / s->ceiling_mbps;
    }
    out->n_packages = run->n_domains;
}
