#include "src/stream/stream_checks.h"

#include "affinity/bind.h"
#include "src/base/page_sizes.h"
#include "src/base/parse.h"
#include "src/base/warnings.h"

/* A thread on its planned PU by chance is not bound: each planned thread's binding must have
 * been applied and read back (hwloc does not bind on a topology that is not this machine). */
static void check_bound(const struct topology *topo, const struct run_config *cfg,
                        struct run_result *out)
{
    if (!cfg->pus || !out->placement) return;
    for (int t = 0; t < out->n_placement; t++) {
        if (out->placement[t].bound) continue;
        if (out->n_unbound++ > 0) continue;
        if (topo->facts.this_system)
            WARNINGS_ADD(out, "thread %d could not be bound to PU %d: placement not verified", t,
                         cfg->pus[t]);
        else
            WARNINGS_ADD(out,
                         "threads not bound: the topology (%.160s) is not this machine's, so "
                         "hwloc binds nothing; unset it to measure with bound threads",
                         topo->facts.source);
    }
}

static void check_placement(const struct run_config *cfg, const int *pus_start, const int *pus_end,
                            struct run_result *out)
{
    for (unsigned t = 0; t < cfg->threads; t++) {
        out->migrated |= pus_start[t] != pus_end[t];
        if (cfg->pus && (pus_start[t] != cfg->pus[t] || pus_end[t] != cfg->pus[t])) {
            if (out->n_misplaced == 0)
                WARNINGS_ADD(out,
                             "placement not as planned: thread %u should run on PU %d but ran "
                             "on PU %d",
                             t, cfg->pus[t],
                             pus_start[t] != cfg->pus[t] ? pus_start[t] : pus_end[t]);
            out->n_misplaced++;
        }
    }
    if (out->migrated && !cfg->pus)
        WARNINGS_ADD(out, "threads moved between CPUs during the run (unbound); results may vary "
                          "from run to run, use --bind");
}

static void finish_domains(const struct team *tm, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    for (int t = 0; t < tm->team_size; t++) {
        size_t lo = stream_chunk_begin(tm->n, tm->team_size, t, cfg->type);
        size_t hi = t + 1 < tm->team_size
                        ? stream_chunk_begin(tm->n, tm->team_size, t + 1, cfg->type)
                        : tm->n;
        out->domains[tm->thread_domain[t]].elements += hi - lo;
    }
    for (int i = 0; i < out->n_results; i++) {
        int k = out->results[i].kernel;
        for (int d = 0; d < out->n_domains; d++) {
            double best = tm->domain_best[(size_t)k * (size_t)out->n_domains + (size_t)d];
            uint64_t bytes =
                kernel_bytes_counted(&kernel_table[k], out->domains[d].elements, cfg->type);
            out->domains[d].best_rate_mbps[k] = best > 0.0 ? 1e-6 * (double)bytes / best : 0.0;
        }
    }
}

/* Each thread's share of each array, sampled once per MiB, against the node it should be on:
 * the NUMA node of the PU the thread first touched it from, or the --matrix cell's memory
 * node. */
static void check_locality(const struct team *tm, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    struct page_locality *loc = &out->locality;
    page_locality_begin(loc);
    if (!tm->topo->facts.this_system)
        page_locality_fail(loc, "the topology (%.100s) is not this machine's",
                           tm->topo->facts.source);
    size_t es = elem_size(cfg->type);
    const char *arrays[3] = {tm->a, tm->b, tm->c};
    size_t page = out->backing.page_size_bytes > page_base_bytes()
                      ? (size_t)out->backing.page_size_bytes
                      : (size_t)page_base_bytes();
    /* smaps calls a transparent huge page's KernelPageSize 4 kB, but one such page lies on one
     * node: only whole ones inside a thread's share say where that thread's pages went */
    if (out->backing.thp_fraction > 0 && page < page_pmd_bytes()) page = page_pmd_bytes();
    char page_words[32];
    format_bytes(page, page_words, sizeof(page_words));
    for (int t = 0; t < tm->team_size && loc->verified; t++) {
        int expected = cfg->numa_cell ? cfg->mem_node : out->placement[t].numa;
        if (cfg->tier >= 0) expected = cfg->thread_node[t];
        if (expected < 0)
            page_locality_fail(loc, "the NUMA node of PU %d (thread %d) is unknown",
                               tm->pus_start[t], t);
        size_t lo = stream_chunk_begin(tm->n, tm->team_size, t, cfg->type);
        size_t hi = t + 1 < tm->team_size
                        ? stream_chunk_begin(tm->n, tm->team_size, t + 1, cfg->type)
                        : tm->n;
        for (int i = 0; i < 3; i++)
            page_locality_sample_share(loc, arrays[i] + lo * es, (hi - lo) * es,
                                       LOCALITY_STEP_BYTES, page, expected);
    }
    if (loc->verified && loc->pages_sampled == 0)
        page_locality_fail(loc,
                           "no thread's share of the arrays holds a whole %s page: give a "
                           "larger --size",
                           page_words);
    page_locality_end(loc);
    if (!loc->verified || loc->local_fraction >= LOCALITY_MIN_FRACTION) return;
    if (cfg->numa_cell)
        WARNINGS_ADD(out,
                     "only %.1f%% of sampled pages on NUMA node %d, where the cell binds them "
                     "(%llu pages): the node may lack free memory (numactl -H), or a memory "
                     "policy overrides the binding",
                     100.0 * loc->local_fraction, cfg->mem_node,
                     (unsigned long long)loc->pages_sampled);
    else
        WARNINGS_ADD(out,
                     "only %.1f%% of sampled pages on their thread's NUMA node (%llu pages): "
                     "remote memory; a memory policy (numactl --membind/--interleave: drop it) "
                     "or unbound threads (use --bind)",
                     100.0 * loc->local_fraction, (unsigned long long)loc->pages_sampled);
}

void team_check_threads(const struct team *tm, struct run_result *out)
{
    for (unsigned t = 0; t < tm->cfg->threads; t++)
        out->placement[t].pu = tm->pus_start[t];
    placement_locate(tm->topo, out->placement, out->n_placement);
    check_placement(tm->cfg, tm->pus_start, tm->pus_end, out);
    check_bound(tm->topo, tm->cfg, out);
    check_locality(tm, out);
    if (tm->thread_domain) finish_domains(tm, out);
}
