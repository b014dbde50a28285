#ifndef MEMBENCH_PLAN_H
#define MEMBENCH_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "affinity/topology.h"
#include "affinity/policy.h"
#include "kernels/kernel_table.h"
#include "src/base/parse.h"
#include "src/measure/shared_options.h"
#include "src/sys/sysinfo.h"

#define STREAM_MIN_ELEMENTS 1000000u
#define STREAM_LLC_MULTIPLE 4.0
#define STREAM_RULE_LABEL "4xLLC (STREAM rule)"

#define MAX_THREADS 4096 /* per run: --threads, OMP_NUM_THREADS and the default */

/* --per-domain: also report each domain's share of a run, measured at the same time. */
enum domain_kind { DOMAIN_NONE, DOMAIN_NUMA, DOMAIN_PACKAGE, DOMAIN_LLC };

const char *domain_kind_name(enum domain_kind kind);

/* The options the STREAM runs read, as parsed: the options block of stream_option_rows. The
 * lists are empty for the default; the placement and page lists and --matrix are the shared
 * options (struct shared_options), which serve --tlb and --latency too. */
struct stream_options {
    unsigned kernel_mask;      /* bits of enum kernel_id; 0 = no STREAM runs */
    const char *isa_forced_by; /* "--isa" or "MEMBENCH_ISA" when forced, else NULL */
    enum isa isa;
    struct size_spec sizes[LIST_MAX];
    size_t n_sizes; /* 0 = the STREAM rule */
    enum domain_kind per_domain;
    const char *stores[LIST_MAX];
    size_t n_stores;
    unsigned ntimes;
    enum elem_type type;
    size_t offset;
};

/* What the STREAM plan needs: its options and the shared ones (its request hook points at
 * them) and what the verdict options ask of the runs. */
struct stream_request {
    const struct stream_options *opts;
    const struct shared_options *shared; /* threads, binding, pages and --matrix */
    /* the node's options its plan reads: the dry run and the verdict's (a matrix of another
     * machine's topology can only be planned; --reference's store kinds auto keeps, so that
     * the rates compare like with like) */
    struct measure_shared node;
};

/* One run: a point of the cartesian product of the list options. */
struct run_config {
    unsigned threads;
    const char *threads_from; /* "--threads", "OMP_NUM_THREADS" or "physical cores" */
    enum bind_kind bind_kind;
    char bind[72]; /* as reported: "scatter", "compact", "0,2,4-7", "none", "openmp-env" */
    int *pus;      /* planned PU (OS index) per thread; NULL when membench does not bind */
    int llc_count; /* LLC instances the threads use: the basis of xLLC sizes */
    uint64_t llc_bytes;
    enum domain_kind per_domain;
    const char *pages;
    const char *pages_from;       /* "--pages", "HUGETLB_MORECORE" or "default" */
    const char *stores_requested; /* "auto", "normal" or "nt" as given */
    const char *stores;           /* what runs: "normal", "nt" or "mixed" (per kernel); "auto" until
                                     measured (run_stream) */
    enum store_kind stores_kind;  /* nt only when every kernel runs nt */
    enum store_kind kernel_stores[KERNEL_COUNT]; /* what each kernel runs */
    bool stores_from_reference; /* auto took the kind --reference's profile ran with */
    bool tuned;                 /* non-temporal stores: STREAM's rules call such results "tuned" */
    enum isa isa;
    enum elem_type type;
    uint64_t elements;
    uint64_t array_bytes;
    uint64_t total_bytes;  /* three arrays, offsets included */
    uint64_t stride_bytes; /* distance between the arrays' starts: 2 MiB-aligned */
    uint64_t region_bytes; /* the one allocation holding all three: 3 x stride */
    char size_label[64];   /* "4xLLC (STREAM rule)", "1GiB" */
    unsigned ntimes;
    size_t offset;
    unsigned kernel_mask;
    bool below_stream_rule; /* arrays smaller than 4x the LLCs in use: caches inflate rates */
    /* the memory-side caches in front of the nodes the arrays' pages land on (the threads'
     * nodes, or a --matrix cell's memory node) */
    struct memcache_use memcache;
    bool in_memcache;    /* an array is smaller than them: the rates are the cache's */
    double time_limit_s; /* --time-limit; 0 = none */
    double started;      /* timer_now() when membench started: the limit counts from here */
    /* --matrix numa: the threads run on the cores of NUMA node cpu_node and the arrays are
     * bound to NUMA node mem_node (the OS's numbers) before first touch; without it both are
     * -1 and the arrays land where their threads first touch them */
    bool numa_cell;
    int cpu_node, mem_node;
    uint64_t firmware_mbps; /* a cell: the firmware's (HMAT) MB/s for that pair; 0 = none */
    /* --matrix tiers: the run of memory tier `tier` (topo->memory.tiers; -1 otherwise), each
     * thread's share of the arrays bound to NUMA node thread_node[t] (OS numbers) */
    int tier;
    char tier_name[24];
    int *thread_node;
    /* a tier run after a checked run (runs[0]) on a node of several measurable tiers: the
     * verdict's rates of its tier (--matrix tiers' placement, with runs[0]'s options) */
    bool verdict_tier;
};

struct plan {
    struct run_config *runs;
    size_t n_runs;
    unsigned reference_runs;     /* --reference-runs: the first run measured that many times */
    double reference_interval_s; /* --reference-interval: the pause between those */
    const char *baseline_pages;  /* several --pages: the runs compared against these; or NULL */
};

/* Expands the options into runs and checks each fits in memory and its page backing can serve
 * it (the huge page pool, THP mode). Without --pages, HUGETLB_MORECORE chooses the backing.
 * Notes what the huge page variables do. Returns an exit status: EXIT_OK, EXIT_USAGE or
 * EXIT_RESOURCE, after a one-line error. */
int plan_build(const struct stream_request *req, const struct topology *topo,
               const struct sys_info *sys, struct plan *plan);
void plan_free(struct plan *plan);

/* Before a sweep's later run: do its arrays still fit the memory budget as it is now (another
 * process may have taken memory since the plan)? EXIT_OK, or EXIT_RESOURCE after one error line
 * naming the run. */
int plan_recheck_memory(const struct run_config *r, size_t index, size_t n_runs);

/* Default thread count: $OMP_NUM_THREADS if set (first level), else physical cores.
 * Returns 0, or -1 with a reason when OMP_NUM_THREADS is malformed. */
int default_threads(const struct topology_facts *topo, unsigned *threads, const char **from,
                    char *why, size_t why_len);

#endif
