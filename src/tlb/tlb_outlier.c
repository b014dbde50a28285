/* Threads that measured a level differently, and which of them is the outlier: against the
 * size CPUID documents where it documents one, else against the other threads' median. */
#include "src/tlb/tlb_outlier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/stats.h"
#include "src/tlb/tlb_levels.h"

#define THREADS_MAX 1024
#define ENTRIES_REL 0.125 /* entries more than 12.5% apart */
#define COST_REL 0.25     /* costs more than 25% ... */
#define COST_ABS_NS 0.5   /* ... and 0.5 ns apart */

/* The median of every thread's value: with three threads the median of the other two would
 * take the outlier in. */
static double threads_median(const double *v, int n)
{
    double all[THREADS_MAX];
    size_t m = 0;
    for (int u = 0; u < n; u++)
        if (isfinite(v[u])) all[m++] = v[u];
    return m ? median_sorting(all, m) : NAN;
}

static bool apart(double a, double ref, double rel, double abs_min)
{
    return fabs(a - ref) > fmax(rel * fabs(ref), abs_min);
}

enum tlb_outlier_basis tlb_outliers(const double *v, int n, double documented, double rel,
                                    double abs_min, bool *out, double *ref)
{
    double lo = INFINITY, hi = -INFINITY;
    int known = 0;
    for (int t = 0; t < n; t++) {
        out[t] = false;
        ref[t] = NAN;
        if (!isfinite(v[t])) continue;
        known++;
        lo = fmin(lo, v[t]);
        hi = fmax(hi, v[t]);
    }
    if (known < 2 || !apart(hi, lo, rel, abs_min)) return TLB_OUTLIERS_AGREE;
    if (!(documented > 0) && (known < 3 || n > THREADS_MAX)) return TLB_OUTLIERS_UNDECIDED;
    double median = threads_median(v, n);
    int named = 0;
    for (int t = 0; t < n; t++) {
        if (!isfinite(v[t])) continue;
        ref[t] = documented > 0 ? documented : median;
        out[t] = apart(v[t], ref[t], rel, abs_min);
        named += out[t];
    }
    /* no majority around the median: nothing to call normal */
    if (named == 0 || (!(documented > 0) && 2 * named >= known)) {
        for (int t = 0; t < n; t++)
            out[t] = false;
        return TLB_OUTLIERS_UNDECIDED;
    }
    return documented > 0 ? TLB_OUTLIERS_DOCUMENTED : TLB_OUTLIERS_MEDIAN;
}

/* One figure of every thread's level l. */
enum figure { FIG_ENTRIES, FIG_HIT, FIG_MISS, FIG_LEVELS, FIGURES };

static double figure_of(const struct tlb_thread_result *r, size_t l, enum figure f)
{
    const struct knee_analysis *a = &r->small.analysis;
    if (f == FIG_LEVELS) return (double)a->n_levels;
    if (l >= a->n_levels) return NAN;
    const struct knee_level *k = &a->levels[l];
    return f == FIG_ENTRIES ? k->entries : f == FIG_HIT ? k->hit_ns : k->miss_penalty_ns;
}

static void describe(char *buf, size_t len, enum figure f, const char *level, double v, double ref,
                     enum tlb_outlier_basis basis)
{
    const char *against = basis == TLB_OUTLIERS_DOCUMENTED ? "documented" : "the threads' median";
    if (f == FIG_ENTRIES)
        snprintf(buf, len, "%s: %.0f entries, %s %.0f", level, v, against, ref);
    else if (f == FIG_HIT)
        snprintf(buf, len, "%s: %.2f ns per access, %s %.2f", level, v, against, ref);
    else if (f == FIG_MISS)
        snprintf(buf, len, "%s: miss +%.2f ns, %s +%.2f", level, v, against, ref);
    else
        snprintf(buf, len, "%.0f levels found, %s %.0f", v, against, ref);
}

