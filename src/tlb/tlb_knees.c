#include "src/tlb/tlb_knees.h"
#include "src/tlb/tlb_knee_levels.h"
#include "src/base/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POINTS_MAX KNEE_POINTS_MAX

void knee_params_default(struct knee_params *p)
{
    p->rel_tol = 0.20;
    p->abs_tol_ns = 0.15;
    p->min_step_rel = 0.40;
    p->min_step_ns = 0.30;
    p->lines_per_page = 64.0;
    p->approx_ratio = 1.125;
    p->max_tlb_levels = 2;
    p->control_random_order = true;
    p->control_tlb_entries = p->control_tlb_high = p->control_tlb_penalty_ns = 0.0;
    p->walk_step_ns = 0.0;
}

const char *knee_kind_name(enum knee_kind kind)
{
    switch (kind) {
    case KNEE_TLB: return "tlb";
    case KNEE_CACHE: return "data_cache";
    case KNEE_WALK: return "page_walk";
    default: return "unclassified";
    }
}

/* y of a curve at `at`, linear in log x between measured points; NAN outside the curve. */
static double interpolate(const double *x, const double *y, size_t n, double at)
{
    if (n == 0 || at < x[0] * (1 - 1e-9) || at > x[n - 1] * (1 + 1e-9)) return NAN;
    for (size_t i = 0; i < n; i++) {
        if (fabs(x[i] - at) <= 1e-9 * at) return y[i];
        if (i + 1 < n && x[i] < at && at < x[i + 1]) {
            double t = (log(at) - log(x[i])) / (log(x[i + 1]) - log(x[i]));
            return y[i] + t * (y[i + 1] - y[i]);
        }
    }
    return NAN;
}

/* One curve under analysis: y with per-point tolerance and minimum step, some points unusable
 * (NAN) or outliers. */
struct curve {
    const double *x;
    double y[POINTS_MAX];
    double tol[POINTS_MAX];
    double min_step[POINTS_MAX];
    bool skip[POINTS_MAX]; /* NAN or outlier */
    size_t n;
    size_t outliers;
};

static void curve_init(struct curve *c, const double *x, const double *y, const double *scale,
                       size_t n, const struct knee_params *p)
{
    c->x = x;
    c->n = n;
    c->outliers = 0;
    for (size_t i = 0; i < n; i++) {
        double s = scale ? scale[i] : y[i];
        c->y[i] = y[i];
        c->skip[i] = !isfinite(y[i]) || !isfinite(s);
        c->tol[i] = fmax(p->rel_tol * s, p->abs_tol_ns);
        c->min_step[i] = fmax(p->min_step_rel * s, p->min_step_ns);
    }
}

static size_t next_used(const struct curve *c, size_t i)
{
    while (i < c->n && c->skip[i])
        i++;
    return i;
}

/* Plateaus of a curve: runs within tolerance of their median, >= 2 points, merged when two
 * neighbours differ by less than a step. */
