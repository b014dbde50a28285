#include "affinity/topology.h"

#include "affinity/launch_cpus.h"
#include "src/sys/cgroup_cpuset.h"
#include "src/base/utf8_text.h"
#include "src/sys/sysinfo.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int count_allowed(hwloc_topology_t hw, hwloc_const_cpuset_t allowed, hwloc_obj_type_t type)
{
    int n = 0;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(hw, type, o));)
        if (!o->cpuset || hwloc_bitmap_intersects(o->cpuset, allowed)) n++;
    return n;
}

bool topology_is_cpu_cache(const struct hwloc_obj *o)
{
    return hwloc_obj_type_is_dcache(o->type) &&
           o->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION && !memory_side_cache_v1(o);
}

/* The deepest-numbered data or unified cache level, summed over every instance that covers
 * an allowed CPU: a node with one L3 per CCX has many, and all of them hold STREAM arrays. */
static int llc_from_hwloc(hwloc_topology_t hw, hwloc_const_cpuset_t allowed,
                          struct topology_facts *f)
{
    static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE,
                                              HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
                                              HWLOC_OBJ_L1CACHE};
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        int count = 0;
        uint64_t total = 0;
        for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(hw, levels[i], o));) {
            if (!topology_is_cpu_cache(o)) continue;
            if (o->cpuset && !hwloc_bitmap_intersects(o->cpuset, allowed)) continue;
            count++;
            if (__builtin_add_overflow(total, (uint64_t)o->attr->cache.size, &total)) return -1;
        }
        if (count > 0 && total > 0) {
            f->llc_level = (int)(5 - i);
            f->llc_count = count;
            f->llc_bytes_total = total;
            f->llc_source = "hwloc";
            return 0;
        }
    }
    return 0;
}

/* This machine's model as its OS names it: hwloc's CPUModel comes from CPUID when its x86
 * backend runs, and a guest moved to another host reads another brand there than /proc/cpuinfo
 * (read at boot) keeps; the same node must give the same name from one run to the next. */
static void cpu_model(hwloc_topology_t hw, bool is_machine, char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    if (is_machine && cpuinfo_model_name("/proc/cpuinfo", buf, len) == 0) return;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_PACKAGE, o));) {
        const char *model = hwloc_obj_get_info_by_name(o, "CPUModel");
        if (model) {
            snprintf(buf, len, "%s", model);
            text_squeeze_blanks(buf);
            return;
        }
    }
}

/* The machine as a cpuset cgroup cannot hide it: hwloc leaves out the PUs that the cgroup
 * disallows, so when sysfs has more CPUs online than hwloc found, a second topology that keeps
 * the disallowed PUs counts the machine (the first one, which the runs use, stays as it is).
 * Returns that topology, or NULL when the first one is the whole machine. */
static hwloc_topology_t whole_machine(const struct topology *topo)
{
    if (!topo->facts.is_machine) return NULL;
    char text[2048];
    hwloc_bitmap_t online = hwloc_bitmap_alloc();
    bool hidden = online &&
                  read_first_line("/sys/devices/system/cpu/online", text, sizeof(text)) == 0 &&
                  hwloc_bitmap_list_sscanf(online, text) == 0 &&
                  !hwloc_bitmap_isincluded(online, hwloc_topology_get_topology_cpuset(topo->hw));
    hwloc_bitmap_free(online);
    hwloc_topology_t whole = NULL;
    if (!hidden || hwloc_topology_init(&whole) != 0) return NULL;
    if (hwloc_topology_set_flags(whole, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) != 0 ||
        hwloc_topology_load(whole) != 0) {
        hwloc_topology_destroy(whole);
        return NULL;
    }
    return whole;
}

/* Why fewer PUs are usable than the machine has online: a cpuset cgroup (a job step, a
 * container: the PUs the whole machine's topology does not allow) or this process's affinity
 * mask at launch (taskset, numactl, an MPI launcher's or srun's binding). */
