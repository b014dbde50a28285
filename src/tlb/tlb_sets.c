#include "src/tlb/tlb_sets.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/base/stats.h"

#define SCAN_FROM 0.8 /* a scan starts this far below its range, so its first points hold */
#define SCAN_TO 1.2
#define SCAN_BASE_POINTS 4

double tlb_sets_pages(double l1_entries)
{
    double want = isfinite(l1_entries) && l1_entries > 64 ? 4.0 * l1_entries : 256.0;
    double pages = 256.0;
    while (pages < want)
        pages *= 2.0;
    return pages;
}

double tlb_sets_pages_touched(double pages)
{
    return ceil(2.0 * SCAN_TO * pages);
}

size_t tlb_sets_points(void)
{
    size_t strides = 0;
    for (unsigned k = 1; k <= TLB_SETS_STRIDE_MAX; k *= 2)
        strides++;
    return strides + 2 * TLB_SETS_SCAN_MAX;
}

bool tlb_sets_find_conflict(struct tlb_sets *s, double min_step_ns)
{
    s->conflict_stride = 0;
    if (s->n_strides < 2 || s->stride[0] != 1 || !isfinite(s->ns[0])) {
        snprintf(s->why, sizeof(s->why), "no measurement at stride 1");
        return false;
    }
    s->base_ns = s->ns[0];
    s->full_ns = s->ns[0];
    for (size_t k = 1; k < s->n_strides; k++)
        if (isfinite(s->ns[k])) s->full_ns = fmax(s->full_ns, s->ns[k]);
    double step = s->full_ns - s->base_ns;
    if (!(step >= min_step_ns)) {
        snprintf(s->why, sizeof(s->why),
                 "no stride up to %u pages made %.0f pages miss (at most %+.1f ns, less than the "
                 "%.1f ns that counts as a miss): the set index is not the low page-number bits",
                 s->stride[s->n_strides - 1], s->pages, step, min_step_ns);
        s->index = TLB_SETS_NOT_LOW_BITS;
        return false;
    }
    for (size_t k = 1; k < s->n_strides; k++) {
        if (!(s->ns[k] - s->base_ns >= TLB_SETS_ONSET * step)) continue;
        /* the next stride misses on every page: its cost is the full step */
        if (k + 1 < s->n_strides && isfinite(s->ns[k + 1])) s->full_ns = s->ns[k + 1];
        s->conflict_stride = s->stride[k];
        return true;
    }
    snprintf(s->why, sizeof(s->why), "no stride's cost lies past %.0f%% of the step",
             100.0 * TLB_SETS_ONSET);
    return false;
}

void tlb_sets_scan_range(const struct tlb_sets *s, unsigned stride, double *low, double *high)
{
    /* the conflict stride misses and half of it does not: E in [c N / 2, c N) */
    double e_low = s->conflict_stride * s->pages / 2.0, e_high = s->conflict_stride * s->pages;
    *low = SCAN_FROM * e_low / stride;
    *high = SCAN_TO * e_high / stride;
}

/* The cost while every page is held: the median of the points below the scan's range, which
 * starts SCAN_FROM below it (at least the first SCAN_BASE_POINTS). */
static double scan_base(const struct tlb_sets_scan *scan, size_t *below)
{
    double held[TLB_SETS_SCAN_MAX];
    size_t n = 0;
    while (n < scan->n && (n < SCAN_BASE_POINTS || scan->pages[n] <= scan->pages[0] / SCAN_FROM)) {
        held[n] = scan->ns[n];
        n++;
    }
    *below = n;
    return median_sorting(held, n);
}

bool tlb_sets_scan_onset(struct tlb_sets_scan *scan, double step_ns)
{
    scan->capacity = NAN;
    scan->entries = NAN;
    if (scan->n <= SCAN_BASE_POINTS + 2) return false;
    size_t from;
    double threshold = scan_base(scan, &from) + TLB_SETS_RISE * step_ns;
    for (size_t i = from; i < scan->n; i++) {
        bool held = true;
        for (size_t j = i + 1; j < scan->n && j <= i + 2; j++)
            held = held && scan->ns[j] > threshold;
        if (!(scan->ns[i] > threshold) || !held) continue;
        double x0 = scan->pages[i - 1], y0 = scan->ns[i - 1];
        double x1 = scan->pages[i], y1 = scan->ns[i];
        double f = y1 > y0 ? (threshold - y0) / (y1 - y0) : 1.0;
        scan->capacity = x0 + fmin(fmax(f, 0.0), 1.0) * (x1 - x0);
        scan->entries = scan->capacity * scan->stride;
        return true;
    }
    return false;
}

void tlb_sets_conclude(struct tlb_sets *s)
{
    const struct tlb_sets_scan *a = &s->scan[0], *b = &s->scan[1];
    s->entries = NAN;
    s->index = TLB_SETS_UNDECIDED;
    for (size_t i = 0; i < 2; i++)
        if (!isfinite(s->scan[i].entries)) {
            snprintf(s->why, sizeof(s->why),
                     "at stride %u no onset of misses between %.0f and %.0f pages",
                     s->scan[i].stride, s->scan[i].n ? s->scan[i].pages[0] : NAN,
                     s->scan[i].n ? s->scan[i].pages[s->scan[i].n - 1] : NAN);
            return;
        }
    double mean = (a->entries + b->entries) / 2.0;
    if (fabs(a->entries - b->entries) > TLB_SETS_AGREE * mean) {
        s->index = TLB_SETS_NOT_LOW_BITS;
        snprintf(s->why, sizeof(s->why),
                 "%.0f pages %u apart and %.0f pages %u apart fill it (%.0f and %.0f entries): "
                 "capacity does not scale as 1 / stride, so the set index is not the low "
                 "page-number bits",
                 a->capacity, a->stride, b->capacity, b->stride, a->entries, b->entries);
        return;
    }
    s->index = TLB_SETS_LOW_BITS;
    s->entries = floor(mean + 0.5);
    s->why[0] = '\0';
}
