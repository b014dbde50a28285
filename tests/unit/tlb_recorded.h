#ifndef MEMBENCH_TEST_TLB_RECORDED_H
#define MEMBENCH_TEST_TLB_RECORDED_H

/* Recorded TLB curves (tests/fixtures/machines/NAME/): `membench --tlb --format json` or
 * `--format csv` read back into point arrays, and replayed through the estimator as membench
 * runs it. Include after cmocka.h. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "src/tlb/report_tlb.h"
#include "src/tlb/run_tlb.h"
#include "src/tlb/tlb_knees.h"
#include "src/tlb/tlb_levels.h"

#define RECORDED_MAXP 512

struct recorded {
    double x[RECORDED_MAXP], y[RECORDED_MAXP]; /* 4 KB sweep: pages, ns per access */
    size_t n;
    double cx[RECORDED_MAXP], cy[RECORDED_MAXP]; /* control (lines) */
    size_t cn;
    double hx[RECORDED_MAXP], hy[RECORDED_MAXP]; /* 2 MB sweep */
    size_t hn;
    /* the reuse chase (JSON only): pages, ns per access, its control's ns */
    double rx[RECORDED_MAXP], ry[RECORDED_MAXP], rc[RECORDED_MAXP];
    size_t rn;
    unsigned slots;                 /* the reuse chase's slots */
    double fit_low[2], fit_high[2]; /* its planned fits of levels 1 and 2 */
};

static inline size_t recorded_json_points(json_t *list, const char *xkey, double *x, double *y)
{
    size_t n = 0, i;
    json_t *p;
    json_array_foreach(list, i, p)
    {
        if (n == RECORDED_MAXP) break;
        x[n] = json_number_value(json_object_get(p, xkey));
        y[n++] = json_number_value(json_object_get(p, "ns_per_access"));
    }
    return n;
}

/* membench --tlb --format json: the 4 KB sweep, its control, the 2 MB sweep and the reuse
 * chase where the run has them. */
static inline void recorded_load_json(const char *path, struct recorded *r)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    assert_non_null(doc);
    memset(r, 0, sizeof(*r));
    json_t *tlb = json_object_get(doc, "tlb"), *p;
    r->n = recorded_json_points(json_object_get(tlb, "points"), "pages", r->x, r->y);
    r->cn = recorded_json_points(json_object_get(tlb, "control_points"), "lines", r->cx, r->cy);
    json_t *huge = json_object_get(json_object_get(tlb, "huge"), "sweep");
    if (huge) r->hn = recorded_json_points(json_object_get(huge, "points"), "pages", r->hx, r->hy);
    json_t *reuse = json_object_get(tlb, "reuse");
    size_t i;
    json_array_foreach(json_object_get(reuse, "points"), i, p)
    {
        if (r->rn == RECORDED_MAXP) break;
        r->rx[r->rn] = json_number_value(json_object_get(p, "pages"));
        r->ry[r->rn] = json_number_value(json_object_get(p, "ns_per_access"));
        r->rc[r->rn++] = json_number_value(json_object_get(p, "control_ns"));
    }
    r->slots = (unsigned)json_integer_value(json_object_get(reuse, "slots"));
    json_array_foreach(json_object_get(reuse, "fits"), i, p)
    {
        json_int_t level = json_integer_value(json_object_get(p, "level"));
        if (level < 1 || level > 2) continue;
        r->fit_low[level - 1] = json_number_value(json_object_get(p, "pages_low"));
        r->fit_high[level - 1] = json_number_value(json_object_get(p, "pages_high"));
    }
    json_decref(doc);
}

/* membench --tlb --format csv: "sweep,thread,pu,page_size_bytes,pages,ns_per_access,...";
 * thread 0's 4 KB, control and 2 MB sweeps. */
static inline void recorded_load_csv(const char *path, struct recorded *r)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    memset(r, 0, sizeof(*r));
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        char sweep[16];
        int thread, pu;
        double page, x, y;
        if (sscanf(line, "%15[^,],%d,%d,%lf,%lf,%lf", sweep, &thread, &pu, &page, &x, &y) != 6 ||
            thread != 0)
            continue;
        double *xs = NULL, *ys = NULL;
        size_t *n = NULL;
        if (strcmp(sweep, "4k") == 0) xs = r->x, ys = r->y, n = &r->n;
        if (strcmp(sweep, "control") == 0) xs = r->cx, ys = r->cy, n = &r->cn;
        if (strcmp(sweep, "2m") == 0) xs = r->hx, ys = r->hy, n = &r->hn;
        if (n && *n < RECORDED_MAXP) {
            xs[*n] = x;
            ys[(*n)++] = y;
        }
    }
    fclose(f);
}

