/* Planning --latency before anything is measured: the chasing PU and memory node, the buffer
 * (4x the chasing core's LLC, the STREAM rule's source), the page backing, the load threads,
 * and whether it all fits in memory. */
#include "src/latency/latency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/policy.h"
#include "kernels/latency_chase.h"
#include "src/base/log.h"
#include "src/sys/memory_budget.h"

static int plan_cpu(const struct latency_request *r, const struct topology *topo,
                    struct latency_plan *plan)
{
    if (r->cpu >= 0) {
        if (!hwloc_bitmap_isset(topo->usable, (unsigned)r->cpu)) {
            char list[128];
            hwloc_bitmap_list_snprintf(list, sizeof(list), topo->usable);
            log_error("--latency: PU %d is not one this process may use (allowed: %s); pick one "
                      "of those",
                      r->cpu, list);
            return EXIT_USAGE;
        }
        plan->cpu = r->cpu;
    } else if (r->shared->n_binds) {
        char why[300];
        const struct bind_spec *b = &r->shared->binds[0];
        if (r->shared->n_binds > 1 || b->kind == BIND_NONE || b->kind == BIND_OPENMP_ENV) {
            log_error("--latency chases on one bound PU, and --bind %s%s does not name one; give "
                      "one --bind, e.g. --bind %d",
                      b->text, r->shared->n_binds > 1 ? " (a list of --bind)" : "",
                      hwloc_bitmap_first(topo->usable));
            return EXIT_USAGE;
        }
        if (placement_plan(topo, b, 1, &plan->cpu, why, sizeof(why)) != 0) {
            log_error("--latency: %s", why);
            return EXIT_USAGE;
        }
    } else {
        plan->cpu = hwloc_bitmap_first(topo->usable);
        if (plan->cpu < 0) {
            log_error("--latency: no usable PU to run the chase on; check taskset or the cgroup");
            return EXIT_RESOURCE;
        }
    }
    plan->mem_node = r->mem_node >= 0 ? r->mem_node : topology_locate_pu(topo, plan->cpu).numa;
    if (plan->mem_node < 0 && topo->memory.count > 0) /* no node with cores: the first one */
        plan->mem_node = (int)topo->memory.nodes[0].os;
    if (plan->mem_node < 0 || !node_memory_by_os(&topo->memory, (unsigned)plan->mem_node)) {
        log_error("--latency: NUMA node %d does not exist here (hwloc shows %d node%s); pick "
                  "another memory node",
                  plan->mem_node, topo->memory.count, topo->memory.count == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int plan_size(const struct latency_request *r, const struct topology *topo,
                     struct latency_plan *plan)
{
    int count = 0;
    llc_in_use(topo, &plan->cpu, 1, &count, &plan->llc_bytes);
    char llc[32];
    format_bytes(plan->llc_bytes, llc, sizeof(llc));
    double multiple = LATENCY_LLC_MULTIPLE;
    if (r->size_given && r->size.kind == SIZE_BYTES) {
        plan->bytes = r->size.bytes;
        snprintf(plan->size_rule, sizeof(plan->size_rule), "--latency-size %s", r->size.text);
    } else {
        if (r->size_given) multiple = r->size.llc_multiple;
        if (plan->llc_bytes == 0) {
            log_error("--latency: the last-level cache of PU %d is unknown (hwloc and sysfs "
                      "report none); give the buffer size with --latency-size, e.g. 1GiB",
                      plan->cpu);
            return EXIT_RESOURCE;
        }
        double bytes = multiple * (double)plan->llc_bytes;
        if (bytes > (double)LATENCY_MAX_LINES * LATENCY_LINE_BYTES) {
            log_error("--latency: %gx the %s LLC is more than the chase can index (256 GiB); "
                      "give --latency-size",
                      multiple, llc);
            return EXIT_USAGE;
        }
        plan->bytes = (uint64_t)bytes;
        snprintf(plan->size_rule, sizeof(plan->size_rule), "%gx the %s LLC of PU %d", multiple, llc,
                 plan->cpu);
    }
    if (plan->bytes < LATENCY_MIN_BYTES) plan->bytes = LATENCY_MIN_BYTES;
    if (plan->bytes > (uint64_t)LATENCY_MAX_LINES * LATENCY_LINE_BYTES) {
        log_error("--latency-size %s: more than the chase can index (256 GiB); give less",
                  r->size.text);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* --pages as given (all or nothing), else the first of 2m (a reserved pool that can serve the
 * buffer), thp (madvise mode) and 4k, with the reasons the others were passed over. */
static int plan_pages(const struct latency_request *r, struct latency_plan *plan)
{
    char why[600];            /* the 1 GiB pool's remedy alone is over 200 bytes */
    uint64_t round = PAGE_2M; /* the probes need the whole buffer (in the 2m pages) */
    uint64_t need = (plan->bytes + round - 1) / round * round;
    if (r->shared->n_pages > 1) {
        log_error("--latency: give one --pages value (4k, thp, 2m, 1g or default), not a list");
        return EXIT_USAGE;
    }
    if (r->shared->n_pages == 1) {
        plan->backend = mem_backend_find(r->shared->pages[0]);
        if (!plan->backend) {
            log_error("--latency: --pages %s is not a page backing", r->shared->pages[0]);
            return EXIT_USAGE;
        }
        if (!r->dry_run && plan->backend->probe(&mem_env_system, need, why, sizeof(why)) != 0) {
            log_error("--latency --pages %s: %s", r->shared->pages[0], why);
            return EXIT_RESOURCE;
        }
        return EXIT_OK;
    }
    plan->pages_automatic = true;
    const struct mem_backend *b2m = mem_backend_find("2m"), *thp = mem_backend_find("thp");
    char why_thp[200];
    if (b2m->probe(&mem_env_system, need, why, sizeof(why)) == 0) {
        plan->backend = b2m;
    } else if (thp->probe(&mem_env_system, need, why_thp, sizeof(why_thp)) == 0) {
        plan->backend = thp;
        snprintf(plan->pages_why, sizeof(plan->pages_why), "no hugetlb pages: %.250s", why);
    } else {
        plan->backend = mem_backend_find("4k");
        snprintf(plan->pages_why, sizeof(plan->pages_why),
                 "no hugetlb pages (%.120s) and no THP "
                 "(%.120s)",
                 why, why_thp);
    }
    return EXIT_OK;
}

/* One PU per core other than the chasing one, cores in logical order (compact). */
static int plan_load(const struct topology *topo, struct latency_plan *plan)
{
    int cores = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_CORE);
    plan->load_pus = calloc((size_t)(cores > 0 ? cores : 1), sizeof(int));
    hwloc_bitmap_t others = hwloc_bitmap_dup(topo->usable);
    if (!plan->load_pus || !others) {
        hwloc_bitmap_free(others);
        log_error("out of memory planning the latency load threads");
        return EXIT_RESOURCE;
    }
    hwloc_obj_t mine = hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)plan->cpu);
    hwloc_obj_t my_core =
        mine ? hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_CORE, mine) : NULL;
    if (my_core && my_core->cpuset) hwloc_bitmap_andnot(others, others, my_core->cpuset);
    int max = cores < LATENCY_MAX_LOAD_THREADS ? cores : LATENCY_MAX_LOAD_THREADS;
    plan->n_load = cores > 0 ? placement_cores_within(topo, others, plan->load_pus, max) : 0;
    hwloc_bitmap_free(others);
    return EXIT_OK;
}

/* --matrix numa: a cell per (node with usable cores, any node), the chase on the row's first
 * usable PU (where the bandwidth matrix's rows start). */
static int plan_pairs(const struct topology *topo, struct latency_plan *plan)
{
    const struct node_memory *m = &topo->memory;
    int *rows = malloc((size_t)(m->count > 0 ? m->count : 1) * sizeof(int));
    int n_rows = rows ? numa_matrix_rows(topo, rows) : 0;
    plan->pairs = calloc((size_t)(n_rows > 0 ? n_rows * m->count : 1), sizeof(*plan->pairs));
    if (!rows || !plan->pairs) {
        free(rows);
        log_error("--latency: out of memory for the matrix");
        return EXIT_RESOURCE;
    }
    for (int i = 0; i < n_rows; i++) {
        int pu;
        placement_numa_node(topo, rows[i], &pu, 1);
        hwloc_const_cpuset_t from = node_memory_by_os(m, (unsigned)rows[i])->obj->cpuset;
        for (int j = 0; j < m->count; j++)
            plan->pairs[plan->n_pairs++] =
                (struct latency_pair){.cpu_node = rows[i],
                                      .mem_node = (int)m->nodes[j].os,
                                      .cpu = pu,
                                      .firmware_ns = node_memory_firmware_from(
                                          topo->hw, from, &m->nodes[j], MEM_FIGURE_NS),
                                      .ns = NAN};
    }
    free(rows);
    return EXIT_OK;
}

int latency_plan_build(const struct latency_request *r, const struct topology *topo,
                       const struct sys_info *sys, struct latency_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    if (!r->enabled) return EXIT_OK;
    plan->enabled = true;
    plan->dry_run = r->dry_run;
    plan->matrix = r->matrix;
    if (!topo->facts.this_system && !r->dry_run) {
        log_error("--latency measures this machine, but %s describes another; unset it, or add "
                  "--dry-run",
                  topo->facts.source);
        return EXIT_USAGE;
    }
    int rc = plan_cpu(r, topo, plan);
    if (rc == EXIT_OK) rc = plan_size(r, topo, plan);
    if (rc == EXIT_OK) rc = plan_pages(r, plan);
    if (rc == EXIT_OK && r->loaded) rc = plan_load(topo, plan);
    if (rc == EXIT_OK && r->matrix) rc = plan_pairs(topo, plan);
    if (rc != EXIT_OK) return rc;
    plan->loaded = r->loaded && plan->n_load > 0;
    /* the chase buffer and its order (4 bytes a line), and each load thread's arrays */
    uint64_t need = plan->bytes + plan->bytes / LATENCY_LINE_BYTES * 4;
    if (plan->loaded) need += (uint64_t)plan->n_load * plan->bytes;
    struct memory_budget budget;
    memory_budget_of(sys, &budget);
    if (!r->dry_run && !memory_budget_fits(&budget, need)) {
        char detail[120];
        snprintf(detail, sizeof(detail), " (the chase buffer and %d load thread%s' arrays)",
                 plan->n_load, plan->n_load == 1 ? "" : "s");
        return memory_budget_check(&budget, need, "--latency needs", detail,
                                   "free memory, or give a smaller --latency-size");
    }
    return EXIT_OK;
}

void latency_plan_free(struct latency_plan *plan)
{
    free(plan->load_pus);
    plan->load_pus = NULL;
    free(plan->pairs);
    plan->pairs = NULL;
    plan->n_pairs = 0;
}