static size_t find_plateaus(struct curve *c, struct plateau *out, size_t max)
{
    double members[POINTS_MAX];
    size_t n_out = 0;
    size_t i = next_used(c, 0);
    while (i < c->n) {
        size_t count = 0, last = i;
        members[count++] = c->y[i];
        double level = c->y[i];
        size_t j = next_used(c, i + 1);
        while (j < c->n) {
            if (fabs(c->y[j] - level) <= c->tol[j]) {
                members[count++] = c->y[j];
                last = j;
            } else {
                size_t k = next_used(c, j + 1); /* one point off, the next back: an outlier */
                if (k < c->n && fabs(c->y[k] - level) <= c->tol[k] && k != j) {
                    c->skip[j] = true;
                    c->outliers++;
                    members[count++] = c->y[k];
                    last = k;
                    j = k;
                } else {
                    break;
                }
            }
            double tmp[POINTS_MAX];
            memcpy(tmp, members, count * sizeof(double));
            level = median_sorting(tmp, count);
            j = next_used(c, j + 1);
        }
        double span = c->x[last] / c->x[i];
        bool long_enough = count >= 2 && (span >= 1.9 || (count >= 4 && span >= 1.4));
        if (long_enough && n_out < max) {
            struct plateau *prev = n_out ? &out[n_out - 1] : NULL;
            if (prev && fabs(level - prev->level_ns) < c->min_step[prev->last]) {
                /* the same level, split by noise: merge */
                size_t m = 0;
                for (size_t k = prev->first; k <= last; k++)
                    if (!c->skip[k] && fabs(c->y[k] - level) <= c->tol[k] + c->min_step[k])
                        members[m++] = c->y[k];
                prev->last = last;
                prev->level_ns = m ? median_sorting(members, m) : level;
            } else {
                out[n_out++] = (struct plateau){.first = i, .last = last, .level_ns = level};
            }
        }
        i = next_used(c, last + 1);
    }
    return n_out;
}

/* x where the fit f[0..m) (at xs) first reaches `level`, linear in log x; NAN if never. */
static double crossing(const double *xs, const double *f, size_t m, double level)
{
    for (size_t i = 0; i < m; i++) {
        if (f[i] < level) continue;
        if (i == 0 || f[i] <= f[i - 1]) return xs[i];
        double t = (level - f[i - 1]) / (f[i] - f[i - 1]);
        return exp(log(xs[i - 1]) + t * (log(xs[i]) - log(xs[i - 1])));
    }
    return NAN;
}

/* The shape of a knee's rise, from its onset (index lo) to index end (the next plateau's first
 * point or the first tail point a whole step up): a non-decreasing least-squares fit (pool
 * adjacent violators) so that one noisy point cannot cross a level early. */
static void measure_rise(const struct curve *c, size_t lo, size_t end, struct knee *kn)
{
    double xs[POINTS_MAX] = {0}, f[POINTS_MAX], w[POINTS_MAX];
    size_t start[POINTS_MAX], m = 0, blocks = 0;
    for (size_t i = lo; i <= end && i < c->n; i = next_used(c, i + 1)) {
        xs[m] = c->x[i];
        f[blocks] = c->y[i];
        w[blocks] = 1;
        start[blocks++] = m++;
        while (blocks > 1 && f[blocks - 2] > f[blocks - 1]) {
            double ws = w[blocks - 2] + w[blocks - 1];
            f[blocks - 2] = (f[blocks - 2] * w[blocks - 2] + f[blocks - 1] * w[blocks - 1]) / ws;
            w[blocks - 2] = ws;
            blocks--;
        }
    }
    double fit[POINTS_MAX] = {0};
    for (size_t b = 0; b < blocks; b++)
        for (size_t i = start[b]; i < (b + 1 < blocks ? start[b + 1] : m); i++)
            fit[i] = f[b];
    /* a plateau that slopes up starts below its median: the rise ends at its first point */
    double step = m ? fmin(kn->step_ns, fit[m - 1] - kn->low_ns) : kn->step_ns;
    double at10 = kn->low_ns + 0.1 * step, at90 = kn->low_ns + 0.9 * step;
    kn->mid_x = crossing(xs, fit, m, kn->low_ns + 0.5 * step);
    kn->mid_after = NAN;
    for (size_t i = 0; i < m && !isfinite(kn->mid_after); i++)
        if (fit[i] >= kn->low_ns + 0.5 * step) kn->mid_after = xs[i];
    kn->x90 = crossing(xs, fit, m, at90);
    kn->top_x = NAN;
    size_t last10 = 0, first90 = m;
    for (size_t i = 0; i < m; i++) {
        if (fit[i] <= at10) last10 = i;
        if (fit[i] >= at90 && first90 == m) first90 = i;
    }
    if (first90 < m) kn->top_x = xs[first90];
    /* the plateau's tolerance may end it before the last point within a tenth of the step */
    if (last10 + 1 < m && xs[last10] > kn->last_low) {
        kn->last_low = xs[last10];
        kn->first_high = xs[last10 + 1];
    }
    if (!isfinite(kn->mid_x)) kn->mid_x = kn->first_high;
    if (!isfinite(kn->mid_after)) kn->mid_after = kn->first_high;
    if (!isfinite(kn->x90)) kn->x90 = kn->first_high;
    kn->sharp =
        (first90 < m && first90 <= last10 + 1) || kn->x90 <= KNEE_SHARP_RATIO * kn->last_low;
}

