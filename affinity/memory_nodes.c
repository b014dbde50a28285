#include "affinity/memory_nodes.h"

#include "src/sys/sysinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_os(const void *a, const void *b)
{
    const struct mem_node *x = a, *y = b;
    return (x->os > y->os) - (x->os < y->os);
}

bool memory_side_cache_v1(const struct hwloc_obj *o)
{
    return hwloc_obj_type_is_cache(o->type) && o->subtype &&
           strcmp(o->subtype, "MemorySideCache") == 0;
}

/* The kinds a memory-side cache is built of, never the memory it caches: a v1 description
 * puts a KNL's DRAM and its MCDRAM node both below the MCDRAM cache (its v2 conversion only
 * the MCDRAM node). */
static bool is_cache_memory(const struct hwloc_obj *node)
{
    return node->subtype &&
           (strcmp(node->subtype, "MCDRAM") == 0 || strcmp(node->subtype, "HBM") == 0);
}

/* A MemCache is in front of the nodes below it; the v1 form, a CPU cache object, in front of
 * the memory of its locality (the nodes whose cores it covers). */
bool memory_side_cache_serves(const struct hwloc_obj *cache, const struct hwloc_obj *node)
{
    if (cache->type == HWLOC_OBJ_MEMCACHE)
        return cache->nodeset && hwloc_bitmap_isset(cache->nodeset, node->os_index);
    return !is_cache_memory(node) && cache->cpuset && node->cpuset &&
           !hwloc_bitmap_iszero(node->cpuset) &&
           hwloc_bitmap_isincluded(node->cpuset, cache->cpuset);
}

/* Every memory-side cache once: the MemCache objects, then the v1 form by level. */
hwloc_obj_t memory_side_cache_next(hwloc_topology_t hw, hwloc_obj_t prev)
{
    static const hwloc_obj_type_t types[] = {HWLOC_OBJ_MEMCACHE, HWLOC_OBJ_L1CACHE,
                                             HWLOC_OBJ_L2CACHE,  HWLOC_OBJ_L3CACHE,
                                             HWLOC_OBJ_L4CACHE,  HWLOC_OBJ_L5CACHE};
    size_t i = 0, n = sizeof(types) / sizeof(types[0]);
    while (prev && i < n && types[i] != prev->type)
        i++;
    for (; i < n; i++, prev = NULL)
        for (hwloc_obj_t o = prev; (o = hwloc_get_next_obj_by_type(hw, types[i], o));)
            if (types[i] == HWLOC_OBJ_MEMCACHE || memory_side_cache_v1(o)) return o;
    return NULL;
}

static void memory_side_caches(hwloc_topology_t hw, struct mem_node *n)
{
    for (hwloc_obj_t c = NULL; (c = memory_side_cache_next(hw, c));)
        if (memory_side_cache_serves(c, n->obj)) {
            n->memcache_bytes += c->attr->cache.size;
            n->memcache_levels++;
        }
}

static bool sysfs_has_cpus(unsigned os, bool *known)
{
    char path[96], list[64];
    snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", os);
    *known = read_first_line(path, list, sizeof(list)) == 0;
    return *known && list[0] != '\0' && list[0] != '\n';
}

/* Which of the nodes whose cpuset holds a PU is the one the PU sits on: those of the
 * narrowest locality, and among them ordinary memory (no subtype, or DRAM) before the
 * kinds that come beside it without cores (HBM, MCDRAM, NVM, SPM, CXL), then the lowest OS
 * number. A PU has one node; the others of its locality are memory-only. */
static int pu_home_candidate(const struct node_memory *m, unsigned pu)
{
    int best = -1, best_weight = 0;
    bool best_plain = false;
    for (int i = 0; i < m->count; i++) {
        const struct mem_node *n = &m->nodes[i];
        if (!n->obj->cpuset || !hwloc_bitmap_isset(n->obj->cpuset, pu)) continue;
        int weight = hwloc_bitmap_weight(n->obj->cpuset);
        bool plain = n->subtype[0] == '\0' || strcmp(n->subtype, "DRAM") == 0;
        if (best < 0 || weight < best_weight || (weight == best_weight && plain && !best_plain)) {
            best = i;
            best_weight = weight;
            best_plain = plain;
        }
    }
    return best;
}

