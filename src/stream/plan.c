#include "src/stream/plan.h"
#include "src/stream/plan_isa.h"
#include "src/stream/plan_size.h"
#include "src/stream/plan_tiers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/stream/array_layout.h"
#include "src/stream/plan_memcache.h"
#include "src/stream/plan_memory.h"
#include "src/base/log.h"
#include "src/base/page_sizes.h"

const char *domain_kind_name(enum domain_kind kind)
{
    static const char *const names[] = {"none", "numa", "package", "llc"};
    return names[kind];
}

/* One thread per core, at most MAX_THREADS (a topology may describe more cores). */
static unsigned threads_for_cores(const struct topology_facts *topo)
{
    if (topo->cores > MAX_THREADS) {
        log_note("%d cores: membench runs at most %d threads, so it uses %d; give --threads to "
                 "choose",
                 topo->cores, MAX_THREADS, MAX_THREADS);
        return MAX_THREADS;
    }
    return topo->cores > 0 ? (unsigned)topo->cores : 1;
}

int default_threads(const struct topology_facts *topo, unsigned *threads, const char **from,
                    char *why, size_t why_len)
{
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env) {
        char first[32];
        size_t len = strcspn(env, ",");
        snprintf(first, sizeof(first), "%.*s", (int)(len < 31 ? len : 31), env);
        uint64_t v;
        char inner[200];
        if (parse_uint(first, 1, MAX_THREADS, &v, inner, sizeof(inner)) != 0) {
            snprintf(why, why_len, "OMP_NUM_THREADS='%.40s': %s; set it to a thread count", env,
                     inner);
            return -1;
        }
        *threads = (unsigned)v;
        *from = "OMP_NUM_THREADS";
        return 0;
    }
    *threads = threads_for_cores(topo);
    *from = "physical cores";
    return 0;
}

/* The OpenMP binding variable the user set, if any. */
static const char *openmp_binding_variable(void)
{
    static const char *const vars[] = {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v && strcmp(v, "false") != 0) return vars[i];
    }
    return NULL;
}

/* Without --bind: OpenMP's own binding when its variables are set, else scatter while there
 * are fewer threads than cores and compact from one thread per core up (the same cores, and
 * SMT siblings only once every core has a thread). */
static void default_bind(const struct topology_facts *topo, unsigned threads,
                         struct bind_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    if (openmp_binding_variable()) {
        spec->kind = BIND_OPENMP_ENV;
        snprintf(spec->text, sizeof(spec->text), "openmp-env");
    } else if (threads < (unsigned)topo->cores) {
        spec->kind = BIND_SCATTER;
        snprintf(spec->text, sizeof(spec->text), "scatter");
    } else {
        spec->kind = BIND_COMPACT;
        snprintf(spec->text, sizeof(spec->text), "compact");
    }
}