/* Rising knees between consecutive plateaus, and from the last plateau into a rising tail. */
static size_t find_knees(const struct curve *c, const struct plateau *pl, size_t n_pl,
                         struct knee *out, size_t max)
{
    size_t n_out = 0;
    for (size_t k = 0; k < n_pl && n_out < max; k++) {
        size_t hi = next_used(c, pl[k].last + 1);
        if (hi >= c->n) break;
        struct knee kn = {.kind = KNEE_UNCLASSIFIED,
                          .last_low = c->x[pl[k].last],
                          .first_high = c->x[hi],
                          .low_ns = pl[k].level_ns,
                          .control_step_ns = NAN,
                          .tlb_step_ns = NAN};
        size_t rise_end = hi;
        if (k + 1 < n_pl) {
            kn.high_ns = pl[k + 1].level_ns;
            /* the plateau's tolerance can take in the top of a gradual rise: the rise ends at
             * its first point within a quarter of the step of the plateau's level */
            double near = kn.high_ns - 0.25 * (kn.high_ns - kn.low_ns);
            rise_end = pl[k + 1].first;
            while (rise_end < pl[k + 1].last && (c->skip[rise_end] || c->y[rise_end] < near))
                rise_end++;
        } else {
            /* a tail that never levels off: its first point a whole step up marks the next
             * regime (the points before it are the transition) */
            size_t j = hi;
            while (j < c->n && c->y[j] - pl[k].level_ns < c->min_step[pl[k].last])
                j = next_used(c, j + 1);
            /* a jump at the last point says the level may end there, or the sweep was
             * disturbed there: not reached, never a knee */
            if (j >= c->n || next_used(c, j + 1) >= c->n) break;
            kn.high_ns = c->y[j];
            kn.to_tail = true;
            rise_end = j;
        }
        kn.step_ns = kn.high_ns - kn.low_ns;
        if (kn.step_ns < c->min_step[pl[k].last]) continue;
        /* the plateau's tolerance can hold the first few misses: the level ends at the last
         * point within a tenth of the step */
        size_t lo = pl[k].last;
        while (lo > pl[k].first && c->y[lo] > kn.low_ns + 0.1 * kn.step_ns) {
            size_t prev = lo - 1;
            while (prev > pl[k].first && c->skip[prev])
                prev--;
            lo = prev;
        }
        if (lo != pl[k].last) {
            kn.last_low = c->x[lo];
            hi = next_used(c, lo + 1);
            kn.first_high = c->x[hi];
        }
        kn.complete_x = c->x[hi];
        for (size_t j = hi; j < c->n; j = next_used(c, j + 1))
            if (c->y[j] >= kn.low_ns + 0.8 * kn.step_ns) {
                kn.complete_x = c->x[j];
                break;
            }
        measure_rise(c, lo, rise_end, &kn);
        out[n_out++] = kn;
    }
    return n_out;
}

static bool overlaps(const struct knee *a, double low, double high)
{
    return a->last_low < high && low < a->first_high;
}

/* The control's own first-level misses: once its x / lines_per_page pages outgrow the first
 * TLB level (E entries), it pays part of that level's miss penalty too. In random order its
 * page references are random, and an E-entry TLB misses a fraction 1 - E/P of them over P pages;
 * in sequential order it cycles through its pages and misses every one once P > E. */