static void restriction_cause(struct topology *topo, hwloc_topology_t machine,
                              hwloc_const_bitmap_t online, hwloc_const_bitmap_t launch)
{
    struct topology_facts *f = &topo->facts;
    hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(machine);
    char list[128], file[160];
    bool read = f->this_system && cgroup_cpuset_cpus("/proc/self/cgroup", "/sys/fs/cgroup", list,
                                                     sizeof(list), file, sizeof(file)) == 0;
    /* hwloc hides what the cgroup disallows, unless told not to (HWLOC_ALLOW=all): the
     * cgroup's own file says it too, and then the launch mask is only its consequence */
    hwloc_bitmap_t cgroup = read ? hwloc_bitmap_alloc() : NULL;
    bool limits = cgroup && hwloc_bitmap_list_sscanf(cgroup, list) == 0 &&
                  !hwloc_bitmap_isincluded(online, cgroup);
    hwloc_bitmap_free(cgroup);
    if (!hwloc_bitmap_isincluded(online, allowed) || limits) {
        snprintf(f->restricted_by, sizeof(f->restricted_by), "cgroup cpuset");
        if (read)
            snprintf(f->restricted_how, sizeof(f->restricted_how), "%.140s is %.80s", file, list);
        else {
            hwloc_bitmap_list_snprintf(list, sizeof(list), allowed);
            snprintf(f->restricted_how, sizeof(f->restricted_how), "the cpuset allows %s", list);
        }
        return;
    }
    snprintf(f->restricted_by, sizeof(f->restricted_by), "affinity mask");
    hwloc_bitmap_list_snprintf(list, sizeof(list), launch ? launch : topo->usable);
    snprintf(f->restricted_how, sizeof(f->restricted_how), "the process was started on CPUs %s",
             list);
}

/* The CPUs membench may use: those the OS allows (cgroups) and this process was launched on
 * (taskset, mpirun --bind-to, a batch system); never the OpenMP runtime's pin of thread 0.
 * Nothing is ever placed outside them. */
static void usable_cpus(struct topology *topo, hwloc_topology_t machine)
{
    struct topology_facts *f = &topo->facts;
    topo->usable = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo->hw));
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    bool launched =
        f->this_system && launch_cpus(bound) == 0 && hwloc_bitmap_intersects(bound, topo->usable);
    if (launched) hwloc_bitmap_and(topo->usable, topo->usable, bound);
    /* Offline PUs (e.g. SMT turned off) are nobody's: they do not make a run restricted. */
    hwloc_const_bitmap_t online = hwloc_topology_get_topology_cpuset(machine);
    f->restricted = !hwloc_bitmap_isincluded(online, topo->usable);
    if (f->restricted) restriction_cause(topo, machine, online, launched ? bound : NULL);
    hwloc_bitmap_free(bound);
    hwloc_bitmap_list_snprintf(f->cpus, sizeof(f->cpus), topo->usable);
}

/* The variable that tells hwloc its topology is not this system's: HWLOC_THISSYSTEM, or
 * HWLOC_FSROOT (another root's /sys and /proc, any root but "/"). */
static void not_this_system(char *source, size_t len)
{
    static const char *const told[] = {"HWLOC_THISSYSTEM", "HWLOC_FSROOT"};
    for (size_t i = 0; i < sizeof(told) / sizeof(told[0]); i++) {
        const char *v = getenv(told[i]);
        if (v && *v) {
            snprintf(source, len, "%s=%.140s", told[i], v);
            return;
        }
    }
    snprintf(source, len, "an HWLOC_* variable");
}

/* What hwloc would hang on: a FIFO as HWLOC_XMLFILE blocks its read for ever, a huge synthetic
 * machine takes minutes to build. */
