/* --latency as a measurement: the hooks src/node and the report writers loop over. */
#include "src/latency/latency_measurement.h"

#include <jansson.h>

#include "src/base/log.h"
#include "src/latency/latency.h"
#include "src/latency/latency_options.h"
#include "src/latency/report_latency.h"
#include "src/measure/report_metrics.h"

static int plan(const void *request, const struct measure_context *ctx, void *p)
{
    return latency_plan_build(request, ctx->topo, ctx->sys, p);
}

static bool asked(const void *p)
{
    return ((const struct latency_plan *)p)->enabled;
}

static unsigned team(const void *p)
{
    return (unsigned)((const struct latency_plan *)p)->n_load + 1;
}

static int run(const void *p, const struct measure_context *ctx, void *result,
               struct measure_outcome *outcome)
{
    if (ctx->dry_run) {
        latency_describe(p, result);
        return EXIT_OK;
    }
    int rc = run_latency(p, ctx->topo, result);
    if (rc != EXIT_FAILED) return rc;
    outcome->failed = true; /* the chase failed its validation: reported, exit 1 */
    return EXIT_OK;
}

static const char *warning(const void *result, int i)
{
    const struct latency_result *l = result;
    return i < l->n_warnings ? l->warnings[i] : NULL;
}

static void kept(const void *p, const void *result, bool alone, char *buf, size_t len)
{
    (void)p, (void)alone;
    if (result)
        latency_kept(result, buf, len);
    else
        snprintf(buf, len, "the latency measurement did not start");
}

static bool measured_anything(const void *result)
{
    return ((const struct latency_result *)result)->idle.measured;
}

static void free_latency(void *p, void *result)
{
    latency_result_free(result);
    latency_plan_free(p);
}

static void text(FILE *out, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_latency_text(out, result);
}

static void quiet(FILE *out, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_latency_quiet(out, result);
}

static bool csv(FILE *out, const void *result, const struct measure_report_facts *f,
                bool after_table)
{
    (void)f;
    if (after_table) fputc('\n', out);
    report_latency_csv(out, result);
    return true;
}

static void json(json_t *root, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    json_object_set_new(root, "latency", report_latency_json(result));
}

static void metrics(FILE *out, const void *result, const struct measure_report_facts *f)
{
    const struct latency_result *l = result;
    if (!l->idle.measured || !(l->idle.ns > 0)) return;
    metrics_family(out, "membench_latency_idle_seconds",
                   "Idle memory latency: the median time of one dependent load of the chase.");
    metrics_sample_begin(out, f->hostname, "membench_latency_idle_seconds");
    metrics_value(out, l->idle.ns * 1e-9);
}

const struct measurement latency_measurement = {
    .name = "latency",
    .request_size = sizeof(struct latency_request),
    .plan_size = sizeof(struct latency_plan),
    .result_size = sizeof(struct latency_result),
    .one_deadline = true,
    .plan = plan,
    .asked = asked,
    .team = team,
    .run = run,
    .warning = warning,
    .kept = kept,
    .measured_anything = measured_anything,
    .free = free_latency,
    .text_slot = MEASURE_BEFORE_TAIL,
    .quiet_slot = MEASURE_AFTER_TAIL,
    .data_slot = MEASURE_AFTER_TAIL,
    .text = text,
    .quiet = quiet,
    .csv = csv,
    .json = json,
    .metrics = metrics,
    .options = &latency_option_rows,
};
