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

/* A tier the node has, but no run of this process measured on its own: never a PASS. */
static void unmeasured(struct acceptance_result *out, const struct node_memory *m, int t,
                       const char *name)
{
    char nodes[64];
    node_memory_tier_list(m, t, nodes, sizeof(nodes));
    struct acceptance_check *c = acceptance_add(out, name, false);
    acceptance_describe(c, "not measured", "measured");
    if (!c) return;
    c->verdict = CHECK_INCONCLUSIVE;
    snprintf(c->why, sizeof(c->why),
             "tier %s (nodes %s) was not measured on its own: this node has %d tiers; measure "
             "it with --matrix tiers",
             m->tiers[t].name, nodes, m->tier_count);
}

/* One tier's expected rates: a tier the node lacks FAILs naming it; on a node of one tier the
 * run measured that tier, and its rates are checked; a tier among several that no run measured
 * alone is INCONCLUSIVE. */
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
    for (int i = 0; i < run->n_results; i++) {
        const struct kernel_result *r = &run->results[i];
        double want = x->rate_mbps[r->kernel];
        if (want <= 0.0) continue;
        snprintf(name, sizeof(name), "%s %s", x->tier, kernel_table[r->kernel].name);
        if (m->tier_count > 1)
            unmeasured(out, m, t, name);
        else
            acceptance_rate_check(out, name, r, want, x->rated_by_reference & (1u << r->kernel),
                                  e->reference_runs, -1.0, tol);
    }
}

void acceptance_tier_checks(const struct node_facts *node, const struct run_result *run,
                            const struct expectations *e, double tol, struct acceptance_result *out)
{
    for (int i = 0; i < e->n_tier_rates; i++)
        tier_check(node, run, &e->tier_rates[i], e, tol, out);
}
