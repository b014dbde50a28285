/* The 2 MB sweep (one thread, on huge pages), the splinter check (are 2 MB pages translated
 * whole or in 4 KB pieces?) and what the two say about the TLB's reach. */
#include "src/tlb/tlb_team.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/base/interrupt.h"
#include "src/base/parse.h"
#include "src/tlb/tlb_curve.h"
#include "src/tlb/tlb_huge_check.h"
#include "src/tlb/tlb_levels.h"

#define SPLINTER_N 512.0

/* An interrupted 2 MB sweep: not reported (the 4 KB sweep is). */
static void huge_dropped(struct tlb_result *out, struct tlb_worker *w)
{
    tlb_curve_free(&out->huge.main);
    out->huge.analysed = false;
    snprintf(out->huge_why, sizeof(out->huge_why), "%s before it finished",
             interrupt_stop_reason());
    tlb_region_release(&w->huge_tp);
}

/* Thread 0's huge pages for the huge sweep, touched and confirmed; false (the reason in
 * out->huge_why) when there are none. */
static bool huge_region_ready(struct tlb_team *tm, size_t n)
{
    struct tlb_result *out = tm->out;
    struct tlb_worker *w = &tm->w[0];
    char why[300];
    if (tlb_region_alloc_huge(&w->huge_tp, n * tlb_huge_bytes(), why, sizeof(why)) != 0) {
        snprintf(out->huge_why, sizeof(out->huge_why), "%.230s", why);
        return false;
    }
    if (!tlb_region_touch(&w->huge_tp, tlb_huge_bytes())) {
        tm->stop = true;
        huge_dropped(out, w);
        return false;
    }
    backing_verify(SMAPS, w->huge_tp.backend, (uintptr_t)w->huge_tp.base,
                   (uintptr_t)(w->huge_tp.base + n * tlb_huge_bytes()), w->huge_tp.how,
                   &out->huge_backing);
    if (tlb_huge_confirmed(&out->huge_backing, 0.99, out->huge_why, sizeof(out->huge_why)) != 0) {
        tlb_region_release(&w->huge_tp);
        return false;
    }
    return true;
}

static void huge_knee_params(const struct tlb_plan *plan, const struct tlb_sweep *small,
                             struct knee_params *p)
{
    tlb_knee_params(plan, p);
    if (small->analysis.n_levels > 0 && isfinite(small->analysis.levels[0].entries)) {
        /* the control lives on 4 KB pages: its own misses follow the 4 KB first level */
        p->control_tlb_entries = small->analysis.levels[0].entries_low;
        p->control_tlb_high = small->analysis.levels[0].entries_high;
        p->control_tlb_penalty_ns = small->analysis.levels[0].miss_penalty_ns;
        /* three times a 4 KB second-level hit, as the 4 KB sweep's step into walks */
        if (isfinite(p->control_tlb_penalty_ns)) p->walk_step_ns = 3.0 * p->control_tlb_penalty_ns;
    }
}

/* The refinement points of the 2 MB sweep's first pass that lie within its n pages. */
static void huge_refinement(struct tlb_team *tm, const struct tlb_sweep *s,
                            const struct knee_params *p, size_t n)
{
    double x[GRID_MAX + REFINE_MAX];
    for (size_t i = 0; i < s->main.n; i++)
        x[i] = s->main.pts[i].pages;
    size_t m = knees_refine(&s->analysis, p, x, s->main.n, tm->xs, REFINE_MAX);
    tm->nx = 0; /* the control's knees reach past this sweep's pages */
    for (size_t i = 0; i < m; i++)
        if (tm->xs[i] <= (double)n) tm->xs[tm->nx++] = tm->xs[i];
    tm->refined = true;
}

/* The grid and its refinement on n huge pages; false when it was stopped or failed. */
static bool huge_sweep(struct tlb_team *tm, size_t n)
{
    const struct tlb_plan *plan = tm->plan;
    struct tlb_result *out = tm->out;
    struct tlb_sweep *s = &out->huge;
    s->page_bytes = tlb_huge_bytes();
    tm->nx = tlb_sweep_grid(n, tm->xs, GRID_MAX);
    tm->refined = false;
    struct knee_params p;
    struct tlb_sweep *small = &out->per_thread[0].small;
    huge_knee_params(plan, small, &p);
    for (int pass = 0; pass < 2 && tm->nx > 0; pass++) {
        /* the grid's points are in the control already; refinement points get theirs */
        if (tlb_measure_into(tm, 0, TLB_SET_HUGE, false, &s->main,
                             pass == 0 ? NULL : &small->control) != 0)
            return false;
        if (tm->stop) { /* a part of a huge sweep is not reported: the small one is */
            huge_dropped(out, &tm->w[0]);
            return false;
        }
        tlb_finish_sweep(s, &small->control, plan, out, TLB_PAGE_2M, &p);
        if (pass == 0 && s->analysed) huge_refinement(tm, s, &p, n);
    }
    s->control = small->control; /* shared, for the writers */
    s->control_owned = false;
    out->huge_measured = true;
    if (plan->huge_why[0]) snprintf(s->note, sizeof(s->note), "%s", plan->huge_why);
    return true;
}

/* The splinter check: 512 distinct base-page pieces of one huge page (4 KB of 2 MB), against
 * 512 separate base pages and the control, re-measured in the same rounds so that other work on the
 * machine weighs on all three alike. */
