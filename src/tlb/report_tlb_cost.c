/* The header's memory and time: what each part of the probe maps and about how long it takes
 * (text and JSON), and the note when a part was shortened to the share or went past it. */
#include <math.h>
#include <stdio.h>

#include "src/base/json_values.h"
#include "src/base/page_sizes.h"
#include "src/base/parse.h"
#include "src/tlb/report_tlb_cost.h"

static const char *const part_keys[TLB_COST_KINDS] = {"sweep", "huge_sweep", "walk_throughput",
                                                      "stride_probe"};

#define ESTIMATE_BASIS                                                                             \
    "estimated from the plan, not measured: K samples per point and curve of >= 20 chunks of "     \
    ">= 0.5 ms (or of one traversal at 50 ns per access), the refinement and the reuse chase "     \
    "counted as grid-sized sets, x2.2 for calibration and set-up (the recorded runs' ratio), "     \
    "first touch at 2 GiB/s"

static void part_name(const struct tlb_cost *c, int kind, char *buf, size_t len)
{
    char size[PAGE_TEXT_LEN];
    if (kind == TLB_COST_THROUGHPUT)
        snprintf(buf, len, "page-walk throughput");
    else if (kind == TLB_COST_SETS)
        snprintf(buf, len, "stride probe");
    else
        snprintf(buf, len, "%s %s", page_size_text(c->item[kind].page_bytes, size),
                 kind == TLB_COST_SMALL && c->single_point ? "point" : "sweep");
}

static const char *basis_word(const struct tlb_cost *c)
{
    return c->by_cgroup ? "the memory cgroup's headroom" : "MemAvailable";
}

static const char *seconds_text(double s, char *buf, size_t len)
{
    if (s < 1.0)
        snprintf(buf, len, "under 1 s");
    else
        snprintf(buf, len, "about %.0f s", s);
    return buf;
}

static void write_part(FILE *out, const struct tlb_cost *c, int kind)
{
    const struct tlb_cost_item *it = &c->item[kind];
    char name[48], bytes[32], secs[32];
    part_name(c, kind, name, sizeof(name));
    format_bytes(it->bytes, bytes, sizeof(bytes));
    if (kind == TLB_COST_THROUGHPUT)
        fprintf(out, "  %s (%s), %llu pages per backing and thread", name, it->source,
                (unsigned long long)it->pages);
    else if (kind == TLB_COST_SETS)
        fprintf(out, "  %s (%s), up to %llu pages at once and their page tables", name, it->source,
                (unsigned long long)it->pages);
    else
        fprintf(out, "  %s %s %llu pages (%s)", name, c->single_point ? "of" : "to",
                (unsigned long long)it->pages, it->source);
    if (it->threads > 1) fprintf(out, " x %d threads", it->threads);
    fprintf(out, ": %s", bytes);
    if (c->basis_bytes) fprintf(out, " (%.1f%%)", tlb_cost_percent(c, it->bytes));
    fprintf(out, ", %s\n", seconds_text(it->seconds, secs, sizeof(secs)));
}

void report_tlb_cost_text(FILE *out, const struct tlb_cost *c)
{
    if (!c->known) return;
    char peak[32], basis[32], secs[32];
    format_bytes(c->peak_bytes, peak, sizeof(peak));
    fprintf(out, "Memory and time: maps up to %s at once (", peak);
    if (c->basis_bytes) {
        format_bytes(c->basis_bytes, basis, sizeof(basis));
        fprintf(out, "%.1f%% of %s %s; the default plan stays under %.0f%%",
                tlb_cost_percent(c, c->peak_bytes), basis_word(c), basis, 100.0 * c->share);
    } else {
        fprintf(out, "%s unknown: not bounded", basis_word(c));
    }
    fprintf(out, "), %s in all (estimated):\n", seconds_text(c->seconds, secs, sizeof(secs)));
    for (int k = 0; k < TLB_COST_KINDS; k++)
        if (c->item[k].planned) write_part(out, c, k);
    if (c->note[0]) fprintf(out, "NOTE: %s\n", c->note);
}

static json_t *part_json(const struct tlb_cost *c, int kind)
{
    const struct tlb_cost_item *it = &c->item[kind];
    json_t *o = json_object();
    json_object_set_new(o, "part", json_string(part_keys[kind]));
    json_object_set_new(o, "source", json_string(it->source));
    json_object_set_new(o, "page_size_bytes", json_integer((json_int_t)it->page_bytes));
    json_object_set_new(o, "pages", json_integer((json_int_t)it->pages));
    json_object_set_new(o, "threads", json_integer(it->threads));
    json_object_set_new(o, "bytes", json_integer((json_int_t)it->bytes));
    json_object_set_new(o, "share_of_basis", real_or_null(tlb_cost_percent(c, it->bytes) / 100.0));
    json_object_set_new(o, "seconds_estimate", real_or_null(it->seconds));
    return o;
}

json_t *report_tlb_cost_json(const struct tlb_cost *c)
{
    if (!c->known) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "share", json_real(c->share));
    json_object_set_new(o, "basis",
                        json_string(c->by_cgroup ? "cgroup_headroom" : "mem_available"));
    json_object_set_new(o, "basis_bytes",
                        c->basis_bytes ? json_integer((json_int_t)c->basis_bytes) : json_null());
    json_object_set_new(o, "bound_bytes",
                        c->bound_bytes ? json_integer((json_int_t)c->bound_bytes) : json_null());
    json_object_set_new(o, "explicit_size", json_boolean(c->explicit_size));
    json_object_set_new(o, "single_point", json_boolean(c->single_point));
    json_object_set_new(o, "peak_bytes", json_integer((json_int_t)c->peak_bytes));
    json_object_set_new(o, "peak_share_of_basis",
                        real_or_null(tlb_cost_percent(c, c->peak_bytes) / 100.0));
    json_object_set_new(o, "seconds_estimate", real_or_null(c->seconds));
    json_object_set_new(o, "estimate_basis", json_string(ESTIMATE_BASIS));
    json_object_set_new(o, "note", c->note[0] ? json_string(c->note) : json_null());
    json_t *parts = json_array();
    for (int k = 0; k < TLB_COST_KINDS; k++)
        if (c->item[k].planned) json_array_append_new(parts, part_json(c, k));
    json_object_set_new(o, "parts", parts);
    return o;
}
