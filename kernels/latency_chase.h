#ifndef MEMBENCH_LATENCY_CHASE_H
#define MEMBENCH_LATENCY_CHASE_H

/* The idle-latency pointer chase and the loaded-latency traffic kernel: plain functions over
 * memory, no I/O (src/latency times and reports them). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LATENCY_LINE_BYTES 64
#define LATENCY_LINES_PER_4K 64
#define LATENCY_MAX_LINES ((size_t)UINT32_MAX)

/* The visiting order of n cache lines (line i at byte i * 64): every line exactly once, in a
 * random order from seed, as a ring (order[n-1] is followed by order[0]), so linking it gives
 * one cycle through every line. Consecutive lines of the ring, the wrap included, lie in
 * different pages of page_lines lines and at different line slots of their 4 KiB pages:
 * no hop stays in a page, and the next-line and stride prefetchers see no pattern.
 * stop (NULL: never) is asked every few milliseconds of work (a 2 GiB buffer takes seconds).
 * Returns 0, -1 when the constraints cannot be met (fewer than 2 pages, n < 3), or
 * LATENCY_STOPPED when stop answered non-zero (order is then not a valid ring). */
int latency_order_build(uint32_t *order, size_t n, size_t page_lines, uint64_t seed,
                        int (*stop)(void));

#define LATENCY_STOPPED 1

/* Checks an order: a permutation of 0..n-1 (so its ring is a single cycle over every line)
 * whose consecutive lines keep the constraints above. Returns true, or false with the first
 * fault in why. */
bool latency_order_check(const uint32_t *order, size_t n, size_t page_lines, char *why,
                         size_t why_len);

/* Writes the ring into the lines: the first word of line order[k] points at line
 * order[k + 1 mod n]. Returns 0, or LATENCY_STOPPED when stop (NULL: never), asked every
 * LATENCY_STOP_CHECK lines, answered non-zero (the ring is then half-linked). */
int latency_chain_link(char *base, const uint32_t *order, size_t n, int (*stop)(void));

/* Lines (or positions) between two questions to a stop function: 64 Ki, a few ms. */
#define LATENCY_STOP_CHECK ((size_t)1 << 16)

/* Follows `hops` dependent loads from p (each address is the word the previous one loaded)
 * and returns where it stopped: the loop of --latency and of the TLB probe's chase mode. */
void *latency_chase(void *p, uint64_t hops);

/* One chunk of the load threads' traffic: b[i] = s * a[i] for n doubles (16 bytes counted per
 * element: one read, one write). */
void latency_load_chunk(double *restrict b, const double *restrict a, size_t n, double s);

/* Spins `iterations` empty loop iterations (about one core cycle each): MLC's delay between a
 * load thread's chunks. */
void latency_spin(uint64_t iterations);

#endif
