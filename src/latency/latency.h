#ifndef MEMBENCH_LATENCY_H
#define MEMBENCH_LATENCY_H

/* --latency: idle memory latency (a dependent pointer chase over a buffer >= 4x the chasing
 * core's LLC, on one bound core, memory bound to one NUMA node) and the loaded-latency curve
 * (the chase while the other cores run a bandwidth kernel at stepped intensity), like Intel
 * MLC's --idle_latency and --loaded_latency. docs/latency.md says how and why. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "affinity/page_locality.h"
#include "affinity/policy.h"
#include "affinity/topology.h"
#include "hugepages/backend.h"
#include "src/base/parse.h"
#include "src/measure/shared_options.h"
#include "src/sys/sysinfo.h"

#define LATENCY_LLC_MULTIPLE 4
#define LATENCY_MIN_BYTES (4ull << 20)
#define LATENCY_IDLE_REPS 11
#define LATENCY_LOADED_REPS 3
#define LATENCY_REP_TARGET_S 0.02
#define LATENCY_MAX_STEPS 16
#define LATENCY_MAX_LOAD_THREADS 1024

/* The command-line settings (parsed in src/cli). */
struct latency_options {
    bool enabled;    /* --latency */
    bool size_given; /* --latency-size */
    struct size_spec size;
};

/* What --latency is asked for (its .options->request fills it from its options block). */
struct latency_request {
    bool enabled;
    bool dry_run;
    bool size_given; /* --latency-size; else 4x the LLC of the chasing core */
    struct size_spec size;
    /* --pages: one value; none = 2m pool, else thp, else 4k; --bind: the chase runs on the
     * first PU it places */
    const struct shared_options *shared;
    int cpu;      /* the chasing PU (OS index); -1 = --bind's, else the first usable PU */
    int mem_node; /* NUMA node (the OS's number) of the memory; -1 = the chasing PU's own */
    bool loaded;  /* also the loaded-latency curve (when there is a second core) */
    bool matrix;  /* --matrix numa: idle latency per node pair too */
};

/* One idle measurement: a pointer chase on PU `cpu` over memory bound to node `mem_node`. */
struct latency_point {
    int cpu, mem_node;
    bool mem_bound; /* the area binding was applied; false only on a one-node machine */
    uint64_t buffer_bytes, lines;
    const char *pages; /* the page backend used */
    struct backing_info backing;
    struct page_locality locality; /* sampled pages on mem_node */
    double core_ghz;               /* measured on `cpu` (dependent-add loop); 0 = unknown */
    double core_ghz_after;         /* the same after the chase */
    double ns, ns_min, ns_max;     /* median, min, max over the repetitions */
    int repetitions;
    uint64_t hops;  /* per repetition */
    bool validated; /* the order is one cycle and every repetition ended where predicted */
    bool measured;
    char why[300]; /* why not validated or not measured */
};

struct latency_step {
    uint64_t delay;        /* spin iterations between a load thread's chunks */
    double bandwidth_mbps; /* the load threads' read + write traffic, 10^6 bytes/s */
    double ns;             /* the chase's median ns per load during it */
};

/* One cell of the matrix (request.matrix): the chase on the first usable PU `cpu` of node
 * cpu_node (a node with cores) over memory bound to node mem_node (any node), OS numbers. */
struct latency_pair {
    int cpu_node, mem_node, cpu;
    uint64_t firmware_ns; /* what the firmware (HMAT) says of the pair; 0 = nothing */
    bool measured;
    double ns;
    struct page_locality locality;
};

struct latency_result {
    bool measured, dry_run, stopped;
    char size_rule[80]; /* "4x the 508.0 MiB LLC of PU 0" or "--latency-size 64MiB" */
    uint64_t llc_bytes; /* of the chasing core; 0 when unknown */
    struct latency_point idle;
    int load_threads;
    bool loaded_measured;
    char loaded_why[200]; /* why the curve was not measured */
    size_t n_steps;
    struct latency_step steps[LATENCY_MAX_STEPS];
    size_t n_pairs;
    struct latency_pair *pairs;
    char warnings[8][300];
    int n_warnings;
};

/* The core clock cycles are counted in: the mean of the two measurements; 0 = unknown. */
static inline double latency_core_ghz(const struct latency_point *p)
{
    if (p->core_ghz > 0 && p->core_ghz_after > 0) return (p->core_ghz + p->core_ghz_after) / 2;
    return p->core_ghz > 0 ? p->core_ghz : p->core_ghz_after;
}

/* The measurement, planned before anything is measured. */
struct latency_plan {
    bool enabled, dry_run, loaded, matrix;
    int cpu, mem_node;
    uint64_t bytes;
    const struct mem_backend *backend;
    bool pages_automatic;
    char pages_why[300]; /* automatic choice: why not hugetlb / THP */
    char size_rule[80];
    uint64_t llc_bytes;
    int n_load;
    int *load_pus; /* one PU per other core, compact */
    size_t n_pairs;
    struct latency_pair *pairs; /* --matrix numa: the cells, rows then columns in OS order */
};

/* Checks the request against this machine. Returns an exit status after a one-line error:
 * EXIT_USAGE (a CPU or node that is not there, a fake topology), EXIT_RESOURCE (huge pages
 * asked for but absent, the LLC unknown, memory). */
int latency_plan_build(const struct latency_request *r, const struct topology *topo,
                       const struct sys_info *sys, struct latency_plan *plan);
void latency_plan_free(struct latency_plan *plan);

/* Idle latency of PU `pu` reading node `mem_node`'s memory: the unit a latency matrix loops
 * over. Binds the calling thread to pu (and releases it after). Returns an exit status. */
int latency_measure(const struct topology *topo, int pu, int mem_node, uint64_t bytes,
                    const struct mem_backend *backend, struct latency_point *out);

/* The whole --latency measurement. Returns an exit status (one-line error on failure). */
int run_latency(const struct latency_plan *plan, const struct topology *topo,
                struct latency_result *out);
void latency_describe(const struct latency_plan *plan, struct latency_result *out);
/* What a measurement that a signal or the time limit may have stopped reports, in words:
 * "the latency measurement stopped in the loaded curve after 3 of 10 steps; reporting the
 * idle latency and those steps", or "the latency measurement finished". */
void latency_kept(const struct latency_result *r, char *buf, size_t len);
void latency_result_free(struct latency_result *out);

#endif