static int place_threads(const struct topology *topo, const struct bind_spec *spec,
                         struct run_config *r)
{
    r->bind_kind = spec->kind;
    snprintf(r->bind, sizeof(r->bind), "%s", spec->text);
    r->llc_count = topo->facts.llc_count;
    r->llc_bytes = topo->facts.llc_bytes_total;
    r->memcache = topo->facts.memcache;
    if (spec->kind == BIND_NONE || spec->kind == BIND_OPENMP_ENV)
        return EXIT_OK; /* threads may run anywhere: every allowed LLC counts */
    r->pus = malloc(r->threads * sizeof(int));
    if (!r->pus) {
        log_error("out of memory planning placement");
        return EXIT_RESOURCE;
    }
    char why[300];
    if (placement_plan(topo, spec, (int)r->threads, r->pus, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_USAGE;
    }
    llc_in_use(topo, r->pus, (int)r->threads, &r->llc_count, &r->llc_bytes);
    topology_memcache_of_pus(topo, r->pus, (int)r->threads, &r->memcache);
    return EXIT_OK;
}

/* A --matrix cell: one thread per core of NUMA node cpu, compact, the arrays bound to mem
 * (OS numbers), with what the firmware says of that pair. */
static int place_cell(const struct topology *topo, int cpu, const struct mem_node *mem,
                      struct run_config *r)
{
    r->pus = malloc(MAX_THREADS * sizeof(int));
    if (!r->pus) {
        log_error("out of memory planning placement");
        return EXIT_RESOURCE;
    }
    r->threads = (unsigned)placement_numa_node(topo, cpu, r->pus, MAX_THREADS);
    r->threads_from = "cores of the NUMA node (--matrix)";
    r->bind_kind = BIND_COMPACT;
    snprintf(r->bind, sizeof(r->bind), "compact:node%d", cpu);
    r->numa_cell = true;
    r->cpu_node = cpu;
    r->mem_node = (int)mem->os;
    r->firmware_mbps = node_memory_firmware_from(
        topo->hw, node_memory_by_os(&topo->memory, (unsigned)cpu)->obj->cpuset, mem,
        MEM_FIGURE_MBPS);
    llc_in_use(topo, r->pus, (int)r->threads, &r->llc_count, &r->llc_bytes);
    topology_memcache_of_node(topo, mem->os, &r->memcache);
    return EXIT_OK;
}

/* The matrix's rows are the NUMA nodes with usable cores (rows counts them); its columns
 * every NUMA node. */
static int matrix_nodes(const struct stream_request *o, const struct topology *topo, int *rows)
{
    if (!topo->facts.this_system && !o->node.dry_run) {
        log_error("--matrix numa measures this machine, but %s describes another; unset it, or "
                  "add --dry-run",
                  topo->facts.source);
        return EXIT_USAGE;
    }
    int *os = malloc((size_t)(topo->memory.count > 0 ? topo->memory.count : 1) * sizeof(int));
    if (!os) {
        log_error("out of memory planning the matrix");
        return EXIT_RESOURCE;
    }
    *rows = numa_matrix_rows(topo, os);
    free(os);
    if (*rows == 0) {
        log_error("--matrix numa: hwloc finds no NUMA node with usable cores; run without "
                  "--matrix");
        return EXIT_RESOURCE;
    }
    return EXIT_OK;
}

/* What every run takes from the options, once its threads are placed. */
static int fill_run(const struct stream_options *o, size_t is, const char *pages,
                    const char *pages_from, size_t ist, struct run_config *r)
{
    r->pages = pages;
    r->pages_from = pages_from;
    r->per_domain = o->per_domain;
    r->stores_requested = o->n_stores ? o->stores[ist] : "auto";
    r->type = o->type;
    r->ntimes = o->ntimes;
    r->offset = o->offset;
    r->kernel_mask = o->kernel_mask;
    if (!r->numa_cell) r->cpu_node = r->mem_node = -1;
    if (!r->thread_node) r->tier = -1;
    return plan_resolve_size(o, is, r);
}

/* auto is decided by measurement on the first repetition (run_stream); until then the run
 * says "auto". Checked against a reference, auto runs the kinds the reference ran with: each
 * kernel's when the reference lists them, else its one kind. */
static void choose_stores(struct run_config *r, const struct stream_request *o)
{
    bool nt = strcmp(r->stores_requested, "nt") == 0;
    r->stores_kind = nt ? STORES_NT : STORES_NORMAL;
    r->stores = strcmp(r->stores_requested, "auto") == 0 ? "auto" : nt ? "nt" : "normal";
    r->tuned = nt;
    for (int k = 0; k < KERNEL_COUNT; k++)
        r->kernel_stores[k] = r->stores_kind;
    const char *ref = o->node.reference_stores;
    bool ref_kind = ref && (strcmp(ref, "nt") == 0 || strcmp(ref, "normal") == 0);
    if (strcmp(r->stores_requested, "auto") != 0 || (!ref_kind && !o->node.reference_kernel_stores))
        return;
    r->stores_from_reference = true;
    enum store_kind all = ref_kind && strcmp(ref, "nt") == 0 ? STORES_NT : STORES_NORMAL;
    bool any_nt = false, any_normal = false;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        int given = o->node.reference_kernel_stores ? o->node.reference_kernel_stores[k] : -1;
        r->kernel_stores[k] = given >= 0 ? (enum store_kind)given : all;
        if (!(r->kernel_mask & (1u << k))) continue;
        any_nt |= r->kernel_stores[k] == STORES_NT;
        any_normal |= r->kernel_stores[k] == STORES_NORMAL;
    }
    r->stores_kind = any_nt && !any_normal ? STORES_NT : STORES_NORMAL;
    r->stores = any_nt && any_normal ? "mixed" : any_nt ? "nt" : "normal";
    r->tuned = any_nt;
}

