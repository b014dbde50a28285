/* The STREAM runs as a measurement: planning, the dry run's team, what a stopped sweep keeps.
 * Running them is src/node's (the report's core). */
#include "src/stream/stream_measurement.h"

#include "src/base/log.h"
#include "src/stream/plan.h"
#include "src/stream/stream_options.h"

static int plan(const void *request, const struct measure_context *ctx, void *p)
{
    const struct stream_request *req = request;
    struct plan *plan = p;
    int rc = req->opts->kernel_mask ? plan_build(req, ctx->topo, ctx->sys, plan) : EXIT_OK;
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

static void kept(const void *p, const void *result, bool alone, char *buf, size_t len)
{
    (void)p;
    size_t n = ((const struct core_runs *)result)->finished;
    const char *s = n == 1 ? "" : "s";
    const struct core_runs *runs = result;
    if (n && runs->reference_finished)
        snprintf(buf, len,
                 "reference run %u of %u did not finish; the report holds run %u, the last that "
                 "finished",
                 runs->reference_finished + 1, runs->reference_asked, runs->reference_finished);
    else if (!n)
        snprintf(buf, len, "%s", alone ? "no run had finished" : "no STREAM run had finished");
    else if (!alone)
        snprintf(buf, len, "the %zu STREAM run%s that finished", n, s);
    else
        snprintf(buf, len, "only the %zu run%s that finished %s reported", n, s,
                 n == 1 ? "is" : "are");
}

static void free_plan(void *p, void *result)
{
    (void)result;
    plan_free(p);
}

const struct measurement stream_measurement = {
    .name = "STREAM",
    .request_size = sizeof(struct stream_request),
    .plan_size = sizeof(struct plan),
    .result_size = sizeof(struct core_runs),
    .report_core = true,
    .plan = plan,
    .asked = asked,
    .team = team,
    .advise = advise,
    .kept = kept,
    .free = free_plan,
    .options = &stream_option_rows,
};
