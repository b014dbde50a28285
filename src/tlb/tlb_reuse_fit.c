#include "src/tlb/tlb_reuse_fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/base/stats.h"

#define FIT_POINTS_MAX 256
#define CANDIDATE_STEP 1.002
#define BELOW_MIN 2 /* points at or under a candidate E */
#define ABOVE_MIN 4 /* points past it */
#define OUTLIER_MADS 4.0
#define RISE_OVER_NOISE 4.0 /* the fitted rise over the last point against the residual */
#define WINDOW_ROUNDS 5

double reuse_translation_ns(double pages, double sweep_ns, double control_ns, double first_entries,
                            double first_penalty_ns)
{
    double control_pages = ceil(pages / 64.0), own = 0.0;
    if (isfinite(first_entries) && isfinite(first_penalty_ns) && control_pages > first_entries)
        own = first_penalty_ns * (1.0 - first_entries / control_pages);
    return sweep_ns - control_ns + own;
}

double reuse_miss_fraction(double pages, double entries, unsigned slots)
{
    if (!(pages > entries)) return 0.0;
    double k = slots < 1 ? 1.0 : (double)slots;
    return pow(1.0 - entries / pages, (k - 1.0) / k);
}

struct candidate {
    double entries, base, walk, sse;
};

/* Least squares of y = base + walk * m(x) at one E; false when it is not a rise. */
static bool fit_at(const double *x, const double *y, size_t n, unsigned slots, double e,
                   struct candidate *c)
{
    double sg = 0, sy = 0, sgg = 0, sgy = 0;
    for (size_t i = 0; i < n; i++) {
        double g = reuse_miss_fraction(x[i], e, slots);
        sg += g;
        sy += y[i];
        sgg += g * g;
        sgy += g * y[i];
    }
    double den = (double)n * sgg - sg * sg;
    if (!(den > 1e-12)) return false;
    c->entries = e;
    c->walk = ((double)n * sgy - sg * sy) / den;
    c->base = (sy - c->walk * sg) / (double)n;
    if (!(c->walk > 0)) return false;
    c->sse = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - c->base - c->walk * reuse_miss_fraction(x[i], e, slots);
        c->sse += r * r;
    }
    return true;
}

/* The best candidate E with at least BELOW_MIN points at or under it and ABOVE_MIN past it. */
static bool scan(const double *x, const double *y, size_t n, unsigned slots, struct candidate *best)
{
    if (n < BELOW_MIN + ABOVE_MIN) return false;
    bool found = false;
    for (double e = x[BELOW_MIN - 1]; e < x[n - ABOVE_MIN]; e *= CANDIDATE_STEP) {
        struct candidate c;
        if (fit_at(x, y, n, slots, e, &c) && (!found || c.sse < best->sse)) {
            *best = c;
            found = true;
        }
    }
    return found;
}

/* Least squares over x[0..n), then one pass of outlier removal: residuals beyond OUTLIER_MADS
 * median absolute deviations. Writes the points kept back into x and y. */
static bool fit_robust(double *x, double *y, size_t *n, unsigned slots, struct candidate *c,
                       size_t *dropped)
{
    if (!scan(x, y, *n, slots, c)) return false;
    double r[FIT_POINTS_MAX], a[FIT_POINTS_MAX];
    for (size_t i = 0; i < *n; i++) {
        r[i] = y[i] - c->base - c->walk * reuse_miss_fraction(x[i], c->entries, slots);
        a[i] = fabs(r[i]);
    }
    double limit = fmax(OUTLIER_MADS * 1.4826 * median_sorting(a, *n), 0.02 * c->walk);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (fabs(r[i]) <= limit) {
            x[kept] = x[i];
            y[kept++] = y[i];
        }
    *dropped = *n - kept;
    bool refit = kept != *n;
    *n = kept;
    return !refit || scan(x, y, kept, slots, c);
}

void reuse_fit_run(const double *pages, const double *translation_ns, size_t n, unsigned slots,
                   struct reuse_fit *out)
{
    memset(out, 0, sizeof(*out));
    out->entries = out->base_ns = out->walk_ns = out->rms_ns = NAN;
    double x[FIT_POINTS_MAX], y[FIT_POINTS_MAX];
    size_t m = 0;
    for (size_t i = 0; i < n && m < FIT_POINTS_MAX; i++)
        if (isfinite(translation_ns[i]) && pages[i] > 0) {
            x[m] = pages[i];
            y[m++] = translation_ns[i];
        }
    if (m < REUSE_FIT_MIN_POINTS) {
        snprintf(out->why, sizeof(out->why), "%zu usable points, %d needed", m,
                 REUSE_FIT_MIN_POINTS);
        return;
    }
    /* the whole range first, dropping outliers; then, on the points kept, the window up to
     * REUSE_FIT_WINDOW x E until E settles */
    size_t kept = m, dropped = 0;
    struct candidate c;
    if (!fit_robust(x, y, &kept, slots, &c, &dropped)) {
        snprintf(out->why, sizeof(out->why),
                 "the translation cost does not rise over %.0f-%.0f pages", pages[0], pages[n - 1]);
        return;
    }
    size_t used = kept;
    for (int round = 0; round < WINDOW_ROUNDS; round++) {
        size_t in = 0;
        while (in < kept && x[in] <= REUSE_FIT_WINDOW * c.entries)
            in++;
        struct candidate nc;
        if (in < BELOW_MIN + ABOVE_MIN || !scan(x, y, in, slots, &nc)) break;
        bool settled = fabs(nc.entries - c.entries) <= 0.005 * c.entries;
        c = nc;
        used = in;
        if (settled) break;
    }
    out->points = used;
    out->dropped = dropped;
    out->entries = c.entries;
    out->base_ns = c.base;
    out->walk_ns = c.walk;
    out->rms_ns = sqrt(c.sse / (double)used);
    double rise = c.walk * reuse_miss_fraction(x[used - 1], c.entries, slots);
    if (rise < RISE_OVER_NOISE * out->rms_ns) {
        snprintf(out->why, sizeof(out->why),
                 "the fitted rise (%.2f ns) is within %.0fx the scatter of the points (%.2f ns)",
                 rise, RISE_OVER_NOISE, out->rms_ns);
        return;
    }
    if (c.entries < x[BELOW_MIN - 1] * CANDIDATE_STEP) {
        snprintf(out->why, sizeof(out->why),
                 "the level fills before the chase's first points (%.0f pages)", x[BELOW_MIN - 1]);
        return;
    }
    out->ok = true;
}