/* Either format, by the file's name (.csv or JSON). */
static inline void recorded_load(const char *path, struct recorded *r)
{
    size_t len = strlen(path);
    if (len > 4 && strcmp(path + len - 4, ".csv") == 0)
        recorded_load_csv(path, r);
    else
        recorded_load_json(path, r);
}

/* A sweep's points as membench records them (5 samples each). */
static inline void recorded_curve(struct tlb_curve *c, const double *x, const double *y, size_t n)
{
    c->n = n;
    c->pts = calloc(n ? n : 1, sizeof(*c->pts));
    assert_non_null(c->pts);
    for (size_t i = 0; i < n; i++)
        c->pts[i] = (struct tlb_point){.pages = x[i], .ns_per_access = y[i], .samples = 5};
}

/* The 4 KB sweep and its control through tlb_finish_sweep, as run_tlb calls it (a staggered
 * chase in random order, one thread; cpuid NULL: none). Leaves plan and p for the 2 MB sweep;
 * returns thread 0's 4 KB sweep. Free with recorded_release. */
static inline struct tlb_sweep *recorded_finish_4k(const struct recorded *r,
                                                   const struct cpuid_tlb_info *cpuid,
                                                   struct tlb_result *out,
                                                   struct tlb_thread_result *t0,
                                                   struct tlb_plan *plan, struct knee_params *p)
{
    memset(plan, 0, sizeof(*plan));
    plan->opts.stagger = true;
    plan->opts.mode = TLB_MODE_CHASE;
    plan->opts.order = TLB_ORDER_RANDOM;
    memset(out, 0, sizeof(*out));
    memset(t0, 0, sizeof(*t0));
    if (cpuid) out->cpuid = *cpuid;
    out->n_threads = 1;
    out->per_thread = t0;
    struct tlb_sweep *s = &t0->small;
    s->page_bytes = 4096;
    recorded_curve(&s->main, r->x, r->y, r->n);
    recorded_curve(&s->control, r->cx, r->cy, r->cn);
    tlb_knee_params(plan, p);
    tlb_finish_sweep(s, &s->control, plan, out, TLB_PAGE_4K, p);
    assert_true(s->analysed);
    return s;
}

/* The recorded reuse chase (if the run has one) through tlb_reuse_size, as run_tlb sizes it. */
static inline void recorded_reuse(const struct recorded *r, struct tlb_sweep *s,
                                  const struct cpuid_tlb_info *cpuid)
{
    if (!r->rn) return;
    recorded_curve(&s->reuse, r->rx, r->ry, r->rn);
    recorded_curve(&s->reuse_control, r->rx, r->rc, r->rn);
    s->reuse_slots = r->slots;
    for (int i = 0; i < 2; i++)
        s->reuse_levels[i] = (struct tlb_reuse_level){.planned = r->fit_high[i] > 0,
                                                      .pages_low = r->fit_low[i],
                                                      .pages_high = r->fit_high[i]};
    tlb_reuse_size(s, cpuid, TLB_PAGE_4K);
}

static inline void recorded_release(struct tlb_result *out)
{
    struct tlb_sweep *s = &out->per_thread[0].small;
    free(s->main.pts);
    free(s->control.pts);
    free(s->reuse.pts);
    free(s->reuse_control.pts);
    free(out->huge.main.pts);
}

/* What one of the TLB writers (report_tlb_text, report_tlb_csv) prints for t, as a string to
 * free; its length in *len when len is not NULL. */
static inline char *tlb_written(void (*writer)(FILE *, const struct tlb_result *),
                                const struct tlb_result *t, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    assert_non_null(f);
    writer(f, t);
    fclose(f);
    if (len) *len = n;
    return text;
}

/* Marks a replayed run measured (both sweeps; whether 2 MB pages extend the reach: unknown), as
 * the reports then read it, and returns its text report (free it). */
static inline char *recorded_report_text(struct tlb_result *out)
{
    out->measured = true;
    out->huge_measured = true;
    out->huge_extends_reach = -1;
    return tlb_written(report_tlb_text, out, NULL);
}

/* The level of that name, or NULL. */
static inline const struct knee_level *recorded_level(const struct knee_analysis *a,
                                                      const char *name)
{
    for (size_t i = 0; i < a->n_levels; i++)
        if (strcmp(a->levels[i].name, name) == 0) return &a->levels[i];
    return NULL;
}

#endif
