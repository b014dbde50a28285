#include "src/stream/plan_size.h"

#include <stdio.h>
#include <string.h>

#include "src/stream/array_layout.h"
#include "src/base/log.h"
#include "src/base/parse.h"

static const char *topo_no_llc_reason = "hwloc and sysfs report none";

int plan_resolve_size(const struct stream_options *o, size_t index, struct run_config *r)
{
    size_t es = elem_size(o->type);
    char why[300];
    if (o->n_sizes == 0) {
        if (r->llc_bytes == 0) {
            log_error("the last-level cache size is unknown (%s); give the array size with "
                      "--size, e.g. --size 1GiB",
                      topo_no_llc_reason);
            return EXIT_RESOURCE;
        }
        if (llc_rule_elements(r->llc_bytes, (unsigned)STREAM_LLC_MULTIPLE, es, STREAM_MIN_ELEMENTS,
                              &r->elements) != 0) {
            char llc[32];
            format_bytes(r->llc_bytes, llc, sizeof(llc));
            log_error("the last-level cache in use (%s) is too large to size arrays at 4x it (the "
                      "byte count does not fit in 64 bits); check the topology or give --size",
                      llc);
            return EXIT_USAGE;
        }
        snprintf(r->size_label, sizeof(r->size_label), "%s", STREAM_RULE_LABEL);
        return EXIT_OK;
    }
    const struct size_spec *spec = &o->sizes[index];
    if (spec->kind == SIZE_LLC_MULTIPLE && r->llc_bytes == 0) {
        log_error("--size %s: the last-level cache size is unknown (%s); give the size in bytes "
                  "instead, e.g. --size 1GiB",
                  spec->text, topo_no_llc_reason);
        return EXIT_RESOURCE;
    }
    if (size_to_elements(spec, r->llc_bytes, es, &r->elements, why, sizeof(why)) != 0) {
        log_error("--size: %s; see membench --help", why);
        return EXIT_USAGE;
    }
    snprintf(r->size_label, sizeof(r->size_label), "%s", spec->text);
    return EXIT_OK;
}

void plan_size_topology(bool this_system)
{
    topo_no_llc_reason =
        this_system ? "hwloc and sysfs report none" : "the given topology has no caches";
}

/* Runs of one sweep compare best at one array size: the largest any of them needs, so every
 * run still keeps the STREAM rule for the LLCs its own threads use (and the memory-side cache
 * rule for the nodes its pages land on). */
void plan_share_largest_rule_size(struct plan *plan)
{
    size_t largest = 0;
    for (size_t i = 0; i < plan->n_runs; i++)
        if (plan->runs[i].elements > plan->runs[largest].elements) largest = i;
    const struct run_config *l = &plan->runs[largest];
    bool llc_rule = strcmp(l->size_label, STREAM_RULE_LABEL) == 0;
    for (size_t i = 0; i < plan->n_runs; i++) {
        struct run_config *r = &plan->runs[i];
        if (r->elements == l->elements) continue;
        r->elements = l->elements;
        snprintf(r->size_label, sizeof(r->size_label), "%s",
                 llc_rule ? "4xLLC (STREAM rule, largest of the sweep)"
                          : "memory-side cache (largest of the sweep)");
    }
}
