#ifndef MEMBENCH_POLICY_H
#define MEMBENCH_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "affinity/topology.h"

/* How threads are placed: computed here from the topology, applied by bind.c. */
enum bind_kind {
    BIND_NONE,       /* leave it to the OS */
    BIND_OPENMP_ENV, /* leave it to OMP_PROC_BIND / OMP_PLACES / GOMP_CPU_AFFINITY */
    BIND_COMPACT,    /* cores in logical order, one thread per core before SMT siblings */
    BIND_SCATTER,    /* round-robin over packages, then groups/NUMA, then LLCs, then cores */
    BIND_LIST,       /* explicit PU OS indices */
};

#define BIND_LIST_MAX 4096

struct bind_spec {
    enum bind_kind kind;
    char text[64]; /* as shown in reports: "compact", "0,2,4-7" */
    int n_pus;     /* BIND_LIST */
    int *pus;      /* BIND_LIST: OS indices, owned */
};

/* Parses one --bind value: "compact", "scatter", "none", or a PU list like "0,2,4-7".
 * Returns 0, or -1 with a reason. */
int bind_spec_parse(const char *text, struct bind_spec *out, char *why, size_t why_len);
void bind_spec_free(struct bind_spec *spec);

/* True when the value is a PU list (digits, commas and ranges only). */
int bind_text_is_list(const char *text);

/* PU OS index for each of n threads under the policy; -1 everywhere for NONE/OPENMP_ENV.
 * With more threads than allowed PUs the order wraps around (oversubscription).
 * Returns 0, or -1 with a reason (a PU outside the allowed set, a list too short). */
int placement_plan(const struct topology *topo, const struct bind_spec *spec, int n, int *pus,
                   char *why, size_t why_len);

/* The first usable PU of every core that has one in `within`, cores in logical order
 * (compact), at most max. Returns how many. */
int placement_cores_within(const struct topology *topo, hwloc_const_cpuset_t within, int *pus,
                           int max);

/* One PU per allowed core of NUMA node `node` (the OS's number), cores in logical order
 * (compact within the node), at most max. Returns how many: 0 for a node without usable cores
 * (memory only, even where it shares a node's cpuset, or outside this process's cpuset). */
int placement_numa_node(const struct topology *topo, int node, int *pus, int max);

/* The rows of a NUMA matrix: the nodes with usable cores (the initiators), OS numbers in
 * ascending order, into rows[] (room for topo->memory.count). Returns how many. Its columns
 * are every node, topo->memory.nodes in order. */
int numa_matrix_rows(const struct topology *topo, int *rows);

/* LLC instances and bytes that cover the given PUs (all allowed PUs when pus is NULL). */
void llc_in_use(const struct topology *topo, const int *pus, int n, int *count, uint64_t *bytes);

#endif
