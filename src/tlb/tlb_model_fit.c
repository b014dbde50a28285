/* A TLB level's size from a model of a set-associative level under the cyclic sweep
 * (tlb_model_fit.h). */
#include "src/tlb/tlb_model_fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WINDOW_MAX 256
#define FREE_MISS 0.02 /* points below this miss fraction pin the base */
#define FREE_MIN_POINTS 3
#define HALF_ITERATIONS 50
/* The half-way crossing is read from a line fitted to this many points on each side of it:
 * the sweep's points lie 12-17% apart there, and one point read high or low would otherwise
 * move the size by as much. */
#define HALF_LINE_SIDE 2

static const unsigned default_ways[] = {4, 6, 8, 12, 16, 24, 32, 0};
/* A direct-indexed level of fewer ways would rise over more than 1.25 E, a ramp that any
 * gradual curve fits; TLBs of that size have more ways. */
#define DIRECT_MIN_WAYS 4

const char *tlb_model_index_name(enum tlb_model_index index)
{
    switch (index) {
    case TLB_INDEX_HASHED: return "hashed";
    case TLB_INDEX_DIRECT: return "direct";
    default: return "fully associative";
    }
}

/* P(Binomial(n, p) >= k) */
static double binomial_tail(double n, double p, unsigned k)
{
    if (k == 0 || p >= 1.0) return 1.0;
    if (n < k) return 0.0;
    double term = exp(n * log1p(-p)), below = 0.0, ratio = p / (1.0 - p);
    for (unsigned i = 0; i < k; i++) {
        below += term;
        term *= (n - i) / (i + 1.0) * ratio;
    }
    return below >= 1.0 ? 0.0 : 1.0 - below;
}

double tlb_model_miss_fraction(double pages, double entries, unsigned ways,
                               enum tlb_model_index index)
{
    if (!(pages > 0) || !(entries > 0)) return NAN;
    if (index == TLB_INDEX_FULL || ways == 0 || ways >= entries) return pages > entries ? 1.0 : 0.0;
    if (index == TLB_INDEX_DIRECT) {
        if (pages <= entries) return 0.0;
        double m = (pages - entries) * (ways + 1.0) / pages;
        return m > 1.0 ? 1.0 : m;
    }
    return binomial_tail(floor(pages + 0.5) - 1.0, ways / entries, ways);
}

/* Where the level's own rise ends: the miss fraction reaches TLB_MODEL_END. */
static double level_end(double entries, unsigned ways, enum tlb_model_index index)
{
    if (index == TLB_INDEX_FULL || ways == 0) return entries;
    if (index == TLB_INDEX_DIRECT) return entries * (ways + 1.0) / ways;
    double lo = entries, hi = 8.0 * entries;
    for (int i = 0; i < 40; i++) {
        double mid = 0.5 * (lo + hi);
        if (tlb_model_miss_fraction(mid, entries, ways, index) >= TLB_MODEL_END)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Least squares of y on k columns (k <= 3) by the normal equations; false when singular. */
static bool least_squares(double (*cols)[WINDOW_MAX], size_t k, const double *y, size_t n,
                          double *sol)
{
    double a[3][4] = {{0}};
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < k; j++)
            for (size_t p = 0; p < n; p++)
                a[i][j] += cols[i][p] * cols[j][p];
        for (size_t p = 0; p < n; p++)
            a[i][k] += cols[i][p] * y[p];
    }
    for (size_t i = 0; i < k; i++) {
        size_t piv = i;
        for (size_t r = i + 1; r < k; r++)
            if (fabs(a[r][i]) > fabs(a[piv][i])) piv = r;
        for (size_t c = 0; c <= k; c++) {
            double t = a[i][c];
            a[i][c] = a[piv][c];
            a[piv][c] = t;
        }
        if (fabs(a[i][i]) < 1e-12) return false;
        for (size_t r = 0; r < k; r++) {
            if (r == i) continue;
            double f = a[r][i] / a[i][i];
            for (size_t c = i; c <= k; c++)
                a[r][c] -= f * a[i][c];
        }
    }
    for (size_t i = 0; i < k; i++)
        sol[i] = a[i][k] / a[i][i];
    return true;
}

struct window {
    double x[WINDOW_MAX], y[WINDOW_MAX];
    size_t n;
    double min_walk_ns;
};