static int check_description(char *why, size_t why_len)
{
    const char *synthetic = getenv("HWLOC_SYNTHETIC"), *xml = getenv("HWLOC_XMLFILE");
    if (synthetic && *synthetic) {
        uint64_t pus = synthetic_pus(synthetic);
        if (pus > SYNTHETIC_MAX_PUS) {
            char count[32] = "more than 2^64";
            if (pus != UINT64_MAX) snprintf(count, sizeof(count), "%llu", (unsigned long long)pus);
            snprintf(why, why_len,
                     "HWLOC_SYNTHETIC=%.80s describes %s PUs; membench accepts at most %d: "
                     "describe a smaller machine",
                     synthetic, count, SYNTHETIC_MAX_PUS);
            return -2;
        }
    }
    if (xml && *xml) {
        struct stat st;
        if (stat(xml, &st) != 0 || access(xml, R_OK) != 0) {
            snprintf(why, why_len,
                     "HWLOC_XMLFILE=%.120s cannot be read (%s); point it at an XML file written "
                     "by lstopo (a relative path is taken from the current directory)",
                     xml, strerror(errno));
            return -2;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(why, why_len,
                     "HWLOC_XMLFILE=%.120s %s; point it at an XML file written by lstopo", xml,
                     S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
            return -2;
        }
    }
    return 0;
}

/* The major version of an hwloc XML file (<topology version="3.0">); 0 when it says none. */
static unsigned xml_major(const char *path)
{
    char head[4096] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(head, 1, sizeof(head) - 1, f);
    fclose(f);
    head[n] = '\0';
    const char *at = strstr(head, "<topology version=\"");
    unsigned major = 0;
    if (at && sscanf(at + strlen("<topology version=\""), "%u", &major) != 1) major = 0;
    return major;
}

/* Why hwloc_topology_load failed (errno is its reason): a description the user gave is bad
 * input (-2, with the fix), this machine's own discovery a resource missing (-1). */
static int load_failed(char *why, size_t why_len)
{
    const char *reason = strerror(errno);
    const char *synthetic = getenv("HWLOC_SYNTHETIC"), *xml = getenv("HWLOC_XMLFILE");
    unsigned api = hwloc_get_api_version(), readable = api >> 16;
    if (synthetic && *synthetic) {
        snprintf(why, why_len,
                 "HWLOC_SYNTHETIC=%.120s: hwloc could not build it (%s); fix the description or "
                 "unset it",
                 synthetic, reason);
        return -2;
    }
    if (xml && *xml) {
        unsigned major = xml_major(xml);
        if (major > readable)
            snprintf(why, why_len,
                     "HWLOC_XMLFILE=%.120s is hwloc XML version %u, which this hwloc (%u.%u.%u) "
                     "cannot read; write it again with hwloc %u's lstopo --export-xml-flags v%u",
                     xml, major, api >> 16, (api >> 8) & 0xff, api & 0xff, major, readable);
        else
            snprintf(why, why_len,
                     "HWLOC_XMLFILE=%.120s: hwloc could not load it (%s); fix the file (lstopo "
                     "--of xml writes one) or unset it",
                     xml, reason);
        return -2;
    }
    snprintf(why, why_len, "hwloc could not discover this machine's topology (%s)", reason);
    return -1;
}

int topology_load(struct topology *topo, char *why, size_t why_len)
{
    memset(topo, 0, sizeof(*topo));
    int refused = check_description(why, why_len);
    if (refused) return refused;
    /* hwloc drops memory-side caches unless asked to keep them */
    if (hwloc_topology_init(&topo->hw) != 0 ||
        hwloc_topology_set_type_filter(topo->hw, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_ALL) !=
            0 ||
        hwloc_topology_load(topo->hw) != 0) {
        int failed = load_failed(why, why_len);
        if (topo->hw) hwloc_topology_destroy(topo->hw);
        topo->hw = NULL;
        return failed;
    }
    struct topology_facts *f = &topo->facts;
    f->this_system = hwloc_topology_is_thissystem(topo->hw);
    const char *synthetic = getenv("HWLOC_SYNTHETIC"), *xml = getenv("HWLOC_XMLFILE");
    if (synthetic && *synthetic)
        snprintf(f->source, sizeof(f->source), "HWLOC_SYNTHETIC=%.160s", synthetic);
    else if (xml && *xml)
        snprintf(f->source, sizeof(f->source), "HWLOC_XMLFILE=%.160s", xml);
    else if (!f->this_system)
        not_this_system(f->source, sizeof(f->source));
    else
        snprintf(f->source, sizeof(f->source), "this machine");
    f->is_machine = strcmp(f->source, "this machine") == 0;
    /* hwloc quietly falls back to the real machine when the variable does not parse; a test
     * of a fake machine must never silently measure the host instead. */
    const char *forced = getenv("HWLOC_THISSYSTEM");
    if ((synthetic && *synthetic) || (xml && *xml)) {
        if (f->this_system && !(forced && strcmp(forced, "1") == 0)) {
            snprintf(why, why_len,
                     "%s was not accepted by hwloc; fix the topology description or unset it",
                     f->source);
            hwloc_topology_destroy(topo->hw);
            topo->hw = NULL;
            return -2;
        }
    }
    cpu_model(topo->hw, f->is_machine, f->cpu_model, sizeof(f->cpu_model));
    /* machine_pus and machine_cores count what is online, whatever a cpuset cgroup hides */
    hwloc_topology_t whole = whole_machine(topo);
    hwloc_topology_t machine = whole ? whole : topo->hw;
    usable_cpus(topo, machine);
    f->packages = count_allowed(topo->hw, topo->usable, HWLOC_OBJ_PACKAGE);
    f->numa_nodes = count_allowed(topo->hw, topo->usable, HWLOC_OBJ_NUMANODE);
    f->cores = count_allowed(topo->hw, topo->usable, HWLOC_OBJ_CORE);
    f->pus = count_allowed(topo->hw, topo->usable, HWLOC_OBJ_PU);
    if (f->packages == 0) f->packages = 1;
    if (f->cores == 0) f->cores = f->pus;
    hwloc_const_cpuset_t online = hwloc_topology_get_topology_cpuset(machine);
    f->machine_cores = count_allowed(machine, online, HWLOC_OBJ_CORE);
    f->machine_pus = count_allowed(machine, online, HWLOC_OBJ_PU);
    if (whole) hwloc_topology_destroy(whole);
    if (f->machine_cores == 0) f->machine_cores = f->machine_pus;
    f->llc_source = "unknown";
    if (llc_from_hwloc(topo->hw, topo->usable, f) != 0) {
        snprintf(why, why_len,
                 "%s: the last-level caches add up to more than 2^64 bytes; fix the cache sizes "
                 "in the topology description",
                 f->source);
        topology_unload(topo);
        return -2;
    }
    /* sysfs describes this machine: never mix it into a synthetic or XML topology. */
    if (f->llc_bytes_total == 0 && f->this_system &&
        llc_from_sysfs("/sys/devices/system/cpu", &f->llc_level, &f->llc_count,
                       &f->llc_bytes_total) == 0)
        f->llc_source = "sysfs";
    if (node_memory_read(topo->hw, topo->usable, f->is_machine, &topo->memory) != 0) {
        snprintf(why, why_len, "out of memory reading the NUMA nodes");
        topology_unload(topo);
        return -1;
    }
    topology_memcache_of_pus(topo, NULL, 0, &f->memcache);
    return 0;
}

void topology_unload(struct topology *topo)
{
    node_memory_free(&topo->memory);
    if (topo->usable) hwloc_bitmap_free(topo->usable);
    topo->usable = NULL;
    if (topo->hw) hwloc_topology_destroy(topo->hw);
    topo->hw = NULL;
}

static int logical_index_of(hwloc_topology_t hw, hwloc_obj_t pu, hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(hw, type, pu);
    return o ? (int)o->logical_index : -1;
}

struct pu_location topology_locate_pu(const struct topology *topo, int pu_os)
{
    struct pu_location where = {-1, -1, -1, -1, -1};
    hwloc_obj_t pu = pu_os >= 0 ? hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)pu_os) : NULL;
    if (!pu) return where;
    where.kind = hwloc_cpukinds_get_by_cpuset(topo->hw, pu->cpuset, 0);
    where.core = logical_index_of(topo->hw, pu, HWLOC_OBJ_CORE);
    where.package = logical_index_of(topo->hw, pu, HWLOC_OBJ_PACKAGE);
    hwloc_obj_type_t llc = (hwloc_obj_type_t)(HWLOC_OBJ_L1CACHE + topo->facts.llc_level - 1);
    for (hwloc_obj_t o = pu->parent; topo->facts.llc_level > 0 && o; o = o->parent)
        if (o->type == llc && topology_is_cpu_cache(o) &&
            strcmp(topo->facts.llc_source, "hwloc") == 0) {
            where.llc = (int)o->logical_index;
            break;
        }
    where.numa = node_memory_pu_node(&topo->memory, (unsigned)pu_os);
    return where;
}

