#include "src/stream/plan_memcache.h"

#include <stdio.h>
#include <string.h>

#include "src/base/log.h"
#include "src/base/page_sizes.h"
#include "src/stream/plan_memory.h"

static const char *node_word(const struct memcache_use *m)
{
    return strpbrk(m->nodes, ",-") ? "nodes" : "node";
}

/* The run with arrays of the memory-side caches' size; false when no such arrays can be had
 * (why says what stops them). */
static bool past_cache(const struct run_config *r, const struct sys_info *sys,
                       struct run_config *wide, char *why, size_t why_len)
{
    size_t es = elem_size(r->type);
    *wide = *r;
    wide->elements = r->memcache.bytes / es + (r->memcache.bytes % es != 0);
    if (wide->elements < r->elements) wide->elements = r->elements;
    if (plan_lay_out(wide) != 0) {
        snprintf(why, why_len, "their byte counts do not fit in 64 bits");
        return false;
    }
    return plan_backing_serves(wide, sys, why, why_len);
}

void plan_memcache_widen(struct run_config *r, const struct sys_info *sys)
{
    if (r->memcache.bytes == 0 ||
        (double)r->elements * (double)elem_size(r->type) >= (double)r->memcache.bytes)
        return;
    struct run_config wide;
    char why[300];
    if (!past_cache(r, sys, &wide, why, sizeof(why))) return;
    r->elements = wide.elements;
    snprintf(r->size_label, sizeof(r->size_label), "%s", MEMCACHE_RULE_LABEL);
}

void plan_memcache_note(const struct run_config *r, char *buf, size_t len)
{
    char each[32], cache[32];
    format_bytes(r->array_bytes, each, sizeof(each));
    format_bytes(r->memcache.bytes, cache, sizeof(cache));
    snprintf(buf, len,
             "arrays (%s each) fit in the %s memory-side cache in front of %s %s: the figures "
             "are the memory-side cache's, not the memory's",
             each, cache, node_word(&r->memcache), r->memcache.nodes);
}

int plan_memcache_check(struct run_config *r, const struct sys_info *sys, bool acceptance)
{
    r->in_memcache = r->memcache.bytes && r->array_bytes < r->memcache.bytes;
    if (!r->in_memcache || !acceptance) return EXIT_OK;
    char each[32], cache[32], wide_each[32], why[300];
    struct run_config wide;
    past_cache(r, sys, &wide, why, sizeof(why));
    format_bytes(r->array_bytes, each, sizeof(each));
    format_bytes(r->memcache.bytes, cache, sizeof(cache));
    format_bytes(wide.array_bytes, wide_each, sizeof(wide_each));
    log_error("--acceptance judges the memory, but the arrays (%s each) fit in the %s "
              "memory-side cache in front of %s %s, and arrays past it (3 x %s) do not fit: %s; "
              "run on a node with more free memory, or without --acceptance (the figures are "
              "then the cache's)",
              each, cache, node_word(&r->memcache), r->memcache.nodes, wide_each, why);
    return EXIT_RESOURCE;
}