struct candidate {
    enum tlb_model_index index;
    unsigned ways;
    double entries, rss, base, walk, growth;
};

/* Base, walk and growth for the columns in cols (1, m, growth), the walk at least min_walk:
 * below it, the walk is that minimum and the rest refitted. False when singular. */
static bool solve(double (*cols)[WINDOW_MAX], size_t k, const struct window *w, struct candidate *c)
{
    double rest_cols[2][WINDOW_MAX];
    double sol[3] = {0}, y[WINDOW_MAX], rest[2] = {0};
    if (!least_squares(cols, k, w->y, w->n, sol)) return false;
    if (k == 3 && sol[2] < 0) return solve(cols, 2, w, c);
    if (sol[1] < w->min_walk_ns) {
        for (size_t p = 0; p < w->n; p++) {
            y[p] = w->y[p] - w->min_walk_ns * cols[1][p];
            rest_cols[0][p] = 1.0;
            rest_cols[1][p] = cols[2][p];
        }
        size_t kr = k == 3 ? 2 : 1;
        if (!least_squares(rest_cols, kr, y, w->n, rest)) return false;
        if (kr == 2 && rest[1] < 0) {
            kr = 1;
            if (!least_squares(rest_cols, 1, y, w->n, rest)) return false;
        }
        sol[0] = rest[0];
        sol[1] = w->min_walk_ns;
        sol[2] = kr == 2 ? rest[1] : 0.0;
    }
    c->base = sol[0];
    c->walk = sol[1];
    c->growth = k == 3 ? sol[2] : 0.0;
    return true;
}

/* The residual of one model at one E, its parameters in c; NAN where the window cannot test
 * it (too few points below its misses, or it never reaches half of them). */
static double fit_at_gated(const struct window *w, struct candidate *c, bool gate)
{
    double cols[3][WINDOW_MAX];
    double end = level_end(c->entries, c->ways, c->index), top = 0.0;
    size_t free_points = 0;
    bool grows = false;
    for (size_t p = 0; p < w->n; p++) {
        double m = tlb_model_miss_fraction(w->x[p], c->entries, c->ways, c->index);
        cols[0][p] = 1.0;
        cols[1][p] = m;
        cols[2][p] = m * fmax(0.0, w->x[p] - end) / c->entries;
        grows |= cols[2][p] > 0;
        free_points += m < FREE_MISS;
        top = fmax(top, m);
    }
    if (gate && (free_points < FREE_MIN_POINTS || top < 0.5)) return NAN;
    if (!solve(cols, grows ? 3 : 2, w, c)) return NAN;
    double rss = 0.0;
    for (size_t p = 0; p < w->n; p++) {
        double r = w->y[p] - (c->base + c->walk * cols[1][p] + c->growth * cols[2][p]);
        rss += r * r;
    }
    return rss;
}

static double fit_at(const struct window *w, struct candidate *c)
{
    return fit_at_gated(w, c, true);
}

/* The best E of one model (index, ways) over the window's E grid, into *best when better. */
static void scan_model(const struct window *w, double from, double to, enum tlb_model_index index,
                       unsigned ways, struct candidate *best)
{
    for (double e = from; e <= to; e *= TLB_MODEL_STEP) {
        struct candidate c = {.index = index, .ways = ways, .entries = e};
        if (ways > 0 && e < ways) continue;
        double rss = fit_at(w, &c);
        if (!isfinite(rss) || !(rss < best->rss)) continue;
        c.rss = rss;
        *best = c;
    }
}

/* Every E of the winning model within the noise margin of its residual. */
static void undecided_range(const struct window *w, double from, double to,
                            const struct candidate *best, struct tlb_model_fit *out)
{
    double limit = best->rss * (1.0 + 4.0 / (w->n > 4 ? (double)(w->n - 3) : 1.0)) + 1e-12;
    out->entries_low = out->entries_high = best->entries;
    for (double e = from; e <= to; e *= TLB_MODEL_STEP) {
        struct candidate c = {.index = best->index, .ways = best->ways, .entries = e};
        if (best->ways > 0 && e < best->ways) continue;
        double rss = fit_at(w, &c);
        if (!(rss <= limit)) continue;
        out->entries_low = fmin(out->entries_low, e);
        out->entries_high = fmax(out->entries_high, e);
    }
}