/* "threads 0 (PU 0) and 1 (PU 1) disagree on the L2 TLB (1536 and 2048 entries): ..." */
static void undecided_note(struct tlb_result *out, enum figure f, const char *level,
                           const double *v)
{
    static const char *const what[FIGURES] = {"entries", "ns per access", "ns per miss", "levels"};
    char *s = out->differ_note;
    size_t len = sizeof(out->differ_note), used = 0;
    used += (size_t)snprintf(s, len, "Threads disagree on %s %s (",
                             f == FIG_LEVELS ? "their" : "the", f == FIG_LEVELS ? "levels" : level);
    for (int t = 0; t < out->n_threads && used < len; t++) {
        used += (size_t)snprintf(s + used, len - used, "%sthread %d (PU %d): ", t ? ", " : "", t,
                                 out->per_thread[t].pu);
        if (used < len)
            used += (size_t)(isfinite(v[t])
                                 ? snprintf(s + used, len - used, "%.*f",
                                            f == FIG_ENTRIES || f == FIG_LEVELS ? 0 : 2, v[t])
                                 : snprintf(s + used, len - used, "unknown"));
    }
    if (used < len && out->n_threads == 2)
        snprintf(s + used, len - used,
                 " %s) and nothing documents it: with two threads neither can be named the "
                 "outlier; a third thread (or a documented size) would decide",
                 what[f]);
    else if (used < len)
        snprintf(s + used, len - used,
                 " %s) and nothing documents it: no majority of them agrees, so none is named "
                 "the outlier",
                 what[f]);
}

/* Thread flags for one figure of level l; false when no thread has the figure. */
static void compare_figure(struct tlb_result *out, size_t l, enum figure f, double *v, bool *flag,
                           double *ref)
{
    const struct tlb_thread_result *first = &out->per_thread[0];
    const char *level =
        l < first->small.analysis.n_levels ? first->small.analysis.levels[l].name : "a level";
    double documented = 0;
    for (int t = 0; t < out->n_threads; t++) {
        v[t] = figure_of(&out->per_thread[t], l, f);
        if (f == FIG_ENTRIES && l < TLB_LEVELS_MAX && !documented)
            documented = out->per_thread[t].small.documented[l];
    }
    double rel = f == FIG_ENTRIES ? ENTRIES_REL : f == FIG_LEVELS ? 0 : COST_REL;
    double abs_min = f == FIG_ENTRIES ? 0 : f == FIG_LEVELS ? 0.5 : COST_ABS_NS;
    enum tlb_outlier_basis b = tlb_outliers(v, out->n_threads, documented, rel, abs_min, flag, ref);
    if (b == TLB_OUTLIERS_UNDECIDED && !out->differ_note[0]) undecided_note(out, f, level, v);
    if (b != TLB_OUTLIERS_DOCUMENTED && b != TLB_OUTLIERS_MEDIAN) return;
    for (int t = 0; t < out->n_threads; t++) {
        struct tlb_thread_result *r = &out->per_thread[t];
        if (!flag[t] || r->differs) continue;
        r->differs = true;
        r->differs_from = b == TLB_OUTLIERS_DOCUMENTED ? "documented" : "threads_median";
        describe(r->why_differs, sizeof(r->why_differs), f, level, v[t], ref[t], b);
    }
}

/* "Outlier: thread 1 (PU 3): L2 TLB: 1536 entries, documented 2048" */
static void outlier_note(struct tlb_result *out)
{
    char *s = out->differ_note;
    size_t len = sizeof(out->differ_note), used = 0;
    used += (size_t)snprintf(s, len, "Outlier%s:", out->n_differ == 1 ? "" : "s");
    bool first = true;
    for (int t = 0; t < out->n_threads && used < len; t++) {
        const struct tlb_thread_result *r = &out->per_thread[t];
        if (!r->differs) continue;
        used += (size_t)snprintf(s + used, len - used, "%s thread %d (PU %d): %s", first ? "" : ";",
                                 t, r->pu, r->why_differs);
        first = false;
    }
}

void tlb_compare_threads(struct tlb_result *out)
{
    out->n_differ = 0;
    out->differ_note[0] = '\0';
    if (out->n_threads < 2 || out->n_threads > THREADS_MAX) return;
    double *v = malloc(3 * (size_t)out->n_threads * sizeof(double));
    bool *flag = malloc((size_t)out->n_threads * sizeof(bool));
    if (v && flag) {
        size_t most = 0;
        for (int t = 0; t < out->n_threads; t++)
            if (out->per_thread[t].small.analysis.n_levels > most)
                most = out->per_thread[t].small.analysis.n_levels;
        for (size_t l = 0; l < most; l++)
            for (int f = FIG_ENTRIES; f <= FIG_MISS; f++)
                compare_figure(out, l, (enum figure)f, v, flag, v + out->n_threads);
        compare_figure(out, 0, FIG_LEVELS, v, flag, v + out->n_threads);
        for (int t = 0; t < out->n_threads; t++)
            out->n_differ += out->per_thread[t].differs;
        if (out->n_differ) outlier_note(out);
    }
    free(v);
    free(flag);
}
