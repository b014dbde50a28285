#include "src/stream/plan_tiers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/policy.h"
#include "src/base/log.h"
#include "src/base/parse.h"

static bool node_reachable(const struct topology *topo, const struct mem_node *n)
{
    return n->initiator && hwloc_bitmap_intersects(n->initiator, topo->usable);
}

int plan_tiers_measurable(const struct topology *topo, bool measurable[MEM_TIERS_MAX])
{
    const struct node_memory *m = &topo->memory;
    int count = 0;
    for (int t = 0; t < MEM_TIERS_MAX; t++)
        measurable[t] = false;
    for (int i = 0; i < m->count; i++)
        if (node_reachable(topo, &m->nodes[i])) measurable[m->nodes[i].tier] = true;
    for (int t = 0; t < m->tier_count; t++)
        count += measurable[t];
    return count;
}

size_t plan_verdict_tier_count(const struct stream_request *req, const struct topology *topo)
{
    bool measurable[MEM_TIERS_MAX];
    bool verdict = req->node.acceptance || req->node.checks || req->node.save_reference;
    if (!verdict || req->shared->matrix || (!topo->facts.this_system && !req->node.dry_run))
        return 0;
    int n = plan_tiers_measurable(topo, measurable);
    return n > 1 ? (size_t)n : 0;
}

/* The tier's node nearest a PU: among those whose nearest CPUs hold it, the one with the
 * fewest threads so far. */
static int nearest_tier_node(const struct node_memory *m, int t, int pu, int *load)
{
    int best = -1;
    for (int i = 0; i < m->count; i++) {
        const struct mem_node *n = &m->nodes[i];
        if (n->tier != t || !n->initiator || !hwloc_bitmap_isset(n->initiator, (unsigned)pu))
            continue;
        if (best < 0 || load[i] < load[best]) best = i;
    }
    if (best >= 0) load[best]++;
    return best;
}

static int tier_cpus(const struct topology *topo, int t, hwloc_bitmap_t cpus)
{
    const struct node_memory *m = &topo->memory;
    for (int i = 0; i < m->count; i++)
        if (m->nodes[i].tier == t && node_reachable(topo, &m->nodes[i]))
            hwloc_bitmap_or(cpus, cpus, m->nodes[i].initiator);
    hwloc_bitmap_and(cpus, cpus, topo->usable);
    return hwloc_bitmap_iszero(cpus) ? -1 : 0;
}

int plan_tier_place(const struct topology *topo, int t, struct run_config *r)
{
    const struct node_memory *m = &topo->memory;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    int *load = calloc((size_t)m->count + 1, sizeof(int));
    r->pus = malloc(MAX_THREADS * sizeof(int));
    r->thread_node = malloc(MAX_THREADS * sizeof(int));
    if (!cpus || !load || !r->pus || !r->thread_node || tier_cpus(topo, t, cpus) != 0) {
        hwloc_bitmap_free(cpus);
        free(load);
        log_error("out of memory planning the run of tier %s", m->tiers[t].name);
        return EXIT_RESOURCE;
    }
    r->threads = (unsigned)placement_cores_within(topo, cpus, r->pus, MAX_THREADS);
    hwloc_bitmap_free(cpus);
    for (unsigned i = 0; i < r->threads; i++)
        r->thread_node[i] = (int)m->nodes[nearest_tier_node(m, t, r->pus[i], load)].os;
    free(load);
    r->threads_from = "cores nearest the tier's nodes (--matrix tiers)";
    r->bind_kind = BIND_COMPACT;
    snprintf(r->bind, sizeof(r->bind), "compact:tier=%s", m->tiers[t].name);
    r->tier = t;
    snprintf(r->tier_name, sizeof(r->tier_name), "%s", m->tiers[t].name);
    llc_in_use(topo, r->pus, (int)r->threads, &r->llc_count, &r->llc_bytes);
    return EXIT_OK;
}

static uint64_t node_free_bytes(unsigned os)
{
    char path[96], line[256];
    snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/meminfo", os);
    FILE *f = fopen(path, "r");
    uint64_t kb = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "Node %*u MemFree: %" SCNu64 " kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb * 1024;
}

int plan_tier_check_memory(const struct topology *topo, const struct run_config *r)
{
    if (!topo->facts.is_machine || r->tier < 0 || r->threads == 0) return EXIT_OK;
    const struct node_memory *m = &topo->memory;
    for (int i = 0; i < m->count; i++) {
        unsigned share = 0;
        for (unsigned t = 0; t < r->threads; t++)
            share += r->thread_node[t] == (int)m->nodes[i].os;
        if (share == 0) continue;
        uint64_t need = r->region_bytes / r->threads * share,
                 free_bytes = node_free_bytes(m->nodes[i].os);
        if (free_bytes == 0 || need <= free_bytes) continue;
        char need_text[32], free_text[32];
        format_bytes(need, need_text, sizeof(need_text));
        format_bytes(free_bytes, free_text, sizeof(free_text));
        log_error("--matrix tiers: tier %s puts %s of the arrays on NUMA node %u, which has %s "
                  "free (numactl -H); choose a smaller --size",
                  m->tiers[r->tier].name, need_text, m->nodes[i].os, free_text);
        return EXIT_RESOURCE;
    }
    return EXIT_OK;
}