static double window_high(const struct tlb_model_input *in)
{
    double hi = TLB_MODEL_TO * in->onset_pages;
    if (isfinite(in->rise_end_pages)) hi = fmax(hi, in->rise_end_pages);
    return fmin(hi, TLB_MODEL_TO_MAX * in->onset_pages);
}

static size_t window_points(const struct tlb_model_input *in, struct window *w)
{
    w->n = 0;
    w->min_walk_ns = in->min_walk_ns > 0 ? in->min_walk_ns : 0.0;
    double lo = TLB_MODEL_FROM * in->onset_pages, hi = window_high(in);
    for (size_t i = 0; i < in->n && w->n < WINDOW_MAX; i++) {
        if (in->pages[i] < lo || in->pages[i] > hi || !isfinite(in->translation_ns[i])) continue;
        w->x[w->n] = in->pages[i];
        w->y[w->n++] = in->translation_ns[i];
    }
    return w->n;
}

static void fill(const struct window *w, const struct candidate *best, struct tlb_model_fit *out)
{
    out->ok = true;
    out->index = best->ways == 0 ? TLB_INDEX_FULL : best->index;
    out->ways = best->ways;
    out->entries = floor(best->entries + 0.5);
    out->sets = best->ways ? best->entries / best->ways : 1.0;
    out->entries_low = floor(out->entries_low + 0.5);
    out->entries_high = floor(out->entries_high + 0.5);
    out->base_ns = best->base;
    out->walk_ns = best->walk;
    out->walk_growth_ns = best->growth;
    out->rms_ns = sqrt(best->rss / (double)w->n);
    out->points = w->n;
}

/* The translation cost at `pages`, linear between the measured points; NAN past the last. */
static double cost_at(const struct tlb_model_input *in, double pages)
{
    double x0 = NAN, y0 = NAN;
    for (size_t i = 0; i < in->n; i++) {
        if (!isfinite(in->translation_ns[i])) continue;
        double x1 = in->pages[i], y1 = in->translation_ns[i];
        if (x1 >= pages)
            return isfinite(x0) && x1 > x0 ? y0 + (pages - x0) / (x1 - x0) * (y1 - y0) : y1;
        x0 = x1;
        y0 = y1;
    }
    return NAN;
}

/* Where the cost first rises through `level` past `from` pages, interpolated; NAN never. */
static double crossing_between(const struct tlb_model_input *in, double level, double from)
{
    double x0 = NAN, y0 = NAN;
    for (size_t i = 0; i < in->n; i++) {
        if (!isfinite(in->translation_ns[i])) continue;
        double x1 = in->pages[i], y1 = in->translation_ns[i];
        if (x1 > from && isfinite(y0) && y0 < level && y1 >= level)
            return x0 + (level - y0) / (y1 - y0) * (x1 - x0);
        x0 = x1;
        y0 = y1;
    }
    return NAN;
}

/* Where the cost rises through `level` past `from` pages: on the line fitted to the
 * HALF_LINE_SIDE measured points on each side of the crossing between two points, where that
 * line rises and crosses among them; else that crossing. NAN never. */
static double crossing(const struct tlb_model_input *in, double level, double from)
{
    double between = crossing_between(in, level, from);
    if (!isfinite(between)) return NAN;
    size_t first = 0, n = 0, idx[2 * HALF_LINE_SIDE];
    while (first < in->n && !(in->pages[first] > between))
        first++;
    for (size_t i = first; i-- > 0 && n < HALF_LINE_SIDE;)
        if (isfinite(in->translation_ns[i])) idx[n++] = i;
    size_t below = n;
    for (size_t i = first; i < in->n && n < below + HALF_LINE_SIDE; i++)
        if (isfinite(in->translation_ns[i])) idx[n++] = i;
    if (below < HALF_LINE_SIDE || n < 2 * HALF_LINE_SIDE) return between;
    double cols[2][WINDOW_MAX], y[2 * HALF_LINE_SIDE], line[2];
    for (size_t k = 0; k < n; k++) {
        cols[0][k] = 1.0;
        cols[1][k] = in->pages[idx[k]];
        y[k] = in->translation_ns[idx[k]];
    }
    if (!least_squares(cols, 2, y, n, line)) return between;
    double lo = in->pages[idx[below - 1]], hi = in->pages[idx[n - 1]];
    double x = line[1] > 0 ? (level - line[0]) / line[1] : NAN;
    return x > lo && x < hi ? x : between;
}

