#include "kernels/tlb_probe.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/cycle_counter.h"
#include "kernels/latency_chase.h"
#include "kernels/stop_check.h"
#include "src/base/clock.h"
#include "src/base/stats.h"

size_t tlb_element_offset(enum tlb_layout layout, size_t i, size_t n, size_t page_bytes,
                          bool stagger)
{
    const size_t small = page_base_bytes(), lines_per_small = small / TLB_LINE_BYTES;
    if (layout == TLB_LAYOUT_DENSE) {
        /* element i keeps the sweep's line (i mod lines per base page), so both put the same
         * number of elements on each cache set and each page offset; the page rotates with i,
         * so consecutive elements are a base page + 64 bytes apart as in the sweep */
        size_t pages = (n + lines_per_small - 1) / lines_per_small;
        size_t line = i % lines_per_small, round = i / lines_per_small; /* round < pages */
        return ((round + line) % pages) * small + line * TLB_LINE_BYTES;
    }
    if (layout == TLB_LAYOUT_STRIDED)
        return i * page_bytes + (i % lines_per_small) * TLB_LINE_BYTES;
    size_t lines_per_page = page_bytes / TLB_LINE_BYTES;
    return i * page_bytes + (stagger ? (i % lines_per_page) * TLB_LINE_BYTES : 0);
}

size_t tlb_layout_bytes(enum tlb_layout layout, size_t n, size_t page_bytes)
{
    const size_t small = page_base_bytes(), lines_per_small = small / TLB_LINE_BYTES;
    if (layout == TLB_LAYOUT_DENSE) return (n + lines_per_small - 1) / lines_per_small * small;
    return n * page_bytes;
}

static uint64_t xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

void tlb_shuffle(uint32_t *idx, size_t n, uint64_t seed)
{
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)(xorshift(&state) % i);
        uint32_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

void tlb_chain_build(struct tlb_chain *c, enum tlb_mode mode, char *base, size_t n,
                     enum tlb_layout layout, size_t page_bytes, bool stagger, enum tlb_order order,
                     uint64_t seed, uint32_t *order_scratch, size_t *offset_scratch)
{
    memset(c, 0, sizeof(*c));
    c->mode = mode;
    c->base = base;
    c->n = n;
    if (order == TLB_ORDER_RANDOM)
        tlb_shuffle(order_scratch, n, seed); /* visiting order; linked in a ring: one cycle */
    else
        for (size_t i = 0; i < n; i++)
            order_scratch[i] = (uint32_t)i;
    for (size_t k = 0; k < n; k++)
        offset_scratch[k] = tlb_element_offset(layout, order_scratch[k], n, page_bytes, stagger);
    if (mode == TLB_MODE_CHASE) {
        for (size_t k = 0; k < n; k++)
            *(void **)(base + offset_scratch[k]) = base + offset_scratch[(k + 1) % n];
        c->cursor = base + offset_scratch[0];
    } else {
        c->offsets = offset_scratch;
    }
}

void tlb_chain_build_reuse(struct tlb_chain *c, char *base, size_t n, unsigned slots,
                           enum tlb_layout layout, size_t page_bytes, uint64_t seed,
                           uint32_t *order_scratch, size_t *offset_scratch)
{
    if (slots < 1) slots = 1;
    if (slots > TLB_REUSE_SLOTS_MAX) slots = TLB_REUSE_SLOTS_MAX;
    size_t elements = n * slots;
    memset(c, 0, sizeof(*c));
    c->mode = TLB_MODE_CHASE;
    c->base = base;
    c->n = elements;
    tlb_shuffle(order_scratch, elements, seed);
    for (size_t k = 0; k < elements; k++) {
        size_t e = order_scratch[k];
        offset_scratch[k] = tlb_element_offset(layout, e / slots, n, page_bytes, true) +
                            (e % slots) * sizeof(void *);
    }
    for (size_t k = 0; k < elements; k++)
        *(void **)(base + offset_scratch[k]) = base + offset_scratch[(k + 1) % elements];
    c->cursor = base + offset_scratch[0];
}

/* The book's loop: every access a read-modify-write of an int through a volatile pointer, so
 * the compiler keeps each one; the visiting order comes from offsets (read sequentially). */
static size_t increment(char *base, const size_t *offsets, size_t n, size_t pos, uint64_t accesses)
{
    uint64_t done = 0;
    while (done < accesses) {
        size_t stop = n - pos;
        if (stop > accesses - done) stop = (size_t)(accesses - done);
        for (size_t k = 0; k < stop; k++)
            ++*(volatile int *)(base + offsets[pos + k]);
        done += stop;
        pos = (pos + stop) % n;
    }
    return pos;
}

void tlb_chain_run(struct tlb_chain *c, uint64_t accesses)
{
    accesses = (accesses + 7) / 8 * 8;
    if (c->mode == TLB_MODE_CHASE) {
        c->cursor = latency_chase(c->cursor, accesses);
        c->sink += (uintptr_t)c->cursor;
    } else {
        c->pos = increment(c->base, c->offsets, c->n, c->pos, accesses);
        c->sink += c->pos;
    }
}