/* What runs without a list take: the pages (HUGETLB_MORECORE or the default) and the thread
 * count ($OMP_NUM_THREADS, the physical cores, or the acceptance profile's every core). */
struct run_defaults {
    const char *pages, *pages_from;
    unsigned threads;
    const char *threads_from;
};

static int run_defaults(const struct stream_request *req, const struct topology_facts *topo,
                        const struct sys_info *sys, struct run_defaults *d)
{
    int rc = plan_default_pages(req->shared, sys, &d->pages, &d->pages_from);
    if (rc != EXIT_OK) return rc;
    d->threads = 0;
    d->threads_from = NULL;
    if (req->shared->n_threads == 0 &&
        req->node.acceptance) { /* the profile: every physical core */
        d->threads = threads_for_cores(topo);
        d->threads_from = "physical cores (acceptance profile)";
    } else if (req->shared->n_threads == 0) {
        char why[256];
        if (default_threads(topo, &d->threads, &d->threads_from, why, sizeof(why)) != 0) {
            log_error("%s", why);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* How many runs: the product of the lists' lengths, or the matrix's cells. */
static int count_runs(const struct stream_request *req, const struct topology *topology,
                      size_t *total, size_t *tier_runs)
{
    const struct stream_options *o = req->opts;
    const struct shared_options *sh = req->shared;
    *total = (sh->n_threads ? sh->n_threads : 1) * (o->n_sizes ? o->n_sizes : 1) *
             (sh->n_binds ? sh->n_binds : 1) * (sh->n_pages ? sh->n_pages : 1) *
             (o->n_stores ? o->n_stores : 1);
    if (sh->matrix == MATRIX_TIERS && !topology->facts.this_system && !req->node.dry_run) {
        log_error(
            "--matrix tiers measures this machine, but %s describes another; unset it, or add "
            "--dry-run",
            topology->facts.source);
        return EXIT_USAGE;
    }
    if (sh->matrix == MATRIX_TIERS) {
        bool measurable[MEM_TIERS_MAX];
        *total = (size_t)plan_tiers_measurable(topology, measurable);
        if (*total == 0) {
            log_error("--matrix tiers: no memory tier has usable cores near it; run without it");
            return EXIT_RESOURCE;
        }
    } else if (sh->matrix) {
        int rows = 0;
        int rc = matrix_nodes(req, topology, &rows);
        if (rc != EXIT_OK) return rc;
        *total = (size_t)rows * (size_t)topology->memory.count;
    }
    if (*total > 4096) {
        log_error("the option lists make %zu runs; at most 4096, shorten the lists", *total);
        return EXIT_USAGE;
    }
    if (*total > 1 && (req->node.acceptance || req->node.checks || req->node.save_reference)) {
        log_error("%s checks one configuration but the option lists make %zu runs; give single "
                  "values",
                  req->node.acceptance ? "--acceptance"
                  : req->node.checks   ? "--expect/--reference"
                                       : "--save-reference",
                  *total);
        return EXIT_USAGE;
    }
    *tier_runs = plan_verdict_tier_count(req, topology);
    *total += *tier_runs;
    return EXIT_OK;
}

/* One run of the sweep: the it-th thread count, ib-th binding, ip-th pages, is-th size and
 * ist-th store kind. */
static int plan_point(const struct stream_request *req, const struct topology *topology,
                      const struct run_defaults *d, const size_t at[5], struct run_config *r)
{
    const struct shared_options *sh = req->shared;
    size_t is = at[0], ip = at[1], ib = at[2], ist = at[3], it = at[4];
    r->threads = sh->n_threads ? sh->threads[it] : d->threads;
    r->threads_from = sh->n_threads ? "--threads" : d->threads_from;
    struct bind_spec fallback;
    default_bind(&topology->facts, r->threads, &fallback);
    if (req->node.acceptance) { /* the profile: scatter, whatever OpenMP says */
        fallback.kind = BIND_SCATTER;
        snprintf(fallback.text, sizeof(fallback.text), "scatter");
    }
    int rc = place_threads(topology, sh->n_binds ? &sh->binds[ib] : &fallback, r);
    if (rc != EXIT_OK) return rc;
    return fill_run(req->opts, is, sh->n_pages ? sh->pages[ip] : d->pages,
                    sh->n_pages ? "--pages" : d->pages_from, ist, r);
}

/* The cartesian product of the lists, sizes outermost and thread counts innermost. */
static int plan_sweep(const struct stream_request *req, const struct topology *topology,
                      const struct run_defaults *d, struct plan *plan)
{
    const struct stream_options *o = req->opts;
    const struct shared_options *sh = req->shared;
    const size_t n[5] = {o->n_sizes ? o->n_sizes : 1, sh->n_pages ? sh->n_pages : 1,
                         sh->n_binds ? sh->n_binds : 1, o->n_stores ? o->n_stores : 1,
                         sh->n_threads ? sh->n_threads : 1};
    size_t at[5] = {0};
    for (;;) {
        struct run_config *r = &plan->runs[plan->n_runs++];
        int rc = plan_point(req, topology, d, at, r);
        if (rc != EXIT_OK) return rc;
        int i = 4;
        while (i >= 0 && ++at[i] == n[i])
            at[i--] = 0;
        if (i < 0) return EXIT_OK;
    }
}

/* --matrix numa: a run per (node with usable cores, any node) pair, in OS order. */
static int plan_matrix(const struct stream_request *req, const struct topology *topology,
                       const struct run_defaults *d, struct plan *plan)
{
    const struct stream_options *o = req->opts;
    const struct shared_options *sh = req->shared;
    const struct node_memory *m = &topology->memory;
    int *rows = malloc((size_t)m->count * sizeof(int));
    if (!rows) {
        log_error("out of memory planning the matrix");
        return EXIT_RESOURCE;
    }
    int n_rows = numa_matrix_rows(topology, rows), rc = EXIT_OK;
    for (int i = 0; rc == EXIT_OK && i < n_rows; i++)
        for (int j = 0; rc == EXIT_OK && j < m->count; j++) {
            struct run_config *r = &plan->runs[plan->n_runs++];
            rc = place_cell(topology, rows[i], &m->nodes[j], r);
            if (rc == EXIT_OK)
                rc = fill_run(o, 0, sh->n_pages ? sh->pages[0] : d->pages,
                              sh->n_pages ? "--pages" : d->pages_from, 0, r);
        }
    free(rows);
    return rc;
}

/* --matrix tiers, or a verdict's tier runs: a run per tier that usable cores are near. */
static int plan_tiers(const struct stream_request *req, const struct topology *topology,
                      const struct run_defaults *d, struct plan *plan, bool verdict)
{
    const struct stream_options *o = req->opts;
    const struct shared_options *sh = req->shared;
    bool measurable[MEM_TIERS_MAX];
    plan_tiers_measurable(topology, measurable);
    for (int t = 0; t < topology->memory.tier_count; t++) {
        if (!measurable[t]) continue;
        struct run_config *r = &plan->runs[plan->n_runs++];
        r->verdict_tier = verdict;
        int rc = plan_tier_place(topology, t, r);
        if (rc == EXIT_OK)
            rc = fill_run(o, 0, sh->n_pages ? sh->pages[0] : d->pages,
                          sh->n_pages ? "--pages" : d->pages_from, 0, r);
        if (rc != EXIT_OK) return rc;
    }
    return EXIT_OK;
}

/* A planned run's arrays, ISA and stores, and whether memory and its backing can serve it. */
static int finish_run(const struct stream_request *req, const struct sys_info *sys, enum isa isa,
                      struct run_config *r)
{
    if (plan_lay_out(r) != 0) {
        log_error("--size %s: three arrays of %llu elements do not fit in 64-bit byte counts; "
                  "choose a smaller --size",
                  r->size_label, (unsigned long long)r->elements);
        return EXIT_USAGE;
    }
    r->below_stream_rule =
        r->llc_bytes && r->array_bytes < STREAM_LLC_MULTIPLE * (double)r->llc_bytes;
    r->isa = isa;
    choose_stores(r, req);
    int rc = plan_check_nt_available(r, req->opts);
    if (rc != EXIT_OK) return rc;
    if (req->node.acceptance && r->below_stream_rule) {
        log_error("--size %s is below the STREAM rule (4x the LLC in use); acceptance never "
                  "measures cache-inflated rates: drop --size or make it larger",
                  r->size_label);
        return EXIT_USAGE;
    }
    rc = plan_memcache_check(r, sys, req->node.acceptance);
    if (rc != EXIT_OK) return rc;
    return plan_check_backing(r, sys, req->node.acceptance);
}

int plan_build(const struct stream_request *req, const struct topology *topology,
               const struct sys_info *sys, struct plan *plan)
{
    const struct stream_options *o = req->opts;
    memset(plan, 0, sizeof(*plan));
    plan_size_topology(topology->facts.this_system);
    const char *omp_var = openmp_binding_variable();
    if ((req->shared->n_binds || req->node.acceptance) && omp_var)
        log_note("%s: membench's placement overrides %s",
                 req->shared->n_binds ? "--bind given" : "--acceptance", omp_var);
    size_t total, tier_runs = 0;
    int rc = count_runs(req, topology, &total, &tier_runs);
    if (rc != EXIT_OK) return rc;
    plan->runs = calloc(total, sizeof(*plan->runs));
    if (!plan->runs) {
        log_error("out of memory planning %zu runs", total);
        return EXIT_RESOURCE;
    }
    struct run_defaults d;
    rc = run_defaults(req, &topology->facts, sys, &d);
    if (rc == EXIT_OK)
        rc = req->shared->matrix == MATRIX_TIERS ? plan_tiers(req, topology, &d, plan, false)
             : req->shared->matrix               ? plan_matrix(req, topology, &d, plan)
                                                 : plan_sweep(req, topology, &d, plan);
    if (rc == EXIT_OK && tier_runs) rc = plan_tiers(req, topology, &d, plan, true);
    if (rc != EXIT_OK) return rc;
    for (size_t i = 0; o->n_sizes == 0 && i < plan->n_runs; i++)
        plan_memcache_widen(&plan->runs[i], sys);
    if (o->n_sizes == 0) plan_share_largest_rule_size(plan);
    enum isa isa;
    rc = plan_choose_isa(o, &isa);
    for (size_t i = 0; rc == EXIT_OK && i < plan->n_runs; i++)
        rc = finish_run(req, sys, isa, &plan->runs[i]);
    for (size_t i = 0; rc == EXIT_OK && !req->node.dry_run && i < plan->n_runs; i++)
        rc = plan_tier_check_memory(topology, &plan->runs[i]);
    return rc;
}

void plan_free(struct plan *plan)
{
    for (size_t i = 0; plan->runs && i < plan->n_runs; i++) {
        free(plan->runs[i].pus);
        free(plan->runs[i].thread_node);
    }
    free(plan->runs);
    plan->runs = NULL;
    plan->n_runs = 0;
}
