/* The TLB probe's curves: the sweep's points, each the min and median of its samples. */
#include "src/tlb/tlb_curve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/stats.h"

/* 1, 2, 3, 4, 6, 8, 12 ... max: doubling with the x1.5 points between (seed 000's sweep). */
size_t tlb_sweep_grid(uint64_t max, double *x, size_t cap)
{
    size_t n = 0;
    for (uint64_t v = 1; v <= max && n < cap; v *= 2) {
        x[n++] = (double)v;
        if (v >= 2 && v + v / 2 <= max && n < cap) x[n++] = (double)(v + v / 2);
    }
    if (n && x[n - 1] < (double)max && n < cap) x[n++] = (double)max;
    return n;
}

static int compare_point(const void *a, const void *b)
{
    return compare_doubles(&((const struct tlb_point *)a)->pages,
                           &((const struct tlb_point *)b)->pages);
}

int tlb_curve_add(struct tlb_curve *c, double x, const double *samples, int k, int disturbed,
                  bool refined)
{
    struct tlb_point *p = realloc(c->pts, (c->n + 1) * sizeof(*p));
    if (!p) return -1;
    c->pts = p;
    double v[1024];
    int m = 0;
    for (int i = 0; i < k && m < 1024; i++)
        if (samples[i] > 0) v[m++] = samples[i];
    qsort(v, (size_t)m, sizeof(v[0]), compare_doubles);
    struct tlb_point *q = &p[c->n++];
    memset(q, 0, sizeof(*q));
    q->pages = x;
    q->samples = m;
    q->disturbed_chunks = disturbed;
    q->refined = refined;
    q->min_ns = m ? v[0] : NAN;
    q->median_ns = m ? (m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2])) : NAN;
    q->ns_per_access = q->min_ns;
    return 0;
}

void tlb_curve_sort(struct tlb_curve *c)
{
    if (c->n) qsort(c->pts, c->n, sizeof(c->pts[0]), compare_point);
}

double tlb_curve_at(const struct tlb_curve *c, double x)
{
    for (size_t i = 0; i < c->n; i++)
        if (fabs(c->pts[i].pages - x) < 0.5) return c->pts[i].ns_per_access;
    return NAN;
}

void tlb_curve_free(struct tlb_curve *c)
{
    free(c->pts);
    c->pts = NULL;
    c->n = 0;
}

void tlb_result_free(struct tlb_result *r)
{
    for (int t = 0; r->per_thread && t < r->n_threads; t++) {
        tlb_curve_free(&r->per_thread[t].small.main);
        tlb_curve_free(&r->per_thread[t].small.control);
        tlb_curve_free(&r->per_thread[t].small.reuse);
        tlb_curve_free(&r->per_thread[t].small.reuse_control);
    }
    free(r->per_thread);
    r->per_thread = NULL;
    tlb_curve_free(&r->huge.main);
    r->huge.control = (struct tlb_curve){0};
}
