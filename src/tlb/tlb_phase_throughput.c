/* The page-walk throughput phase: translations per second on 4 KB against 2 MB pages. */
#include "src/tlb/tlb_team.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/base/stats.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/tlb/tlb_huge_check.h"

#define THROUGHPUT_MIN_S 0.05

/* Thread t's region for one backing (which: 0 for 4 KB, 1 for 2 MB), allocated, touched and
 * checked; the first failure's reason goes into out->walk[which].why. */
static void prepare_region(struct tlb_team *tm, int t, int which, struct tlb_region *r)
{
    struct tlb_throughput *tp = &tm->out->walk[which];
    char why[300] = "";
    int failed = 0;
    if (which && !tm->thp_possible)
        failed = 1;
    else if ((which ? tlb_region_alloc_huge(r, THROUGHPUT_BYTES, why, sizeof(why))
                    : tlb_region_alloc_small(r, THROUGHPUT_BYTES, "4k", why, sizeof(why))) != 0)
        failed = 2;
    struct backing_info b = {0};
    if (!failed) {
        tlb_region_touch(r, which ? tlb_huge_bytes() : page_base_bytes());
        backing_verify(SMAPS, r->backend, (uintptr_t)r->base, (uintptr_t)(r->base + r->bytes),
                       r->how, &b);
        if (which && tlb_huge_confirmed(&b, 0.9, why, sizeof(why)) != 0) {
            failed = 3;
        } else if (!which && b.verified && b.anon_huge_bytes > 0) {
            char small[PAGE_TEXT_LEN];
            snprintf(why, sizeof(why), "the %s region came back %.0f%% on huge pages",
                     page_size_text(page_base_bytes(), small), 100.0 * b.thp_fraction);
            failed = 3;
        }
    }
#pragma omp critical(tlb_tp)
    {
        if (failed && !tp->why[0])
            snprintf(tp->why, sizeof(tp->why), "%.190s",
                     failed == 1 ? "transparent huge pages are off ([never])" : why);
        if (!failed && (t == 0 || b.thp_fraction < tp->thp_fraction))
            tp->thp_fraction = b.thp_fraction;
    }
}

/* One warm-up pass per backing; thread 0 sizes a round to >= 50 ms (tm->tp_accesses). */
static void size_rounds(struct tlb_team *tm, int t, const bool go[2],
                        struct tlb_region *const regions[2], size_t pos[2])
{
    struct tlb_worker *w = &tm->w[t];
    const size_t pages = THROUGHPUT_BYTES / page_base_bytes();
    for (int which = 0; which < 2; which++) {
        if (!go[which]) continue;
        w->sink += tlb_walk_loads(regions[which]->base, w->order, pages, &pos[which], pages);
        if (t == 0) {
            double t0 = timer_now();
            w->sink += tlb_walk_loads(regions[which]->base, w->order, pages, &pos[which], pages);
            double dt = timer_now() - t0;
            uint64_t reps = dt > 0 ? (uint64_t)ceil(THROUGHPUT_MIN_S / dt) : 1;
            tm->tp_accesses[which] = pages * (reps < 1 ? 1 : reps);
        }
    }
}

/* K rounds, the backings alternating; thread 0 keeps each round's aggregate rate. */
static void time_rounds(struct tlb_team *tm, int t, const bool go[2],
                        struct tlb_region *const regions[2], size_t pos[2], double rates[2][1000])
{
    struct tlb_worker *w = &tm->w[t];
    const size_t pages = THROUGHPUT_BYTES / page_base_bytes();
    uint64_t accesses[2] = {tm->tp_accesses[0], tm->tp_accesses[1]};
    for (unsigned k = 0; k < tm->plan->opts.repeat && !tlb_team_should_stop(tm); k++) {
        for (int which = 0; which < 2; which++) {
            if (!go[which]) continue;
#pragma omp barrier
            if (t == 0) tm->tp_t0 = timer_now();
#pragma omp barrier
            w->sink +=
                tlb_walk_loads(regions[which]->base, w->order, pages, &pos[which], accesses[which]);
#pragma omp barrier
            if (t == 0) {
                double dt = timer_now() - tm->tp_t0;
                rates[which][k] = dt > 0 ? (double)accesses[which] * tm->plan->threads / dt : 0.0;
            }
        }
    }
}

/* Thread 0: each backing's best and median rate, or why it is not reported. */
static void record_rates(struct tlb_team *tm, const bool go[2], double rates[2][1000])
{
    unsigned K = tm->plan->opts.repeat;
    for (int which = 0; which < 2; which++) {
        if (!go[which]) continue;
        struct tlb_throughput *tp = &tm->out->walk[which];
        if (tm->stop) { /* rounds missing: not reported */
            snprintf(tp->why, sizeof(tp->why), "%s before it finished", interrupt_stop_reason());
            continue;
        }
        qsort(rates[which], K, sizeof(double), compare_doubles);
        tp->measured = true;
        tp->best_accesses_per_s = rates[which][K - 1];
        tp->median_accesses_per_s =
            K % 2 ? rates[which][K / 2] : 0.5 * (rates[which][K / 2 - 1] + rates[which][K / 2]);
        tp->region_bytes = THROUGHPUT_BYTES;
        tp->threads = tm->plan->threads;
    }
}

/* Random independent loads over 128 MiB per thread, one per 4 KB page, on 4 KB and on 2 MB
 * backing, every thread at once: aggregate translations per second. The two backings
 * alternate round by round, so other work on the machine weighs on both alike. */
void tlb_throughput_phase(struct tlb_team *tm, int t)
{
    struct tlb_worker *w = &tm->w[t];
    if (tlb_team_should_stop(tm)) return;
    if (tm->plan->walk_why[0]) { /* the plan left it out: every thread returns here */
        if (t == 0)
            for (int which = 0; which < 2; which++)
                snprintf(tm->out->walk[which].why, sizeof(tm->out->walk[which].why), "%.190s",
                         tm->plan->walk_why);
        return;
    }
    if (t == 0) tm->phase = "its page-walk throughput phase";
    tlb_shuffle(w->order, THROUGHPUT_BYTES / page_base_bytes(), 0x7157ull + (uint64_t)t);
    struct tlb_region *const regions[2] = {&w->small_tp, &w->huge_tp};
    size_t pos[2] = {0, 0};
    for (int which = 0; which < 2; which++)
        prepare_region(tm, t, which, regions[which]);
#pragma omp barrier
    bool go[2] = {!tm->out->walk[0].why[0], !tm->out->walk[1].why[0]};
    size_rounds(tm, t, go, regions, pos);
#pragma omp barrier
    double rates[2][1000];
    time_rounds(tm, t, go, regions, pos, rates);
    if (t == 0) record_rates(tm, go, rates);
#pragma omp barrier
    tlb_region_release(regions[0]);
    tlb_region_release(regions[1]);
}
