#include "affinity/policy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bind_text_is_list(const char *text)
{
    if (!*text) return 0;
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != ',' && *p != '-') return 0;
    return 1;
}

static int parse_pu_list(const char *text, struct bind_spec *out, char *why, size_t why_len)
{
    out->pus = malloc(BIND_LIST_MAX * sizeof(int));
    if (!out->pus) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    const char *p = text;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p)) {
            snprintf(why, why_len, "PU list '%s' has an empty item; write e.g. 0,2,4-7", text);
            return -1;
        }
        long lo = strtol(p, &end, 10), hi = lo;
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1])) {
                snprintf(why, why_len, "PU list '%s' has an open range; write e.g. 4-7", text);
                return -1;
            }
            hi = strtol(end + 1, &end, 10);
        }
        if (hi < lo) {
            snprintf(why, why_len, "PU range %ld-%ld in '%s' is empty (runs backwards)", lo, hi,
                     text);
            return -1;
        }
        if (hi >= 65536) {
            snprintf(why, why_len, "PU %ld in '%s' is beyond any machine", hi, text);
            return -1;
        }
        for (long pu = lo; pu <= hi; pu++) {
            for (int i = 0; i < out->n_pus; i++)
                if (out->pus[i] == pu) {
                    snprintf(why, why_len, "PU %ld appears twice in '%s'; list each PU once", pu,
                             text);
                    return -1;
                }
            if (out->n_pus == BIND_LIST_MAX) {
                snprintf(why, why_len, "PU list '%s' has more than %d PUs", text, BIND_LIST_MAX);
                return -1;
            }
            out->pus[out->n_pus++] = (int)pu;
        }
        p = end;
        if (*p == ',') {
            p++;
            if (!*p) {
                snprintf(why, why_len, "PU list '%s' ends with a comma", text);
                return -1;
            }
        }
    }
    return 0;
}

int bind_spec_parse(const char *text, struct bind_spec *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->text, sizeof(out->text), "%s", text);
    if (strcmp(text, "none") == 0)
        out->kind = BIND_NONE;
    else if (strcmp(text, "compact") == 0)
        out->kind = BIND_COMPACT;
    else if (strcmp(text, "scatter") == 0)
        out->kind = BIND_SCATTER;
    else if (bind_text_is_list(text)) {
        out->kind = BIND_LIST;
        if (parse_pu_list(text, out, why, why_len) != 0) {
            bind_spec_free(out);
            return -1;
        }
    } else {
        snprintf(why, why_len,
                 "unknown binding '%s'; use compact, scatter, none or a PU list "
                 "like 0,2,4-7",
                 text);
        return -1;
    }
    return 0;
}

void bind_spec_free(struct bind_spec *spec)
{
    free(spec->pus);
    spec->pus = NULL;
    spec->n_pus = 0;
}

/* A growable list of hwloc objects. */
struct obj_list {
    hwloc_obj_t *items;
    int n, cap;
};

static void push(struct obj_list *l, hwloc_obj_t o)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->items = realloc(l->items, (size_t)l->cap * sizeof(*l->items));
    }
    l->items[l->n++] = o;
}

static int allowed(const struct topology *topo, hwloc_obj_t o)
{
    return o->cpuset && hwloc_bitmap_intersects(o->cpuset, topo->usable);
}

/* Cores under obj, taking one from each child in turn so consecutive cores land in different
 * packages, groups, NUMA nodes and LLCs: the round-robin of KMP_AFFINITY=scatter. */
static void scatter_cores(const struct topology *topo, hwloc_obj_t obj, struct obj_list *out)
{
    if (obj->type == HWLOC_OBJ_CORE || obj->arity == 0) {
        if (allowed(topo, obj)) push(out, obj);
        return;
    }
    struct obj_list *parts = calloc(obj->arity, sizeof(*parts));
    int longest = 0;
    for (unsigned i = 0; i < obj->arity; i++) {
        scatter_cores(topo, obj->children[i], &parts[i]);
        if (parts[i].n > longest) longest = parts[i].n;
    }
    for (int round = 0; round < longest; round++)
        for (unsigned i = 0; i < obj->arity; i++)
            if (round < parts[i].n) push(out, parts[i].items[round]);
    for (unsigned i = 0; i < obj->arity; i++)
        free(parts[i].items);
    free(parts);
}

static void compact_cores(const struct topology *topo, struct obj_list *out)
{
    hwloc_obj_type_t type =
        hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(topo->hw, type, o));)
        if (allowed(topo, o)) push(out, o);
}

/* Allowed PUs in policy order: the first PU of every core, then every core's second, ... */
static int pu_order(const struct topology *topo, const struct obj_list *cores, int *order)
{
    hwloc_const_cpuset_t ok = topo->usable;
    int n = 0;
    for (int level = 0;; level++) {
        int added = 0;
        for (int c = 0; c < cores->n; c++) {
            int seen = 0;
            int pu;
            hwloc_bitmap_foreach_begin(pu, cores->items[c]->cpuset)
            {
                if (hwloc_bitmap_isset(ok, (unsigned)pu)) {
                    if (seen == level) {
                        order[n++] = pu;
                        added = 1;
                    }
                    seen++;
                }
            }
            hwloc_bitmap_foreach_end();
        }
        if (!added) return n;
    }
}