static int caches_in_front(hwloc_topology_t hw, const struct hwloc_obj *node)
{
    int n = 0;
    for (hwloc_obj_t c = NULL; (c = memory_side_cache_next(hw, c));)
        n += memory_side_cache_serves(c, node);
    return n;
}

static void memcache_of_nodes(hwloc_topology_t hw, hwloc_const_nodeset_t nodes,
                              struct memcache_use *out)
{
    memset(out, 0, sizeof(*out));
    hwloc_bitmap_t behind = hwloc_bitmap_alloc();
    if (!behind) return;
    for (hwloc_obj_t c = NULL; (c = memory_side_cache_next(hw, c));) {
        bool serves = false;
        for (hwloc_obj_t node = NULL;
             (node = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, node));)
            if (hwloc_bitmap_isset(nodes, node->os_index) && memory_side_cache_serves(c, node)) {
                serves = true;
                hwloc_bitmap_set(behind, node->os_index);
            }
        if (!serves) continue;
        out->count++;
        if (__builtin_add_overflow(out->bytes, (uint64_t)c->attr->cache.size, &out->bytes))
            out->bytes = UINT64_MAX;
    }
    for (hwloc_obj_t node = NULL;
         (node = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, node));)
        if (hwloc_bitmap_isset(behind, node->os_index)) {
            int levels = caches_in_front(hw, node);
            if (levels > out->levels) out->levels = levels;
        }
    if (out->count) hwloc_bitmap_list_snprintf(out->nodes, sizeof(out->nodes), behind);
    hwloc_bitmap_free(behind);
}

