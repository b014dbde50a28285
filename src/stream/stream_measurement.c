/* The STREAM runs as a measurement: plan, team, the sweep, what a stopped sweep keeps. */
#include "src/stream/stream_measurement.h"

#include <stdlib.h>

#include "src/base/log.h"
#include "src/stream/compare.h"
#include "src/stream/plan.h"
#include "src/stream/report_stream.h"
#include "src/stream/stream_options.h"
#include "src/stream/stream_result.h"
#include "src/stream/stream_sweep.h"

static int plan(const void *request, const struct measure_context *ctx, void *p)
{
    const struct stream_request *req = request;
    struct plan *plan = p;
    int rc = req->opts->kernel_mask ? plan_build(req, ctx->topo, ctx->sys, plan) : EXIT_OK;
    plan->reference_runs = req->node.reference_runs ? req->node.reference_runs : 1;
    plan->reference_interval_s = req->node.reference_interval_s;
    plan->baseline_pages = req->shared->n_pages > 1 ? req->shared->pages[0] : NULL;
    for (size_t i = 0; ctx->time_limit_s > 0 && i < plan->n_runs; i++) {
        plan->runs[i].time_limit_s = ctx->time_limit_s;
        plan->runs[i].started = ctx->started;
    }
    return rc;
}

static bool asked(const void *p)
{
    return ((const struct plan *)p)->n_runs > 0;
}

static unsigned team(const void *p)
{
    const struct plan *plan = p;
    unsigned most = 1;
    for (size_t i = 0; i < plan->n_runs; i++)
        if (plan->runs[i].threads > most) most = plan->runs[i].threads;
    return most;
}

static void advise(const void *p, const struct measure_context *ctx)
{
    const struct plan *plan = p;
    const struct topology_facts *topo = &ctx->topo->facts;
    for (size_t i = 0; i < plan->n_runs; i++) {
        unsigned t = plan->runs[i].threads;
        if (topo->pus > 0 && t > (unsigned)topo->pus)
            log_warn("%u threads on %d PUs: oversubscribed, threads will share CPUs and "
                     "bandwidth will not improve",
                     t, topo->pus);
        else if (topo->cores > 0 && t > (unsigned)topo->cores)
            log_note("%u threads on %d cores: SMT siblings are used", t, topo->cores);
    }
}

static int run(const void *p, const struct measure_context *ctx, void *result,
               struct measure_outcome *outcome)
{
    const struct plan *plan = p;
    struct stream_result *res = result;
    res->runs = calloc(plan->n_runs ? plan->n_runs : 1, sizeof(*res->runs));
    if (!res->runs) {
        log_error("out of memory for the results of %zu runs", plan->n_runs);
        return EXIT_RESOURCE;
    }
    int rc = stream_sweep(plan, ctx, res);
    outcome->stopped_early = res->stopped_early;
    if (rc == EXIT_OK && !ctx->dry_run && plan->baseline_pages &&
        compare_pages(res->runs, res->n_runs, plan->baseline_pages, &res->comparisons,
                      &res->n_comparisons) != 0) {
        log_error("out of memory comparing the page backings");
        rc = EXIT_RESOURCE;
    }
    return rc;
}

static void kept(const void *p, const void *result, bool alone, char *buf, size_t len)
{
    const struct plan *plan = p;
    const struct stream_result *res = result;
    size_t n = res ? res->n_runs : 0;
    const char *s = n == 1 ? "" : "s";
    if (res && res->stopped_early)
        snprintf(buf, len,
                 "run %zu of %zu could not run (see the error); only the %zu run%s that finished "
                 "%s reported",
                 n + 1, plan->n_runs, n, s, n == 1 ? "is" : "are");
    else if (n && res->reference_runs_finished)
        snprintf(buf, len,
                 "reference run %u of %u did not finish; the report holds run %u, the last that "
                 "finished",
                 res->reference_runs_finished + 1, plan->reference_runs,
                 res->reference_runs_finished);
    else if (!n)
        snprintf(buf, len, "%s", alone ? "no run had finished" : "no STREAM run had finished");
    else if (!alone)
        snprintf(buf, len, "the %zu STREAM run%s that finished", n, s);
    else
        snprintf(buf, len, "only the %zu run%s that finished %s reported", n, s,
                 n == 1 ? "is" : "are");
}

static bool measured_anything(const void *result)
{
    return ((const struct stream_result *)result)->n_runs > 0;
}

/* The runs that failed (each logged when it ended). */
static int failures(const void *result)
{
    const struct stream_result *res = result;
    int failed = 0;
    for (size_t i = 0; i < res->n_runs; i++)
        failed += run_failed(&res->runs[i]);
    return failed;
}

static void free_stream(void *p, void *result)
{
    struct stream_result *res = result;
    for (size_t i = 0; res->runs && i < res->n_runs; i++) {
        free(res->runs[i].placement);
        free(res->runs[i].domains);
    }
    free(res->runs);
    compare_free(&res->comparisons, &res->n_comparisons);
    plan_free(p);
}

static void text(FILE *out, const void *result, const struct measure_report_facts *f)
{
    report_stream_text(out, result, f);
}

static void text_tail(FILE *out, const void *result, const struct measure_report_facts *f)
{
    report_stream_summary(out, result, f);
}

static void quiet(FILE *out, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_stream_quiet(out, result);
}

static bool csv(FILE *out, const void *result, const struct measure_report_facts *f,
                bool after_table)
{
    (void)after_table; /* it leads: no table before it */
    return report_stream_csv(out, result, f);
}

static void json(json_t *root, const void *result, const struct measure_report_facts *f)
{
    report_stream_json(root, result, f);
}

static void metrics(FILE *out, const void *result, const struct measure_report_facts *f)
{
    report_stream_metrics(out, result, f);
}

/* Its sections lead every report, in every report: runs[] and comparisons[] are in the JSON
 * whatever ran. */
const struct measurement stream_measurement = {
    .name = "STREAM",
    .request_size = sizeof(struct stream_request),
    .plan_size = sizeof(struct plan),
    .result_size = sizeof(struct stream_result),
    .judged = true,
    .in_every_report = true,
    .step = "run",
    .plan = plan,
    .asked = asked,
    .team = team,
    .advise = advise,
    .run = run,
    .kept = kept,
    .measured_anything = measured_anything,
    .failures = failures,
    .free = free_stream,
    .text_slot = MEASURE_LEAD,
    .quiet_slot = MEASURE_LEAD,
    .data_slot = MEASURE_LEAD,
    .text = text,
    .text_tail = text_tail,
    .quiet = quiet,
    .csv = csv,
    .json = json,
    .metrics = metrics,
    .options = &stream_option_rows,
};