static double control_own_tlb(double lines, const struct knee *first, const struct knee_params *p)
{
    if (!first) return 0.0;
    double pages = lines / p->lines_per_page, e = first->last_low;
    if (pages <= e) return 0.0;
    if (p->control_random_order) return first->step_ns * (1.0 - e / pages);
    double span = first->first_high - e;
    double f = span > 0 ? (pages - e) / span : 1.0;
    return first->step_ns * (f > 1 ? 1 : f);
}

static int analyse(const double *x, const double *y, size_t n, const double *cx, const double *cy,
                   size_t cn, const struct knee_params *p, struct knee_analysis *out,
                   struct curve *m, struct curve *t, struct curve *c);

int knees_analyse(const double *x, const double *y, size_t n, const double *cx, const double *cy,
                  size_t cn, const struct knee_params *p, struct knee_analysis *out)
{
    memset(out, 0, sizeof(*out));
    if (n < 3 || n > POINTS_MAX || cn > POINTS_MAX) return -1;
    for (size_t i = 1; i < n; i++)
        if (!(x[i] > x[i - 1])) return -1;
    for (size_t i = 1; i < cn; i++)
        if (!(cx[i] > cx[i - 1])) return -1;
    out->n_points = n;
    for (size_t i = 0; i < n; i++)
        out->translation_ns[i] = NAN;
    out->has_control = cn >= 3;
    out->control_clean_until = NAN;

    struct curve *curves = malloc(3 * sizeof(struct curve));
    if (!curves) return -1;
    int rc = analyse(x, y, n, cx, cy, cn, p, out, &curves[0], &curves[1], &curves[2]);
    free(curves);
    return rc;
}

/* The first TLB level, below which the control is clean: given (p->control_tlb_*) or T's
 * first knee; false when there is neither. */
static bool first_tlb_level(const struct knee *t_kn, size_t t_nkn, const struct knee_params *p,
                            struct knee *first)
{
    memset(first, 0, sizeof(*first));
    if (p->control_tlb_entries > 0) {
        first->last_low = p->control_tlb_entries;
        first->first_high = p->control_tlb_high > 0 ? p->control_tlb_high : first->last_low;
        first->step_ns = p->control_tlb_penalty_ns;
        return true;
    }
    if (t_nkn > 0) *first = t_kn[0];
    return t_nkn > 0;
}

/* Which of T's knees end a TLB level: up to the one into page walks, the first step at least
 * three times every step before it (a walk costs several times a second-level hit); failing
 * such a step, the first max_tlb_levels. Knees past it are walk costs (page-table entries
 * leaving a cache). */
static void classify_tlb_knees(const double *cx, const double *cc, size_t cn,
                               const struct knee_params *p, struct knee_analysis *out)
{
    size_t last_tlb = out->n_tlb_knees;
    double before = out->n_tlb_knees ? out->tlb_knees[0].step_ns : 0.0;
    if (p->walk_step_ns > 0 && out->n_tlb_knees && before >= p->walk_step_ns) last_tlb = 0;
    for (size_t k = 1; k < out->n_tlb_knees && k < KNEE_LEVELS_MAX && last_tlb == out->n_tlb_knees;
         k++) {
        double step = out->tlb_knees[k].step_ns;
        if (step >= 3.0 * before || (p->walk_step_ns > 0 && step >= p->walk_step_ns)) last_tlb = k;
        before = fmax(before, step);
    }
    out->walk_step_found = last_tlb < out->n_tlb_knees;
    if (last_tlb == out->n_tlb_knees && out->n_tlb_knees > 0)
        last_tlb = out->n_tlb_knees > (size_t)p->max_tlb_levels ? (size_t)p->max_tlb_levels - 1
                                                                : out->n_tlb_knees - 1;
    for (size_t k = 0; k < out->n_tlb_knees; k++) {
        struct knee *kn = &out->tlb_knees[k];
        kn->kind = k <= last_tlb ? KNEE_TLB : KNEE_WALK;
        kn->tlb_step_ns = kn->step_ns;
        kn->control_step_ns =
            interpolate(cx, cc, cn, kn->first_high) - interpolate(cx, cc, cn, kn->last_low);
    }
}

