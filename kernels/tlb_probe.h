#ifndef MEMBENCH_TLB_PROBE_H
#define MEMBENCH_TLB_PROBE_H

/* The TLB probe's measurement: one access per page over N pages (Saavedra-Barrera, seed 000),
 * as a pointer chase (latency) or the book's a[i] += 1 loop, timed in short chunks so that a
 * preempted chunk does not spoil a sample. No I/O here: the caller formats the numbers. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/stop_check.h"
#include "src/base/page_sizes.h"

#define TLB_LINE_BYTES 64
#define TLB_REUSE_SLOTS_MAX (TLB_LINE_BYTES / sizeof(void *))

enum tlb_mode { TLB_MODE_CHASE, TLB_MODE_INC };
enum tlb_order { TLB_ORDER_RANDOM, TLB_ORDER_SEQ };

/* Where the elements of one point live.
 * SPREAD: element i alone in page i (page_bytes apart): the sweep itself.
 * DENSE:  the control, the same number of cache lines packed into ceil(n/L) base pages (L lines
 *         of 64 bytes per base page: 64 at 4 KB, 1024 at 64 KB), so its cache footprint matches
 *         the sweep's while it needs L times fewer translations.
 * STRIDED: element i at the start of base page i x (page_bytes / base page): pages a stride
 *         apart (the stride probe, src/tlb/tlb_sets.h), element i on line i mod (base page /
 *         64) whatever the stride, so the lines still spread over every cache set. */
enum tlb_layout { TLB_LAYOUT_SPREAD, TLB_LAYOUT_DENSE, TLB_LAYOUT_STRIDED };

/* Byte offset of element i of a point with n elements. With stagger, element i of SPREAD uses
 * line i mod (page_bytes / 64) of its page, so n pages spread over every cache set instead of
 * all landing in one (seed 000 pitfall 6). DENSE interleaves its lines over its pages the same
 * way: element i uses line i mod L too, in page (i / L + i mod L) mod pages, so each of its
 * pages holds up to L elements and consecutive elements sit in different pages. */
size_t tlb_element_offset(enum tlb_layout layout, size_t i, size_t n, size_t page_bytes,
                          bool stagger);

/* Bytes a layout needs for n elements. */
size_t tlb_layout_bytes(enum tlb_layout layout, size_t n, size_t page_bytes);

/* A prepared point: the chain (chase) or the visiting order (inc), and where the loop stands. */
struct tlb_chain {
    enum tlb_mode mode;
    char *base;
    size_t n;
    void *cursor;    /* chase: the next element */
    size_t *offsets; /* inc: element offsets in visiting order (caller's scratch, n entries) */
    size_t pos;      /* inc: next index into offsets */
    uint64_t sink;   /* folded loop results, so no access can be optimised away */
};

/* Builds the point: visiting order random (a single cycle through all n elements, from a
 * deterministic seed) or sequential; for chase writes the links into the elements themselves.
 * order_scratch holds n uint32_t; offset_scratch n size_t (kept by inc). */
void tlb_chain_build(struct tlb_chain *c, enum tlb_mode mode, char *base, size_t n,
                     enum tlb_layout layout, size_t page_bytes, bool stagger, enum tlb_order order,
                     uint64_t seed, uint32_t *order_scratch, size_t *offset_scratch);

/* The reuse chase (pointer chase only): `slots` elements (at most 8) share each of the n cache
 * lines that `layout` places, at 8-byte steps, and all n * slots elements are visited in one
 * random cycle. Each page's translation is then reused `slots` times per traversal at random
 * distances instead of once at a fixed distance, so whether it is still cached depends on how
 * many entries the TLB has, hardly on how it replaces them; the data footprint stays n lines.
 * order_scratch and offset_scratch hold n * slots entries. */
void tlb_chain_build_reuse(struct tlb_chain *c, char *base, size_t n, unsigned slots,
                           enum tlb_layout layout, size_t page_bytes, uint64_t seed,
                           uint32_t *order_scratch, size_t *offset_scratch);

/* Performs `accesses` accesses (rounded up to a multiple of 8), continuing where the last
 * call stopped. */
void tlb_chain_run(struct tlb_chain *c, uint64_t accesses);

/* The same, in slices of STOP_CHECK_ACCESSES with stop (NULL: never) asked before each: false
 * when it answered, the accesses then not all made. Whatever `accesses` (a trial count times
 * the pages), a signal or a time limit is seen within one slice. */
bool tlb_chain_run_checked(struct tlb_chain *c, uint64_t accesses, stop_fn stop);

/* One sample: `chunks` back-to-back chunks of chunk_accesses each, every chunk timed on its
 * own; the sample's cost is the median chunk, so a chunk that the scheduler interrupted (or
 * that another tenant's burst slowed) does not move it. */
struct tlb_sample {
    double ns_per_access;  /* median over chunks */
    double best_chunk_ns;  /* fastest chunk */
    int chunks, disturbed; /* disturbed: chunks more than 1.5x the median */
    uint64_t accesses;
    double seconds; /* wall time of all chunks */
};

/* Runs the sample through tlb_chain_run_checked: false when stop answered, the sample then
 * unfinished and not a figure (*out zeroed). */
bool tlb_sample_run(struct tlb_chain *c, uint64_t chunk_accesses, int chunks, stop_fn stop,
                    struct tlb_sample *out);

/* Accesses for one chunk of at least target_s (doubling from n until long enough). Also
 * warms the TLB and caches for the point. Ends early when stop answers (the caller asks it
 * again before sampling). */
uint64_t tlb_calibrate(struct tlb_chain *c, double target_s, stop_fn stop);

/* Aggregate page-walk throughput kernel: independent loads, one per 4 KB page of base in the
 * order of idx (page indices), starting at *pos; returns the sum of the loaded words. */
uint64_t tlb_walk_loads(const char *base, const uint32_t *idx, size_t n, size_t *pos,
                        uint64_t accesses);

/* Random permutation of 0..n-1 into idx (xorshift, deterministic seed). */
void tlb_shuffle(uint32_t *idx, size_t n, uint64_t seed);

/* Clocks for cycles per access. TSC frequency calibrated against CLOCK_MONOTONIC (0 if the
 * CPU has none, and on aarch64, whose CNTVCT_EL0 counts timer ticks, not cycles); core clock
 * estimated from a chain of dependent register adds, one cycle each, timed in short chunks (the
 * fastest 5% of chunks, to skip preempted ones); 0 if unknown. */
double tlb_tsc_ghz(void);
double tlb_core_ghz_estimate(void);

#endif