bool tlb_chain_run_checked(struct tlb_chain *c, uint64_t accesses, stop_fn stop)
{
    accesses = (accesses + 7) / 8 * 8;
    while (accesses > STOP_CHECK_ACCESSES) {
        if (stop_asked(stop)) return false;
        tlb_chain_run(c, STOP_CHECK_ACCESSES);
        accesses -= STOP_CHECK_ACCESSES;
    }
    if (stop_asked(stop)) return false;
    tlb_chain_run(c, accesses);
    return true;
}

#define CHUNKS_MAX 1024

bool tlb_sample_run(struct tlb_chain *c, uint64_t chunk_accesses, int chunks, stop_fn stop,
                    struct tlb_sample *out)
{
    double ns[CHUNKS_MAX];
    memset(out, 0, sizeof(*out));
    if (chunks > CHUNKS_MAX) chunks = CHUNKS_MAX;
    if (chunks < 1) chunks = 1;
    chunk_accesses = (chunk_accesses + 7) / 8 * 8;
    /* warm-up: two traversals bring this point's translations and lines in */
    if (!tlb_chain_run_checked(c, 2 * (uint64_t)c->n, stop)) return false;
    double start = timer_now(), t0 = start;
    for (int k = 0; k < chunks; k++) {
        if (!tlb_chain_run_checked(c, chunk_accesses, stop)) return false;
        double t1 = timer_now();
        ns[k] = (t1 - t0) * 1e9 / (double)chunk_accesses;
        t0 = t1;
    }
    out->seconds = t0 - start;
    out->chunks = chunks;
    out->accesses = chunk_accesses * (uint64_t)chunks;
    qsort(ns, (size_t)chunks, sizeof(ns[0]), compare_doubles);
    out->best_chunk_ns = ns[0];
    out->ns_per_access = chunks % 2 ? ns[chunks / 2] : 0.5 * (ns[chunks / 2 - 1] + ns[chunks / 2]);
    for (int k = 0; k < chunks; k++)
        out->disturbed += ns[k] > 1.5 * out->ns_per_access;
    return true;
}

uint64_t tlb_calibrate(struct tlb_chain *c, double target_s, stop_fn stop)
{
    uint64_t accesses = c->n < 64 ? 64 : (uint64_t)c->n;
    if (!tlb_chain_run_checked(c, 2 * (uint64_t)c->n, stop)) return accesses;
    for (int tries = 0; tries < 40 && !stop_asked(stop); tries++) {
        double t0 = timer_now();
        tlb_chain_run(c, accesses);
        double dt = timer_now() - t0;
        if (dt >= target_s) break;
        /* grow towards the target, at most 8x at a time (a preempted try overestimates dt) */
        double factor = dt > 0 ? 1.2 * target_s / dt : 8.0;
        if (factor > 8.0) factor = 8.0;
        if (factor < 2.0 && dt < 0.5 * target_s) factor = 2.0;
        accesses = (uint64_t)((double)accesses * factor) + 8;
    }
    return (accesses + 7) / 8 * 8;
}

uint64_t tlb_walk_loads(const char *base, const uint32_t *idx, size_t n, size_t *pos,
                        uint64_t accesses)
{
    uint64_t sum = 0;
    size_t p = *pos;
    const size_t small = page_base_bytes();
    for (uint64_t done = 0; done < accesses;) {
        size_t stop = n - p;
        if (stop > accesses - done) stop = (size_t)(accesses - done);
        for (size_t k = 0; k < stop; k++) {
            size_t page = idx[p + k];
            sum += *(const volatile uint32_t *)(base + page * small + (page % 64) * TLB_LINE_BYTES);
        }
        done += stop;
        p = (p + stop) % n;
    }
    *pos = p;
    return sum;
}

double tlb_tsc_ghz(void)
{
    /* generic-timer ticks are not cycles: the report then gives ns and says cycles are unknown */
    if (!CYCLE_COUNTER_COUNTS_CYCLES) return 0.0;
    /* both clocks run through any interruption, so one 10 ms window is enough */
    double t0 = timer_now(), t1;
    uint64_t c0 = cycle_counter_read();
    while ((t1 = timer_now()) - t0 < 0.010)
        ;
    uint64_t c1 = cycle_counter_read();
    return (double)(c1 - c0) / (t1 - t0) * 1e-9;
}

double tlb_core_ghz_estimate(void)
{
#if CORE_CLOCK_ADD_CHAIN
    enum { CHUNKS = 200, ITERS = 500 };
    double ghz[CHUNKS];
    uint64_t x = 0, one = 1;
    for (int k = 0; k < CHUNKS; k++) {
        double t0 = timer_now();
        for (int i = 0; i < ITERS; i++)
            x = core_clock_add_chain_100(x, one);
        double dt = timer_now() - t0;
        ghz[k] = dt > 0 ? 100.0 * ITERS / dt * 1e-9 : 0.0;
    }
    qsort(ghz, CHUNKS, sizeof(ghz[0]), compare_doubles);
    return ghz[CHUNKS * 95 / 100];
#else
    return 0.0;
#endif
}
