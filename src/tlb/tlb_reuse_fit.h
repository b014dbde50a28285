#ifndef MEMBENCH_TLB_REUSE_FIT_H
#define MEMBENCH_TLB_REUSE_FIT_H

/* Sizing a TLB level from the reuse chase (kernels/tlb_probe.h, tlb_chain_build_reuse): a pure
 * function of the measured translation cost.
 *
 * The cyclic sweep visits each page once per traversal, always N - 1 pages after its last
 * visit, so where its rise starts and ends depends on the level's replacement policy: an LRU
 * level indexed by address misses nothing up to E pages and everything past, a hashed one
 * starts missing at ~0.8 E, a random-replacement one reaches half its misses only at ~1.4 E.
 * In the reuse chase every page is visited k times per traversal at random distances. Under
 * LRU a visit misses when more than E other pages came since the page's last visit; the k gaps
 * of a page are the spacings of k random points on the cycle, and a window that holds E
 * distinct pages of N spans a fraction 1 - (1 - E/N)^(1/k) of it, so a level of E entries misses
 *   m(N) = (1 - E/N)^((k - 1) / k)  for N > E, and nothing before.
 * Simulated levels (fully associative LRU and random; 16-way modulo- and hash-indexed LRU,
 * random and tree-PLRU) follow it within 5% of E (tests/unit/test_tlb_reuse_fit.c).
 *
 * The fit: translation(N) = base + walk * m(N), least squares in base and walk at every
 * candidate E 0.2% apart, keeping the E with the smallest residual; points off by more than
 * four median absolute deviations (another tenant's burst) are dropped once and the fit
 * repeated. A walk's cost is not constant: it grows with the pages as their page-table entries
 * crowd the data caches, by 2x over the range on the Zen 5 guest, which pulls a fit over the
 * whole range late. So the fit is repeated on the points up to REUSE_FIT_WINDOW x E until E
 * settles: near the onset the walk cost has hardly moved. (Simulated, that window moves E by
 * -7% on a hash-indexed level, which starts missing early, and by under 3% otherwise.) */

#include <stdbool.h>
#include <stddef.h>

#define REUSE_FIT_MIN_POINTS 8
#define REUSE_FIT_WINDOW 1.5

struct reuse_fit {
    bool ok;
    double entries; /* E */
    double base_ns; /* translation cost while the level holds every page */
    double walk_ns; /* added when every access misses the level */
    double rms_ns;  /* residual over the points kept */
    size_t points, dropped;
    char why[160]; /* !ok: why the points give no size */
};

/* The translation cost at a point of the reuse chase: the sweep minus its control, plus what
 * the control's own pages cost it. The control holds `pages` lines in pages / 64 4 KB pages,
 * each visited 512 times per traversal, so its references are nearly independent and a first
 * level of first_entries misses 1 - first_entries / (its pages) of them, at first_penalty_ns
 * each (NAN entries: no correction). */
double reuse_translation_ns(double pages, double sweep_ns, double control_ns, double first_entries,
                            double first_penalty_ns);

/* The model's miss fraction at `pages` for a level of `entries`, k = slots. */
double reuse_miss_fraction(double pages, double entries, unsigned slots);

/* pages ascending; translation_ns NAN where unknown. */
void reuse_fit_run(const double *pages, const double *translation_ns, size_t n, unsigned slots,
                   struct reuse_fit *out);

#endif