static void infer_cpus(struct node_memory *m, hwloc_topology_t hw)
{
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(hw);
    unsigned pu;
    hwloc_bitmap_foreach_begin(pu, all)
    {
        int home = pu_home_candidate(m, pu);
        if (home >= 0) m->nodes[home].has_cpus = true;
    }
    hwloc_bitmap_foreach_end();
}

static void find_cpus(struct node_memory *m, hwloc_topology_t hw, bool from_sysfs)
{
    bool all_known = from_sysfs;
    for (int i = 0; all_known && i < m->count; i++) {
        m->nodes[i].has_cpus = sysfs_has_cpus(m->nodes[i].os, &m->nodes[i].cpus_known);
        all_known = m->nodes[i].cpus_known;
    }
    if (all_known) return;
    for (int i = 0; i < m->count; i++)
        m->nodes[i].has_cpus = m->nodes[i].cpus_known = false;
    infer_cpus(m, hw);
}

static hwloc_const_bitmap_t location_cpus(const struct hwloc_location *loc)
{
    if (loc->type == HWLOC_LOCATION_TYPE_CPUSET) return loc->location.cpuset;
    if (loc->type == HWLOC_LOCATION_TYPE_OBJECT && loc->location.object)
        return loc->location.object->cpuset;
    return NULL;
}

/* One attribute's value from the initiator that hwloc judges best (most bandwidth, least
 * latency); with its initiator's CPUs when *cpus is still unset. */
static uint64_t firmware_value(hwloc_topology_t hw, hwloc_memattr_id_t id, struct mem_node *n)
{
    struct hwloc_location loc;
    hwloc_uint64_t value = 0;
    if (hwloc_memattr_get_best_initiator(hw, id, n->obj, 0, &loc, &value) != 0) return 0;
    hwloc_const_bitmap_t cpus = location_cpus(&loc);
    if (!n->initiator && cpus && !hwloc_bitmap_iszero(cpus)) {
        n->initiator = hwloc_bitmap_dup(cpus);
        n->initiator_source = "HMAT";
    }
    return value;
}

static void read_firmware(hwloc_topology_t hw, struct mem_node *n)
{
    if (n->has_cpus && n->obj->cpuset) {
        n->initiator = hwloc_bitmap_dup(n->obj->cpuset);
        n->initiator_source = "its own cores";
    }
    struct mem_firmware *f = &n->firmware;
    f->bandwidth = firmware_value(hw, HWLOC_MEMATTR_ID_BANDWIDTH, n);
    f->read_bandwidth = firmware_value(hw, HWLOC_MEMATTR_ID_READ_BANDWIDTH, n);
    f->write_bandwidth = firmware_value(hw, HWLOC_MEMATTR_ID_WRITE_BANDWIDTH, n);
    f->latency = firmware_value(hw, HWLOC_MEMATTR_ID_LATENCY, n);
    f->read_latency = firmware_value(hw, HWLOC_MEMATTR_ID_READ_LATENCY, n);
    f->write_latency = firmware_value(hw, HWLOC_MEMATTR_ID_WRITE_LATENCY, n);
    /* a node hwloc attaches outside any core's locality has an empty cpuset: its parent's */
    hwloc_obj_t at = n->obj;
    while (at && (!at->cpuset || hwloc_bitmap_iszero(at->cpuset)))
        at = at->parent;
    if (!n->initiator && at) {
        n->initiator = hwloc_bitmap_dup(at->cpuset);
        n->initiator_source = "hwloc locality";
    }
}

/* The node with cores that holds most of a node's initiator CPUs (itself when it has cores). */
static int initiator_node(const struct node_memory *m, const struct mem_node *n)
{
    if (n->has_cpus) return (int)n->os;
    int best = -1, most = 0;
    for (int i = 0; n->initiator && i < m->count; i++) {
        const struct mem_node *c = &m->nodes[i];
        if (!c->has_cpus || !c->obj->cpuset) continue;
        hwloc_bitmap_t both = hwloc_bitmap_alloc();
        hwloc_bitmap_and(both, c->obj->cpuset, n->initiator);
        int w = hwloc_bitmap_weight(both);
        hwloc_bitmap_free(both);
        if (w > most) {
            most = w;
            best = (int)c->os;
        }
    }
    return best;
}

