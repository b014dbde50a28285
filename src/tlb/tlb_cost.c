/* The TLB probe's memory and time, estimated from its plan (no measurement: a dry run states
 * them too). A sample is CHUNKS_PER_SAMPLE chunks of at least CHUNK_TARGET_S, or of one
 * traversal where that is longer (pages x TLB_EST_NS_PER_ACCESS); each point takes K of them
 * per curve. */
#include "src/tlb/tlb_cost.h"

#include <math.h>

#include "src/tlb/tlb_curve.h"
#include "src/tlb/tlb_sets.h"
#include "src/tlb/tlb_team.h"

uint64_t tlb_cost_small_extra_bytes(void)
{
    return TLB_LINE_BYTES + TLB_REUSE_SLOTS * (sizeof(uint32_t) + sizeof(size_t));
}

static double sample_seconds(double pages, double accesses_per_page)
{
    double traversal = pages * accesses_per_page * TLB_EST_NS_PER_ACCESS * 1e-9;
    return CHUNKS_PER_SAMPLE * fmax(CHUNK_TARGET_S, traversal);
}

double tlb_cost_sweep_seconds(uint64_t max_pages, unsigned repeat, bool huge, uint64_t bytes)
{
    double x[GRID_MAX];
    size_t n = tlb_sweep_grid(max_pages, x, GRID_MAX);
    double grid = 0;
    for (size_t i = 0; i < n; i++)
        grid += sample_seconds(x[i], 1.0);
    double sets = huge ? TLB_EST_HUGE_SETS : TLB_EST_SMALL_SETS;
    double curves = huge ? TLB_EST_HUGE_CURVES : 2.0;
    return TLB_EST_OVERHEAD * grid * sets * curves * repeat +
           (double)bytes / TLB_EST_TOUCH_BYTES_PER_S;
}

double tlb_cost_point_seconds(uint64_t pages, uint64_t trials, unsigned repeat, uint64_t bytes)
{
    double sample = trials ? (double)trials * (double)pages * TLB_EST_NS_PER_ACCESS * 1e-9
                           : sample_seconds((double)pages, 1.0);
    return TLB_EST_OVERHEAD * sample * repeat + (double)bytes / TLB_EST_TOUCH_BYTES_PER_S;
}

double tlb_cost_sets_seconds(size_t points, unsigned repeat, uint64_t bytes)
{
    return TLB_EST_OVERHEAD * (double)points * repeat * TLB_SETS_CHUNKS * CHUNK_TARGET_S +
           (double)bytes / TLB_EST_TOUCH_BYTES_PER_S;
}

void tlb_cost_total(struct tlb_cost *c)
{
    const struct tlb_cost_item *it = c->item;
    uint64_t beside = 0;
    for (int i = TLB_COST_SMALL + 1; i < TLB_COST_KINDS; i++)
        if (it[i].planned && it[i].bytes > beside) beside = it[i].bytes;
    c->peak_bytes = it[TLB_COST_SMALL].bytes + beside;
    c->seconds = 0;
    for (int i = 0; i < TLB_COST_KINDS; i++)
        if (it[i].planned) c->seconds += it[i].seconds;
}

double tlb_cost_percent(const struct tlb_cost *c, uint64_t bytes)
{
    return c->basis_bytes ? 100.0 * (double)bytes / (double)c->basis_bytes : NAN;
}