/* The hit cost: the median of the window's points below the onset. */
static double hit_cost(const struct window *w, double onset)
{
    double v[WINDOW_MAX];
    size_t n = 0;
    for (size_t p = 0; p < w->n; p++)
        if (w->x[p] < onset) v[n++] = w->y[p];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : NAN;
}

/* A hashed level of `ways` read half-way: the E at which the cost has risen by m(E) of the
 * walk, m(E) the model's miss fraction at N = E (0.52-0.55 for 8-32 ways) and the walk the
 * step measured at the level's end (m = TLB_MODEL_END), where E puts it. E and the end move
 * together, so E is iterated to its fixed point; NAN where the curve does not reach it. */
static double half_way(const struct tlb_model_input *in, double base, unsigned ways)
{
    double e = in->onset_pages;
    for (int it = 0; it < HALF_ITERATIONS; it++) {
        double walk = cost_at(in, level_end(e, ways, TLB_INDEX_HASHED)) - base;
        double next =
            crossing(in, base + tlb_model_miss_fraction(e, e, ways, TLB_INDEX_HASHED) * walk,
                     TLB_MODEL_FROM * in->onset_pages);
        if (!isfinite(next) || !(walk > 0)) return NAN;
        if (fabs(next - e) < 0.5) return next;
        e = next;
    }
    return NAN;
}

/* A level known to be hashed: for each candidate ways its half-way E; the ways whose model
 * fits best there win. */
static void fit_hashed_half_way(const struct tlb_model_input *in, const struct window *w,
                                struct candidate *best)
{
    double base = hit_cost(w, in->onset_pages);
    if (!isfinite(base)) return;
    for (size_t i = 0; i < sizeof(default_ways) / sizeof(default_ways[0]); i++) {
        if (default_ways[i] == 0) continue;
        struct candidate c = {.index = TLB_INDEX_HASHED, .ways = default_ways[i]};
        c.entries = half_way(in, base, c.ways);
        if (!isfinite(c.entries)) continue;
        double rss = fit_at_gated(w, &c, false); /* E is read, not searched: no gate */
        if (!isfinite(rss) || !(rss < best->rss)) continue;
        c.rss = rss;
        *best = c;
    }
}

void tlb_model_fit_run(const struct tlb_model_input *in, struct tlb_model_fit *out)
{
    struct window w = {.n = 0};
    memset(out, 0, sizeof(*out));
    out->window_low = TLB_MODEL_FROM * in->onset_pages;
    out->window_high = window_high(in);
    if (!(in->onset_pages > 0) || window_points(in, &w) < FREE_MIN_POINTS + 3) {
        snprintf(out->why, sizeof(out->why), "too few points around the onset (%zu)", w.n);
        return;
    }
    bool known_hashed = in->index_known && in->index == TLB_INDEX_HASHED;
    const unsigned *ways = in->n_ways ? in->ways : default_ways;
    size_t n_ways = in->n_ways ? in->n_ways : sizeof(default_ways) / sizeof(default_ways[0]);
    bool direct = !in->index_known || in->index == TLB_INDEX_DIRECT;
    struct candidate best = {.rss = INFINITY};
    if (known_hashed) fit_hashed_half_way(in, &w, &best);
    for (size_t i = 0; i < n_ways && !known_hashed; i++) {
        if (ways[i] == 0) {
            if (!in->index_known)
                scan_model(&w, out->window_low, out->window_high, TLB_INDEX_FULL, 0, &best);
            continue;
        }
        if (!in->index_known)
            scan_model(&w, out->window_low, out->window_high, TLB_INDEX_HASHED, ways[i], &best);
        if (direct && ways[i] >= DIRECT_MIN_WAYS)
            scan_model(&w, out->window_low, out->window_high, TLB_INDEX_DIRECT, ways[i], &best);
    }
    if (!isfinite(best.rss)) {
        snprintf(out->why, sizeof(out->why),
                 known_hashed ? "the cost does not rise half-way to its walk within %.0f-%.0f "
                                "pages"
                              : "no model misses half its pages within %.0f-%.0f pages",
                 out->window_low, out->window_high);
        return;
    }
    undecided_range(&w, out->window_low, out->window_high, &best, out);
    out->entries_low = fmin(out->entries_low, best.entries);
    out->entries_high = fmax(out->entries_high, best.entries);
    fill(&w, &best, out);
}