static bool near(uint64_t a, uint64_t b)
{
    uint64_t hi = a > b ? a : b, lo = a > b ? b : a;
    return hi == lo || (lo > 0 && (double)(hi - lo) <= 0.10 * (double)hi);
}

static void node_kind(const struct mem_node *n, char *buf, size_t len)
{
    if (n->subtype[0])
        snprintf(buf, len, "%s", n->subtype);
    else
        snprintf(buf, len, "%s", n->has_cpus ? "with cores" : "memory only");
}

static bool same_tier(const struct node_memory *m, const struct mem_tier *t,
                      const struct mem_node *n)
{
    const struct mem_node *f = &m->nodes[t->first];
    char kind[24];
    node_kind(n, kind, sizeof(kind));
    return strcmp(kind, t->kind) == 0 && t->has_cpus == n->has_cpus &&
           near(f->firmware.bandwidth, n->firmware.bandwidth) &&
           near(f->firmware.latency, n->firmware.latency);
}

static void tier_name(const struct node_memory *m, struct mem_tier *t)
{
    const struct mem_node *f = &m->nodes[t->first];
    char base[16];
    if (f->subtype[0]) {
        size_t i = 0;
        for (; f->subtype[i] && i + 1 < sizeof(base); i++)
            base[i] = (char)tolower((unsigned char)f->subtype[i]);
        base[i] = '\0';
    } else
        snprintf(base, sizeof(base), "%s", t->has_cpus ? "local" : "memory-only");
    int same = 0;
    for (int i = 0; i < m->tier_count; i++)
        if (&m->tiers[i] != t && strncmp(m->tiers[i].name, base, strlen(base)) == 0) same++;
    if (same == 0)
        snprintf(t->name, sizeof(t->name), "%s", base);
    else
        snprintf(t->name, sizeof(t->name), "%s-%d", base, same + 1);
}

static void group_tiers(struct node_memory *m)
{
    for (int i = 0; i < m->count; i++) {
        struct mem_node *n = &m->nodes[i];
        int t = 0;
        while (t < m->tier_count && !same_tier(m, &m->tiers[t], n))
            t++;
        if (t == m->tier_count) {
            if (t == MEM_TIERS_MAX)
                t--; /* more kinds than any node has: the last absorbs */
            else {
                struct mem_tier *nt = &m->tiers[m->tier_count++];
                memset(nt, 0, sizeof(*nt));
                nt->first = i;
                nt->has_cpus = n->has_cpus;
                node_kind(n, nt->kind, sizeof(nt->kind));
                tier_name(m, nt);
            }
        }
        n->tier = t;
        m->tiers[t].count++;
        m->tiers[t].bytes += n->bytes;
    }
}

static int collect(hwloc_topology_t hw, struct node_memory *m)
{
    int total = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);
    m->nodes = calloc(total > 0 ? (size_t)total : 1, sizeof(*m->nodes));
    if (!m->nodes) return -1;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, o));) {
        struct mem_node *n = &m->nodes[m->count++];
        n->obj = o;
        n->os = o->os_index;
        n->logical = o->logical_index;
        n->bytes = o->attr->numanode.local_memory;
        snprintf(n->subtype, sizeof(n->subtype), "%s", o->subtype ? o->subtype : "");
        n->initiator_node = -1;
    }
    qsort(m->nodes, (size_t)m->count, sizeof(*m->nodes), by_os);
    return 0;
}

