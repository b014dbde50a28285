#ifndef MEMBENCH_MEMORY_NODES_H
#define MEMBENCH_MEMORY_NODES_H

#include <stdbool.h>
#include <stdint.h>

#include <hwloc.h>

/* What the firmware (ACPI HMAT, read by hwloc as memory attributes) says of a node's memory
 * from its nearest cores: MB/s and ns, 0 where it says nothing. */
struct mem_firmware {
    uint64_t bandwidth, read_bandwidth, write_bandwidth;
    uint64_t latency, read_latency, write_latency;
};

/* One NUMA node, named as the OS names it (numactl, /sys, Slurm). */
struct mem_node {
    unsigned os;      /* the OS's number */
    unsigned logical; /* hwloc's logical index */
    hwloc_obj_t obj;
    uint64_t bytes;   /* capacity */
    char subtype[16]; /* hwloc's word for its kind (DRAM, HBM, MCDRAM, NVM, SPM, CXL...), "" */
    bool has_cpus;    /* the OS lists CPUs on it */
    bool cpus_known;  /* read from sysfs; false: inferred from a described topology */
    bool usable;      /* its cores or its memory reach the process's usable CPUs */
    hwloc_bitmap_t initiator;     /* the CPUs nearest to it, within the usable ones */
    int initiator_node;           /* OS number of the node with cores holding them; -1 */
    const char *initiator_source; /* "HMAT" (a memory attribute's initiator) or "hwloc locality" */
    struct mem_firmware firmware;
    uint64_t memcache_bytes; /* memory-side caches in front of it, summed over levels */
    int memcache_levels;
    int tier; /* index in node_memory.tiers */
};

/* Nodes of one kind with like firmware figures: what a site accepts as one memory. */
struct mem_tier {
    char name[24]; /* a token for options and labels: dram, hbm, cxl, local, memory-only ... */
    char kind[24]; /* subtype, else "with cores" / "memory only" */
    bool has_cpus;
    int count;
    int first;      /* index in node_memory.nodes of its first node */
    uint64_t bytes; /* summed */
};

#define MEM_TIERS_MAX 16

struct node_memory {
    int count;
    struct mem_node *nodes; /* by OS number */
    int tier_count;
    struct mem_tier tiers[MEM_TIERS_MAX];
    bool hmat; /* any node has a firmware figure */
};

/* The memory-side caches: hwloc's MemCache objects, and the form hwloc 2 keeps from a v1
 * description (a KNL's MCDRAM in cache mode), a CPU-cache level whose subtype is
 * "MemorySideCache" (memory_side_cache_v1), never a CPU cache. _next walks each once (NULL to
 * start); _serves says whether one is in front of a NUMA node. */
bool memory_side_cache_v1(const struct hwloc_obj *o);
hwloc_obj_t memory_side_cache_next(hwloc_topology_t hw, hwloc_obj_t prev);
bool memory_side_cache_serves(const struct hwloc_obj *cache, const struct hwloc_obj *node);

/* Reads every NUMA node of hw. cpus_from_sysfs: the topology is this machine's, so
 * /sys/devices/system/node says which nodes have CPUs; else it is inferred (see .c).
 * Returns 0, -1 when out of memory. */
int node_memory_read(hwloc_topology_t hw, hwloc_const_cpuset_t usable, bool cpus_from_sysfs,
                     struct node_memory *out);
void node_memory_free(struct node_memory *m);

const struct mem_node *node_memory_by_os(const struct node_memory *m, unsigned os);
/* The node with cores that a PU belongs to (the OS's number), -1 when none. */
int node_memory_pu_node(const struct node_memory *m, unsigned pu_os);
/* The firmware's bandwidth to tier t (MB/s, each node's from its nearest cores, Bandwidth
 * else ReadBandwidth), summed over the nodes a run's threads were bound to (thread_node[],
 * OS numbers; NULL: the tier's nodes that usable cores are near); 0 when one has no figure. */
uint64_t node_memory_tier_firmware_mbps(const struct node_memory *m, int t,
                                        const int *thread_node, unsigned threads);
/* The nodes of tier t in OS order, as "0-3,8" (OS numbers). */
void node_memory_tier_list(const struct node_memory *m, int t, char *buf, size_t len);

/* The firmware's figure for node target's memory as reached from the CPUs `from` (a row of a
 * NUMA matrix: its node's cores): hwloc's memory attribute whose initiator holds them. MB/s:
 * Bandwidth, else ReadBandwidth; ns: ReadLatency (a pointer chase reads), else Latency. 0 where
 * the firmware says nothing: on Linux hwloc knows only each node's nearest initiators, so most
 * pairs have no figure. */
enum mem_figure { MEM_FIGURE_MBPS, MEM_FIGURE_NS };
uint64_t node_memory_firmware_from(hwloc_topology_t hw, hwloc_const_cpuset_t from,
                                   const struct mem_node *target, enum mem_figure what);

#endif