int placement_plan(const struct topology *topo, const struct bind_spec *spec, int n, int *pus,
                   char *why, size_t why_len)
{
    for (int t = 0; t < n; t++)
        pus[t] = -1;
    hwloc_const_cpuset_t ok = topo->usable;
    if (spec->kind == BIND_NONE || spec->kind == BIND_OPENMP_ENV) return 0;
    if (spec->kind == BIND_LIST) {
        if (spec->n_pus < n) {
            snprintf(why, why_len,
                     "--bind %s lists %d PU%s for %d threads; list at least one PU per thread",
                     spec->text, spec->n_pus, spec->n_pus == 1 ? "" : "s", n);
            return -1;
        }
        for (int t = 0; t < n; t++) {
            if (!hwloc_bitmap_isset(ok, (unsigned)spec->pus[t])) {
                char list[256];
                hwloc_bitmap_list_snprintf(list, sizeof(list), ok);
                snprintf(why, why_len,
                         "--bind %s: PU %d is not one this process may use (allowed: %s)",
                         spec->text, spec->pus[t], list);
                return -1;
            }
            pus[t] = spec->pus[t];
        }
        return 0;
    }
    struct obj_list cores = {0};
    if (spec->kind == BIND_SCATTER)
        scatter_cores(topo, hwloc_get_root_obj(topo->hw), &cores);
    else
        compact_cores(topo, &cores);
    int total = hwloc_bitmap_weight(ok);
    int *order = malloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    int count = order ? pu_order(topo, &cores, order) : 0;
    free(cores.items);
    if (count == 0) {
        free(order);
        snprintf(why, why_len, "no allowed PUs found in the topology for --bind %s", spec->text);
        return -1;
    }
    for (int t = 0; t < n; t++)
        pus[t] = order[t % count];
    free(order);
    return 0;
}

int placement_cores_within(const struct topology *topo, hwloc_const_cpuset_t within, int *pus,
                           int max)
{
    struct obj_list cores = {0};
    compact_cores(topo, &cores);
    int n = 0;
    hwloc_bitmap_t here = hwloc_bitmap_alloc();
    for (int c = 0; here && c < cores.n && n < max; c++) {
        hwloc_bitmap_and(here, cores.items[c]->cpuset, within);
        hwloc_bitmap_and(here, here, topo->usable);
        int pu = hwloc_bitmap_first(here);
        if (pu >= 0) pus[n++] = pu;
    }
    hwloc_bitmap_free(here);
    free(cores.items);
    return n;
}

int placement_numa_node(const struct topology *topo, int node, int *pus, int max)
{
    const struct mem_node *n = node >= 0 ? node_memory_by_os(&topo->memory, (unsigned)node) : NULL;
    if (!n || !n->has_cpus || !n->obj->cpuset) return 0;
    return placement_cores_within(topo, n->obj->cpuset, pus, max);
}

int numa_matrix_rows(const struct topology *topo, int *rows)
{
    int n = 0, pu;
    for (int i = 0; i < topo->memory.count; i++)
        if (placement_numa_node(topo, (int)topo->memory.nodes[i].os, &pu, 1) > 0)
            rows[n++] = (int)topo->memory.nodes[i].os;
    return n;
}

void llc_in_use(const struct topology *topo, const int *pus, int n, int *count, uint64_t *bytes)
{
    *count = topo->facts.llc_count;
    *bytes = topo->facts.llc_bytes_total;
    if (!pus || topo->facts.llc_source == NULL || strcmp(topo->facts.llc_source, "hwloc") != 0)
        return;
    hwloc_bitmap_t used = hwloc_bitmap_alloc();
    for (int t = 0; t < n; t++)
        if (pus[t] >= 0) hwloc_bitmap_set(used, (unsigned)pus[t]);
    if (hwloc_bitmap_iszero(used)) {
        hwloc_bitmap_free(used);
        return;
    }
    hwloc_obj_type_t type = (hwloc_obj_type_t)(HWLOC_OBJ_L1CACHE + topo->facts.llc_level - 1);
    int c = 0;
    uint64_t b = 0;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(topo->hw, type, o));) {
        if (!topology_is_cpu_cache(o)) continue;
        if (o->cpuset && hwloc_bitmap_intersects(o->cpuset, used)) {
            c++;
            if (__builtin_add_overflow(b, (uint64_t)o->attr->cache.size, &b)) b = UINT64_MAX;
        }
    }
    hwloc_bitmap_free(used);
    if (c > 0) {
        *count = c;
        *bytes = b;
    }
}
