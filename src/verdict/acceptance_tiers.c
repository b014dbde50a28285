/* The checks of a node's memory: its NUMA nodes and tiers against a reference's inventory, and
 * each tier's rates against --expect's or the reference's. */
#include <stdio.h>
#include <string.h>

#include "affinity/memory_nodes.h"
#include "kernels/kernel_table.h"
#include "src/stream/results.h"
#include "src/verdict/acceptance_checks.h"

/* What a reference node finds on this one: "" when it matches, else why not. */
static void node_mismatch(const struct node_memory *m, const struct reference_mem_node *r,
                          char *got, size_t len)
{
    const struct mem_node *n = m ? node_memory_by_os(m, r->os) : NULL;
    const char *kind = n ? m->tiers[n->tier].kind : "";
    double floor = (double)r->bytes * (1.0 - REFERENCE_MEM_MARGIN_PCT / 100.0);
    got[0] = '\0';
    if (!m)
        snprintf(got, len, "unknown (the NUMA nodes were not read)");
    else if (!n)
        snprintf(got, len, "missing");
    else if (strcmp(kind, r->kind) != 0 || (double)n->bytes < floor)
        snprintf(got, len, "%s, %llu bytes", kind, (unsigned long long)n->bytes);
}

/* Every node of the reference's inventory, by OS number, with its kind and at least its
 * bytes less the margin; every tier of it by name. A node or tier that differs is a failed
 * check naming it; when none does, one passed check says what was compared. */
void acceptance_memory_checks(const struct node_facts *node, const struct reference_memory *r,
                              struct acceptance_result *out)
{
    if (!r->present) return;
    const struct node_memory *m = node->memory;
    int bad = 0;
    for (int i = 0; i < r->n_nodes; i++) {
        const struct reference_mem_node *n = &r->nodes[i];
        char got[96], name[48];
        node_mismatch(m, n, got, sizeof(got));
        if (!got[0]) continue;
        bad++;
        snprintf(name, sizeof(name), "memory node %u", n->os);
        acceptance_describe(acceptance_add(out, name, false), got,
                            "%s, >= %.0f bytes (%llu - %g%%, reference)", n->kind,
                            (double)n->bytes * (1.0 - REFERENCE_MEM_MARGIN_PCT / 100.0), n->bytes,
                            REFERENCE_MEM_MARGIN_PCT);
    }
    char got[96];
    if (!bad) {
        snprintf(got, sizeof(got), "%d of %d as the reference", r->n_nodes, r->n_nodes);
        acceptance_describe(acceptance_add(out, "memory nodes", true), got,
                            "node%s %s: kind, bytes within %g%%", r->n_nodes == 1 ? "" : "s",
                            "by OS number", REFERENCE_MEM_MARGIN_PCT);
    }
    bad = 0;
    for (int i = 0; i < r->n_tiers; i++) {
        int t;
        for (t = 0; m && t < m->tier_count && strcmp(m->tiers[t].name, r->tiers[i]); t++)
            ;
        if (m && t < m->tier_count) continue;
        char name[48];
        snprintf(name, sizeof(name), "memory tier %s", r->tiers[i]);
        acceptance_describe(acceptance_add(out, name, false), m ? "missing" : "unknown",
                            "present (reference)");
        bad++;
    }
    snprintf(got, sizeof(got), "%d of %d present", r->n_tiers, r->n_tiers);
    if (!bad)
        acceptance_describe(acceptance_add(out, "memory tiers", true), got,
                            "the reference's tiers by name");
}

/* "local, hbm": the node's tiers by name. */
static void tier_names(const struct node_memory *m, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int t = 0; m && t < m->tier_count; t++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", t ? ", " : "", m->tiers[t].name);
}

/* A tier's check that cannot judge: never a PASS. */
static void unjudged(struct acceptance_result *out, const char *name, const char *measured,
                     const char *fmt, const char *tier, const char *nodes, unsigned a, unsigned b)
{
    struct acceptance_check *c = acceptance_add(out, name, false);
    acceptance_describe(c, measured, "measured");
    if (!c) return;
    c->verdict = CHECK_INCONCLUSIVE;
    snprintf(c->why, sizeof(c->why), fmt, tier, nodes, a, b);
}

/* The run that measured tier t: a verdict's tier run, else on a node of one tier the checked
 * run; NULL when none did. */
static const struct run_result *tier_run(const struct node_facts *node,
                                         const struct run_result *run, int t)
{
    for (size_t i = 0; i < node->n_tier_runs; i++)
        if (node->tier_runs[i].config.tier == t && node->tier_runs[i].measured)
            return &node->tier_runs[i];
    return node->memory->tier_count == 1 ? run : NULL;
}

/* One kernel of a tier: its run's best rate against the expectation, or INCONCLUSIVE naming
 * the tier when no run measured it alone or the time limit cut its run. */
