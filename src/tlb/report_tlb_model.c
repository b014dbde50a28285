/* The model fit of each level (tlb_model_fit.h) as the text and JSON reports give it. */
#include <math.h>
#include <stdio.h>

#include "src/tlb/report_tlb_words.h"

/* "model: direct index, 8-way, 309 sets: 2469 entries (the curve does not decide 2314-2519;
 * rms 0.76 ns over 14 points of 1152-3456 pages; walk +10.6 ns; ways from CPUID)" */
void report_tlb_model_line(char *buf, size_t len, const struct tlb_sweep *s, size_t i)
{
    const struct tlb_model_fit *f = &s->model[i];
    int n = 0;
    if (f->index == TLB_INDEX_FULL)
        n = snprintf(buf, len, "model: fully associative");
    else
        n = snprintf(buf, len, "model: %s index, %u-way, %.0f sets", tlb_model_index_name(f->index),
                     f->ways, f->sets);
    if (n < 0 || (size_t)n >= len) return;
    snprintf(buf + n, len - (size_t)n,
             ": %.0f entries (the curve does not decide %.0f-%.0f; rms %.2f ns over %zu points of "
             "%.0f-%.0f pages; walk +%.1f ns%s%s)",
             f->entries, f->entries_low, f->entries_high, f->rms_ns, f->points, f->window_low,
             f->window_high, f->walk_ns, s->model_ways_documented[i] ? "; ways from CPUID" : "",
             s->model_index_known[i] ? "; index from the stride probe" : "");
}

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *report_tlb_model_json(const struct tlb_sweep *s, size_t i)
{
    const struct tlb_model_fit *f = &s->model[i];
    if (!f->ok) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "index", json_string(tlb_model_index_name(f->index)));
    json_object_set_new(o, "ways", f->ways ? json_integer(f->ways) : json_null());
    json_object_set_new(o, "ways_from_cpuid", json_boolean(s->model_ways_documented[i]));
    json_object_set_new(o, "index_from_stride_probe", json_boolean(s->model_index_known[i]));
    json_object_set_new(o, "sets", number(f->sets));
    json_object_set_new(o, "entries", json_integer((json_int_t)f->entries));
    json_object_set_new(o, "entries_low", json_integer((json_int_t)f->entries_low));
    json_object_set_new(o, "entries_high", json_integer((json_int_t)f->entries_high));
    json_object_set_new(o, "base_ns", number(f->base_ns));
    json_object_set_new(o, "walk_ns", number(f->walk_ns));
    json_object_set_new(o, "walk_growth_ns", number(f->walk_growth_ns));
    json_object_set_new(o, "rms_ns", number(f->rms_ns));
    json_object_set_new(o, "points_used", json_integer((json_int_t)f->points));
    json_object_set_new(o, "window_low_pages", number(f->window_low));
    json_object_set_new(o, "window_high_pages", number(f->window_high));
    return o;
}