static void splinter_check(struct tlb_team *tm)
{
    const struct tlb_options *o = &tm->plan->opts;
    struct tlb_worker *w = &tm->w[0];
    const struct tlb_sweep *small = &tm->out->per_thread[0].small;
    double at = 0;
    for (size_t i = 0; i < small->main.n; i++)
        if (small->main.pts[i].pages <= SPLINTER_N && !small->main.pts[i].refined)
            at = small->main.pts[i].pages;
    if (at < 8) return;
    double best[3] = {INFINITY, INFINITY, INFINITY};
    for (unsigned r = 0; r < o->repeat && !(tm->stop |= interrupt_should_stop() != 0); r++) {
        for (int which = 0; which < 3; which++) {
            char *base = which == 0 ? w->huge_tp.base : which == 1 ? w->main.base : w->control.base;
            tlb_chain_build(&w->chain, o->mode, base, (size_t)at,
                            which == 2 ? TLB_LAYOUT_DENSE : TLB_LAYOUT_SPREAD, page_base_bytes(),
                            o->stagger, o->order, tlb_point_seed(at, 3 + which, 0), w->order,
                            w->offsets);
            uint64_t chunk = tlb_calibrate(&w->chain, CHUNK_TARGET_S, interrupt_should_stop);
            struct tlb_sample smp;
            if (!tlb_sample_run(&w->chain, chunk, CHUNKS_PER_SAMPLE, interrupt_should_stop, &smp)) {
                tm->stop = true; /* the round under way is not a figure */
                break;
            }
            w->sink += w->chain.sink;
            if (smp.ns_per_access < best[which]) best[which] = smp.ns_per_access;
        }
    }
    struct tlb_splinter *sp = &tm->out->splinter;
    sp->measured = !tm->stop;
    sp->at = at;
    sp->huge_ns = best[0];
    sp->small_ns = best[1];
    sp->control_ns = best[2];
    double gap = sp->small_ns - sp->control_ns;
    double min_gap = fmax(0.15 * sp->small_ns, 0.3);
    double r = gap > min_gap ? (sp->huge_ns - sp->control_ns) / gap : NAN;
    sp->verdict = !isfinite(r) ? -1 : r <= 0.3 ? 1 : r >= 0.7 ? 0 : -1;
}

/* The 2 MB sweep and the splinter check, on thread 0 only. */
void tlb_huge_phase(struct tlb_team *tm)
{
    size_t n = (size_t)tm->plan->max_huge_pages;
    if (!huge_region_ready(tm, n) || !huge_sweep(tm, n)) return;
    splinter_check(tm);
    tlb_region_release(&tm->w[0].huge_tp);
}

void tlb_describe_reach(struct tlb_result *out)
{
    char *s = out->reach_note;
    size_t len = sizeof(out->reach_note), used = 0;
    struct tlb_sweep *small = &out->per_thread[0].small;
    const struct tlb_splinter *sp = &out->splinter;
    char H[PAGE_TEXT_LEN], S[PAGE_TEXT_LEN];
    page_size_text(tlb_huge_bytes(), H);
    page_size_text(page_base_bytes(), S);
    if (!out->huge_measured) {
        out->huge_extends_reach = -1;
        return;
    }
    if (sp->verdict == 0) {
        out->huge_extends_reach = 0;
        for (size_t i = 0; i < TLB_LEVELS_MAX; i++) /* entries x huge pages: a fiction */
            out->huge.reach_bytes[i] = NAN;
        used += (size_t)snprintf(
            s + used, len - used,
            "%s pages are translated in %s pieces here: %.0f distinct %s pieces of one %s "
            "page cost %.2f ns per access, %s %.0f separate %s pages (%.2f ns) and far more "
            "than the control (%.2f ns)",
            H, S, sp->at, S, H, sp->huge_ns,
            sp->huge_ns > 1.15 * sp->small_ns ? "more than" : "as much as", sp->at, S, sp->small_ns,
            sp->control_ns);
        snprintf(s + used, len - used, "%s%s%s; huge pages do not extend the TLB reach",
                 out->cpuid.hypervisor ? " (a VM whose host backs guest memory with " : "",
                 out->cpuid.hypervisor ? S : "",
                 out->cpuid.hypervisor ? " pages splits them)" : "");
        return;
    }
    const struct tlb_sweep *huge = &out->huge;
    double small_reach = small->analysis.n_levels ? small->reach_bytes[0] : NAN;
    double huge_reach = huge->analysis.n_levels ? huge->reach_bytes[0] : NAN;
    if (sp->verdict == 1 && isfinite(small_reach) && isfinite(huge_reach)) {
        out->huge_extends_reach = huge_reach > small_reach;
        char a[32], b[32];
        format_bytes((uint64_t)small_reach, a, sizeof(a));
        format_bytes((uint64_t)huge_reach, b, sizeof(b));
        snprintf(s, len,
                 "%s pages are translated whole (%.0f pieces of one %s page cost %.2f ns, like "
                 "the control's %.2f ns); first-level reach %s with %s pages against %s with "
                 "%s pages",
                 H, sp->at, H, sp->huge_ns, sp->control_ns, b, H, a, S);
        return;
    }
    out->huge_extends_reach = -1;
    if (sp->measured)
        snprintf(s, len,
                 "unclear whether %s pages are translated whole: %.0f pieces of one %s page "
                 "cost %.2f ns, between separate %s pages (%.2f ns) and the control (%.2f ns)",
                 H, sp->at, H, sp->huge_ns, S, sp->small_ns, sp->control_ns);
    else
        snprintf(s, len, "%s shows no translation cost at %.0f pages to compare with",
                 tlb_sweep_name(false), SPLINTER_N);
}