static void tier_rate(const struct node_facts *node, const struct run_result *run, int t,
                      const struct tier_expectation *x, const struct expectations *e, double tol,
                      int k, struct acceptance_result *out)
{
    const struct node_memory *m = node->memory;
    const struct run_result *r = tier_run(node, run, t);
    char name[48], nodes[64];
    snprintf(name, sizeof(name), "%s %s", x->tier, kernel_table[k].name);
    node_memory_tier_list(m, t, nodes, sizeof(nodes));
    const struct kernel_result *kr = NULL;
    for (int i = 0; r && i < r->n_results; i++)
        if ((int)r->results[i].kernel == k) kr = &r->results[i];
    if (!r)
        unjudged(out, name, "not measured",
                 node->n_tier_runs ? "tier %s (nodes %s) was not measured: no usable CPU is "
                                     "near it (%u of %u tiers measured)"
                                   : "tier %s (nodes %s) was not measured on its own: this node "
                                     "has %u of %u tiers measurable; measure it with --matrix "
                                     "tiers",
                 m->tiers[t].name, nodes, (unsigned)node->n_tier_runs, (unsigned)m->tier_count);
    else if (r != run && r->reps_done < r->config.ntimes)
        unjudged(out, name, "cut short",
                 "tier %s (nodes %s): --time-limit cut its run to %u of %u repetitions; raise "
                 "--time-limit",
                 m->tiers[t].name, nodes, r->reps_done, r->config.ntimes);
    else if (kr)
        acceptance_rate_check(out, name, kr, x->rate_mbps[k], x->rated_by_reference & (1u << k),
                              e->reference_runs, -1.0, tol);
}

/* One kernel of a tier against the firmware: its run's best rate at least P% of HMAT's
 * bandwidth to the nodes that run streamed to; unjudged as tier_rate when no run measured it. */
static void tier_hmat(const struct node_facts *node, const struct run_result *run, int t,
                      const struct tier_expectation *x, int k, struct acceptance_result *out)
{
    const struct run_result *r = tier_run(node, run, t);
    char name[48], nodes[64], got[96];
    snprintf(name, sizeof(name), "%s %s vs HMAT", x->tier, kernel_table[k].name);
    node_memory_tier_list(node->memory, t, nodes, sizeof(nodes));
    const struct kernel_result *kr = NULL;
    for (int i = 0; r && i < r->n_results; i++)
        if ((int)r->results[i].kernel == k) kr = &r->results[i];
    if (!r || !kr) {
        unjudged(out, name, "not measured",
                 "tier %s (nodes %s) was not measured on its own (%u "
                 "of %u tiers measured)",
                 x->tier, nodes, (unsigned)node->n_tier_runs, (unsigned)node->memory->tier_count);
        return;
    }
    uint64_t fw = node_memory_tier_firmware_mbps(
        node->memory, t, r->config.tier >= 0 ? r->config.thread_node : NULL, r->config.threads);
    double floor = x->hmat_pct[k] / 100.0 * (double)fw;
    snprintf(got, sizeof(got), "%.1f MB/s (%.0f%% of HMAT's %llu)", kr->best_rate_mbps,
             fw ? 100.0 * kr->best_rate_mbps / (double)fw : 0.0, (unsigned long long)fw);
    acceptance_describe(acceptance_add(out, name, fw && kr->best_rate_mbps >= floor), got,
                        ">= %g%% of HMAT's bandwidth to node%s %s (%.1f MB/s)", x->hmat_pct[k],
                        node->memory->tiers[t].count == 1 ? "" : "s", nodes, floor);
}

/* One tier's expected rates: a tier the node lacks FAILs naming it; else each kernel's rate
 * is checked against the run that measured the tier (tier_rate). */
static void tier_check(const struct node_facts *node, const struct run_result *run,
                       const struct tier_expectation *x, const struct expectations *e, double tol,
                       struct acceptance_result *out)
{
    const struct node_memory *m = node->memory;
    int t;
    for (t = 0; m && t < m->tier_count && strcmp(m->tiers[t].name, x->tier); t++)
        ;
    char name[48], have[96];
    snprintf(name, sizeof(name), "tier %s", x->tier);
    if (!m || t == m->tier_count) {
        tier_names(m, have, sizeof(have));
        acceptance_describe(acceptance_add(out, name, false), m ? "missing" : "unknown",
                            "a tier %s%s%s (this node's: %s)", x->tier,
                            x->nodes[0] ? ", nodes " : "", x->nodes, m ? have : "not read");
        return;
    }
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (run->config.kernel_mask & (1u << k)) {
            if (x->rate_mbps[k] > 0.0) tier_rate(node, run, t, x, e, tol, k, out);
            if (x->hmat_pct[k] > 0.0) tier_hmat(node, run, t, x, k, out);
        }
}

void acceptance_tier_checks(const struct node_facts *node, const struct run_result *run,
                            const struct expectations *e, double tol, struct acceptance_result *out)
{
    for (int i = 0; i < e->n_tier_rates; i++)
        tier_check(node, run, &e->tier_rates[i], e, tol, out);
}

int acceptance_hmat_check(const struct expectations *e, const struct node_memory *m, char *why,
                          size_t why_len)
{
    for (int i = 0; i < e->n_tier_rates; i++) {
        const struct tier_expectation *x = &e->tier_rates[i];
        int k = 0, t = 0;
        while (k < KERNEL_COUNT && x->hmat_pct[k] <= 0.0)
            k++;
        while (t < m->tier_count && strcmp(m->tiers[t].name, x->tier) != 0)
            t++;
        if (k == KERNEL_COUNT || t == m->tier_count) continue; /* a missing tier FAILs later */
        if (node_memory_tier_firmware_mbps(m, t, NULL, 0)) continue;
        char nodes[64];
        node_memory_tier_list(m, t, nodes, sizeof(nodes));
        snprintf(why, why_len,
                 "--expect %s:%s=%g%%hmat: the firmware gives no bandwidth to tier %s (node%s %s: "
                 "no HMAT figure); give its rate in MB/s instead, e.g. %s:%s=90000",
                 x->tier, kernel_table[k].flag + 2, x->hmat_pct[k], x->tier,
                 m->tiers[t].count == 1 ? "" : "s", nodes, x->tier, kernel_table[k].flag + 2);
        return -1;
    }
    return 0;
}