void topology_memcache_of_pus(const struct topology *topo, const int *pus, int n,
                              struct memcache_use *out)
{
    memset(out, 0, sizeof(*out));
    hwloc_bitmap_t cpus = pus ? hwloc_bitmap_alloc() : hwloc_bitmap_dup(topo->usable);
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    for (int t = 0; cpus && pus && t < n; t++)
        if (pus[t] >= 0) hwloc_bitmap_set(cpus, (unsigned)pus[t]);
    if (cpus && nodes) {
        unsigned pu;
        hwloc_bitmap_foreach_begin(pu, cpus)
        {
            int home = node_memory_pu_node(&topo->memory, pu);
            if (home >= 0) hwloc_bitmap_set(nodes, (unsigned)home);
        }
        hwloc_bitmap_foreach_end();
        memcache_of_nodes(topo->hw, nodes, out);
    }
    hwloc_bitmap_free(cpus);
    hwloc_bitmap_free(nodes);
}

void topology_memcache_of_node(const struct topology *topo, unsigned node_os,
                               struct memcache_use *out)
{
    memset(out, 0, sizeof(*out));
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    if (!nodes) return;
    hwloc_bitmap_set(nodes, node_os);
    memcache_of_nodes(topo->hw, nodes, out);
    hwloc_bitmap_free(nodes);
}
