/* The probes as one measurement: the hooks src/node and the report writers loop over. */
#include "src/probes/probes_measurement.h"

#include "src/base/log.h"
#include "src/probes/probes.h"
#include "src/probes/probes_options.h"

static int plan(const void *request, const struct measure_context *ctx, void *p)
{
    struct probe_options *o = p;
    *o = *(const struct probe_options *)request;
    return probes_check(o, ctx->topo, ctx->sys);
}

static bool asked(const void *p)
{
    return ((const struct probe_options *)p)->mask != 0;
}

static int run(const void *p, const struct measure_context *ctx, void *result,
               struct measure_outcome *outcome)
{
    struct probe_results *r = result;
    int rc = probes_run(p, ctx->dry_run, ctx->time_limit_s, ctx->topo, r);
    outcome->cut_by_limit = r->cut_by_time_limit;
    return rc;
}

static void kept(const void *p, const void *result, bool alone, char *buf, size_t len)
{
    (void)p, (void)alone;
    if (!probes_kept(result, buf, len)) snprintf(buf, len, "no probe had finished");
}

static bool measured_anything(const void *result)
{
    return probes_measured(result);
}

static int failures(const void *result)
{
    return probes_report_mismatches(result);
}

static void free_probes(void *p, void *result)
{
    (void)p;
    probes_free(result);
}

static void text(FILE *out, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_probes_text(out, result);
}

static void quiet(FILE *out, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_probes_quiet(out, result);
}

static bool csv(FILE *out, const void *result, const struct measure_report_facts *f,
                bool after_table)
{
    (void)f;
    report_probes_csv(out, result, after_table);
    return true;
}

static void json(struct json_t *root, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_probes_json(root, result);
}

/* They run first: the STREAM runs leave OpenMP threads behind that would share the CPUs (and
 * the mm) with the shootdown probe. */
const struct measurement probes_measurement = {
    .name = "probes",
    .request_size = sizeof(struct probe_options),
    .plan_size = sizeof(struct probe_options),
    .result_size = sizeof(struct probe_results),
    .runs_first = true,
    .plan = plan,
    .asked = asked,
    .run = run,
    .kept = kept,
    .measured_anything = measured_anything,
    .failures = failures,
    .free = free_probes,
    .text_slot = MEASURE_AFTER_TAIL,
    .quiet_slot = MEASURE_BEFORE_TAIL,
    .data_slot = MEASURE_AFTER_TAIL,
    .text = text,
    .quiet = quiet,
    .csv = csv,
    .json = json,
    .options = &probes_option_rows,
};
