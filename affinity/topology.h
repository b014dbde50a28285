#ifndef MEMBENCH_TOPOLOGY_H
#define MEMBENCH_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include <hwloc.h>

#include "affinity/memory_nodes.h"

/* The memory-side caches in front of some NUMA nodes: hwloc's MemCache objects, and the form
 * hwloc keeps from a v1 description, a CPU-cache level whose subtype is "MemorySideCache"
 * (never counted as a CPU cache). Each cache counted once, however many nodes it serves. */
struct memcache_use {
    int count;      /* 0: none known */
    int levels;     /* the most of them in front of any one of the nodes */
    uint64_t bytes; /* summed over them (levels included) */
    char nodes[64]; /* the nodes behind them as OS numbers, "0-3"; "" when none */
};

/* What the machine is, as far as the processes' allowed CPUs reach. */
struct topology_facts {
    char cpu_model[128];
    int packages, numa_nodes, cores, pus;
    int llc_level;            /* 3 for L3; 0 when unknown */
    int llc_count;            /* LLC instances covering the allowed CPUs */
    uint64_t llc_bytes_total; /* summed over those instances; 0 when unknown */
    const char *llc_source;   /* "hwloc", "sysfs" or "unknown" */
    /* in front of the NUMA nodes the usable cores' memory lands on (first touch) */
    struct memcache_use memcache;
    bool this_system; /* hwloc's word: false for HWLOC_SYNTHETIC / HWLOC_XMLFILE */
    /* "this machine", "HWLOC_SYNTHETIC=...", "HWLOC_XMLFILE=...", "HWLOC_THISSYSTEM=0" */
    char source[200];
    bool is_machine; /* this machine as hwloc finds it: no description, this_system */
    char cpus[256];  /* the usable PUs as a list, "0-15" */
    bool restricted; /* fewer PUs usable than the machine has online (taskset, cgroup) */
    /* what restricted them: "cgroup cpuset" or "affinity mask"; "" when not restricted */
    char restricted_by[16];
    char restricted_how[240]; /* the evidence: the cgroup file and its CPUs, or the mask */
    /* the whole machine's online ones, usable or not */
    int machine_cores, machine_pus;
};

struct topology {
    hwloc_topology_t hw;
    hwloc_bitmap_t usable; /* allowed by the OS and by this process's binding */
    struct topology_facts facts;
    struct node_memory memory; /* every NUMA node, by OS number */
};

/* Loads the topology (honouring HWLOC_SYNTHETIC / HWLOC_XMLFILE) and fills facts.
 * Returns 0; -1 with a reason when hwloc cannot discover this machine; -2 when a description
 * those variables give cannot be loaded (an hwloc XML version this hwloc cannot read names the
 * lstopo flag that writes one it can). */
int topology_load(struct topology *topo, char *why, size_t why_len);
void topology_unload(struct topology *topo);

/* Where a PU (OS index) sits: logical indices of its core, package and LLC; numa is the OS's
 * number of the node with cores it sits on (never a memory-only node sharing its cpuset);
 * kind hwloc's index of its kind of core (a hybrid CPU's performance and efficiency cores);
 * -1 where unknown (kind: hwloc knows no kinds, as on most servers). */
struct pu_location {
    int core, package, numa, llc, kind;
};

struct pu_location topology_locate_pu(const struct topology *topo, int pu_os);

/* A data or unified cache of the CPUs: not an instruction cache, not a memory-side cache. */
bool topology_is_cpu_cache(const struct hwloc_obj *o);

/* The memory-side caches in front of the nodes that memory first touched by these PUs (OS
 * indexes; NULL: every usable PU) lands on, or of one node (the OS's number). */
void topology_memcache_of_pus(const struct topology *topo, const int *pus, int n,
                              struct memcache_use *out);
void topology_memcache_of_node(const struct topology *topo, unsigned node_os,
                               struct memcache_use *out);

/* hwloc takes minutes to build a topology of many more PUs than any node has. */
#define SYNTHETIC_MAX_PUS 8192

/* The PUs a HWLOC_SYNTHETIC description makes (the product of its arities): 0 when it cannot
 * tell (hwloc judges the text), UINT64_MAX when the product does not fit in 64 bits. */
uint64_t synthetic_pus(const char *description);

/* LLC facts from a sysfs tree (normally /sys/devices/system/cpu), for machines where hwloc has
 * no cache information. Returns 0 and fills level/count/bytes, or -1 when nothing is known. */
int llc_from_sysfs(const char *cpu_root, int *level, int *count, uint64_t *bytes);

#endif