int node_memory_read(hwloc_topology_t hw, hwloc_const_cpuset_t usable, bool cpus_from_sysfs,
                     struct node_memory *out)
{
    memset(out, 0, sizeof(*out));
    if (collect(hw, out) != 0) return -1;
    find_cpus(out, hw, cpus_from_sysfs);
    for (int i = 0; i < out->count; i++) {
        struct mem_node *n = &out->nodes[i];
        read_firmware(hw, n);
        memory_side_caches(hw, n);
        if (n->firmware.bandwidth || n->firmware.read_bandwidth || n->firmware.latency ||
            n->firmware.read_latency || n->firmware.write_bandwidth || n->firmware.write_latency)
            out->hmat = true;
        n->usable = n->initiator && hwloc_bitmap_intersects(n->initiator, usable);
    }
    for (int i = 0; i < out->count; i++)
        out->nodes[i].initiator_node = initiator_node(out, &out->nodes[i]);
    group_tiers(out);
    return 0;
}

void node_memory_free(struct node_memory *m)
{
    for (int i = 0; m->nodes && i < m->count; i++)
        if (m->nodes[i].initiator) hwloc_bitmap_free(m->nodes[i].initiator);
    free(m->nodes);
    memset(m, 0, sizeof(*m));
}

const struct mem_node *node_memory_by_os(const struct node_memory *m, unsigned os)
{
    for (int i = 0; i < m->count; i++)
        if (m->nodes[i].os == os) return &m->nodes[i];
    return NULL;
}

int node_memory_pu_node(const struct node_memory *m, unsigned pu_os)
{
    for (int i = 0; i < m->count; i++) {
        const struct mem_node *n = &m->nodes[i];
        if (n->has_cpus && n->obj->cpuset && hwloc_bitmap_isset(n->obj->cpuset, pu_os))
            return (int)n->os;
    }
    return -1;
}

void node_memory_tier_list(const struct node_memory *m, int t, char *buf, size_t len)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (int i = 0; set && i < m->count; i++)
        if (m->nodes[i].tier == t) hwloc_bitmap_set(set, m->nodes[i].os);
    if (set)
        hwloc_bitmap_list_snprintf(buf, len, set);
    else
        snprintf(buf, len, "?");
    hwloc_bitmap_free(set);
}

static uint64_t firmware_between(hwloc_topology_t hw, hwloc_memattr_id_t id,
                                 hwloc_const_cpuset_t from, const struct mem_node *target)
{
    struct hwloc_location loc = {.type = HWLOC_LOCATION_TYPE_CPUSET};
    loc.location.cpuset = (hwloc_cpuset_t)from; /* hwloc only reads it */
    hwloc_uint64_t value = 0;
    if (hwloc_memattr_get_value(hw, id, target->obj, &loc, 0, &value) != 0) return 0;
    return value;
}

uint64_t node_memory_firmware_from(hwloc_topology_t hw, hwloc_const_cpuset_t from,
                                   const struct mem_node *target, enum mem_figure what)
{
    if (!from || hwloc_bitmap_iszero(from)) return 0;
    hwloc_memattr_id_t first =
        what == MEM_FIGURE_MBPS ? HWLOC_MEMATTR_ID_BANDWIDTH : HWLOC_MEMATTR_ID_READ_LATENCY;
    hwloc_memattr_id_t second =
        what == MEM_FIGURE_MBPS ? HWLOC_MEMATTR_ID_READ_BANDWIDTH : HWLOC_MEMATTR_ID_LATENCY;
    uint64_t v = firmware_between(hw, first, from, target);
    return v ? v : firmware_between(hw, second, from, target);
}

static bool node_in_run(const struct mem_node *n, int t, const int *thread_node, unsigned threads)
{
    if (n->tier != t) return false;
    if (!thread_node) return n->usable;
    for (unsigned i = 0; i < threads; i++)
        if (thread_node[i] == (int)n->os) return true;
    return false;
}

uint64_t node_memory_tier_firmware_mbps(const struct node_memory *m, int t, const int *thread_node,
                                        unsigned threads)
{
    uint64_t sum = 0;
    int counted = 0;
    for (int i = 0; i < m->count; i++) {
        const struct mem_node *n = &m->nodes[i];
        if (!node_in_run(n, t, thread_node, threads)) continue;
        uint64_t bw = n->firmware.bandwidth ? n->firmware.bandwidth : n->firmware.read_bandwidth;
        if (!bw) return 0;
        sum += bw;
        counted++;
    }
    return counted ? sum : 0;
}