/* Data-cache knees: the control's own. */
static void find_cache_knees(struct curve *c, const double *cx, const double *cc, size_t cn,
                             const struct knee_params *p, struct knee_analysis *out)
{
    curve_init(c, cx, cc, NULL, cn, p);
    struct plateau c_pl[KNEES_MAX];
    size_t c_npl = find_plateaus(c, c_pl, KNEES_MAX);
    out->n_cache_knees = find_knees(c, c_pl, c_npl, out->cache_knees, KNEES_MAX);
    for (size_t k = 0; k < out->n_cache_knees; k++) {
        struct knee *kn = &out->cache_knees[k];
        kn->kind = KNEE_CACHE;
        kn->control_step_ns = kn->step_ns;
    }
}

/* Each knee of M named by the knee of T or of the control it overlaps, else by which of the
 * two rose by half its step. */
static void label_main_knees(const double *x, const double *tv, size_t n, const double *cx,
                             const double *cc, size_t cn, struct knee_analysis *out)
{
    for (size_t k = 0; k < out->n_main_knees; k++) {
        struct knee *kn = &out->main_knees[k];
        double lo = kn->last_low, hi = kn->first_high;
        kn->control_step_ns =
            interpolate(cx, cc, cn, hi) - interpolate(cx, cc, cn, lo); /* NAN outside C */
        kn->tlb_step_ns = interpolate(x, tv, n, hi) - interpolate(x, tv, n, lo);
        const struct knee *tk = NULL, *ck = NULL;
        for (size_t j = 0; j < out->n_tlb_knees && !tk; j++)
            if (overlaps(&out->tlb_knees[j], lo, hi)) tk = &out->tlb_knees[j];
        for (size_t j = 0; j < out->n_cache_knees && !ck; j++)
            if (overlaps(&out->cache_knees[j], lo, hi)) ck = &out->cache_knees[j];
        double last_tlb_high = 0; /* where the last TLB level ends: walks beyond */
        for (size_t j = 0; j < out->n_tlb_knees; j++)
            if (out->tlb_knees[j].kind == KNEE_TLB) last_tlb_high = out->tlb_knees[j].first_high;
        if (tk)
            kn->kind = tk->kind;
        else if (ck || kn->control_step_ns >= 0.5 * kn->step_ns)
            kn->kind = KNEE_CACHE;
        else if (kn->tlb_step_ns >= 0.5 * kn->step_ns)
            kn->kind = lo >= last_tlb_high && last_tlb_high > 0 ? KNEE_WALK : KNEE_TLB;
        else
            kn->kind = KNEE_UNCLASSIFIED;
    }
}

static double last_usable(const struct curve *t)
{
    for (size_t i = t->n; i-- > 0;)
        if (!t->skip[i] && isfinite(t->y[i])) return t->y[i];
    return NAN;
}

static int analyse(const double *x, const double *y, size_t n, const double *cx, const double *cy,
                   size_t cn, const struct knee_params *p, struct knee_analysis *out,
                   struct curve *m, struct curve *t, struct curve *c)
{
    curve_init(m, x, y, NULL, n, p);
    out->n_plateaus = find_plateaus(m, out->plateaus, KNEES_MAX);
    out->n_main_knees = find_knees(m, out->plateaus, out->n_plateaus, out->main_knees, KNEES_MAX);
    out->n_outliers = m->outliers;
    if (!out->has_control) return 0;

