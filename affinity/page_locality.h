#ifndef MEMBENCH_PAGE_LOCALITY_H
#define MEMBENCH_PAGE_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "affinity/topology.h"

#define LOCALITY_STEP_BYTES ((size_t)1 << 20) /* one sampled page per MiB */
#define LOCALITY_MIN_FRACTION 0.99            /* below: a run warning, an acceptance FAIL */

/* Where sampled pages of a range are, against the NUMA node they should be on. */
struct page_locality {
    bool verified;          /* move_pages(2) answered for every sampled page */
    uint64_t pages_sampled; /* pages asked about, absent ones included */
    uint64_t pages_local;   /* on the expected node */
    uint64_t pages_absent;  /* not present (-ENOENT, -EFAULT): counted, never local */
    double local_fraction;  /* pages_local / pages_sampled; meaningful only when verified */
    char reason[160];       /* why not verified */
};

/* An empty, verified tally; then samples; then page_locality_end computes the fraction. */
void page_locality_begin(struct page_locality *loc);
/* Counts n move_pages statuses (an OS node number, or -errno) against the expected node (the
 * OS's number, as every node membench names; -1: none is local). */
void page_locality_tally(struct page_locality *loc, const int *status, size_t n, int expected);
void page_locality_fail(struct page_locality *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void page_locality_end(struct page_locality *loc);

/* Samples the pages of [start, start + bytes) every step bytes (at least one page) and tallies
 * them against the expected node (OS number). After a failure it does nothing. */
void page_locality_sample(struct page_locality *loc, const void *start, size_t bytes, size_t step,
                          int expected);

/* The same for one thread's share of an array shared by threads: only the pages of page_bytes
 * (the size really mapped) lying wholly inside the share are sampled, because a page that
 * straddles two shares is placed by whichever thread touched it first. Returns the pages it
 * sampled (0 when the share holds no whole page). */
size_t page_locality_sample_share(struct page_locality *loc, const void *start, size_t bytes,
                                  size_t step, size_t page_bytes, int expected);

#endif