    /* T = M - C, first pass: finds the first TLB level, below which C is clean */
    double tv[POINTS_MAX] = {0}, cc[POINTS_MAX] = {0};
    for (size_t i = 0; i < n; i++)
        tv[i] = m->skip[i] ? NAN : y[i] - interpolate(cx, cy, cn, x[i]);
    struct plateau t_pl[KNEES_MAX];
    struct knee t_kn[KNEES_MAX];
    curve_init(t, x, tv, y, n, p);
    size_t t_npl = find_plateaus(t, t_pl, KNEES_MAX);
    size_t t_nkn = find_knees(t, t_pl, t_npl, t_kn, KNEES_MAX);
    struct knee first;
    bool have_first = first_tlb_level(t_kn, t_nkn, p, &first);
    if (have_first) out->control_clean_until = p->lines_per_page * first.last_low;

    /* C' = C less its own first-level misses; T' = M - C' */
    for (size_t i = 0; i < cn; i++)
        cc[i] = cy[i] - control_own_tlb(cx[i], have_first ? &first : NULL, p);
    for (size_t i = 0; i < n; i++)
        tv[i] = m->skip[i] ? NAN : y[i] - interpolate(cx, cc, cn, x[i]);
    memcpy(out->translation_ns, tv, n * sizeof(tv[0]));
    curve_init(t, x, tv, y, n, p);
    t_npl = find_plateaus(t, t_pl, KNEES_MAX);
    out->n_tlb_knees = find_knees(t, t_pl, t_npl, out->tlb_knees, KNEES_MAX);
    classify_tlb_knees(cx, cc, cn, p, out);
    find_cache_knees(c, cx, cc, cn, p, out);
    label_main_knees(x, tv, n, cx, cc, cn, out);
    knee_levels_build(x, y, n, last_usable(t), t_pl, t_npl, out, p);
    return 0;
}

static bool contains(const double *v, size_t n, double x)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i] - x) < 0.5) return true;
    return false;
}

/* Points strictly between lo and hi at (hi - lo) / parts steps that the sweep and out do not
 * have yet, appended to out. */
static size_t add_between(double lo, double hi, int parts, const double *x, size_t n, double *out,
                          size_t count, size_t max)
{
    for (int k = 1; k < parts && count < max; k++) {
        double v = floor(lo + (hi - lo) * k / parts + 0.5);
        if (v <= lo || v >= hi || contains(x, n, v) || contains(out, count, v)) continue;
        out[count++] = v;
    }
    return count;
}

static size_t refine_one(const struct knee *kn, const struct knee_params *p, const double *x,
                         size_t n, double *out, size_t count, size_t max)
{
    double lo = kn->last_low, hi = kn->first_high;
    if (kn->kind == KNEE_WALK || kn->kind == KNEE_UNCLASSIFIED) return count;
    if (hi / lo > p->approx_ratio && hi - lo >= 2)
        count = add_between(lo, hi, 8, x, n, out, count, max);
    /* a gradual TLB rise: points on to where it reaches 90%, for its midpoint */
    double top = kn->top_x;
    if (kn->kind != KNEE_TLB || kn->sharp || !(top > hi) || top / hi <= p->approx_ratio)
        return count;
    return add_between(hi, top, 6, x, n, out, count, max);
}

size_t knees_refine(const struct knee_analysis *a, const struct knee_params *p, const double *x,
                    size_t n, double *out, size_t max)
{
    size_t count = 0;
    for (size_t k = 0; k < a->n_tlb_knees; k++)
        count = refine_one(&a->tlb_knees[k], p, x, n, out, count, max);
    for (size_t k = 0; k < a->n_cache_knees; k++)
        count = refine_one(&a->cache_knees[k], p, x, n, out, count, max);
    for (size_t k = 0; k < a->n_main_knees; k++)
        count = refine_one(&a->main_knees[k], p, x, n, out, count, max);
    qsort(out, count, sizeof(out[0]), compare_doubles);
    return count;
}
