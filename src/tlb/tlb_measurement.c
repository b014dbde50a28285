/* --tlb as a measurement: the hooks src/node and the report writers loop over. */
#include "src/tlb/tlb_measurement.h"

#include <jansson.h>

#include "src/base/log.h"
#include "src/tlb/report_tlb.h"
#include "src/tlb/run_tlb.h"
#include "src/tlb/tlb_options.h"

static int plan(const void *request, const struct measure_context *ctx, void *p)
{
    return tlb_plan_build(request, ctx->topo, ctx->sys, p);
}

static bool asked(const void *p)
{
    return ((const struct tlb_plan *)p)->enabled;
}

static unsigned team(const void *p)
{
    const struct tlb_plan *plan = p;
    return plan->threads > 0 ? (unsigned)plan->threads : 1;
}

static int run(const void *p, const struct measure_context *ctx, void *result,
               struct measure_outcome *outcome)
{
    (void)outcome;
    if (ctx->dry_run) {
        tlb_describe(p, ctx->topo, result);
        return EXIT_OK;
    }
    return run_tlb(p, ctx->topo, ctx->sys, ctx->timer, result);
}

static const char *warning(const void *result, int i)
{
    const struct tlb_result *t = result;
    return i < t->n_warnings ? t->warnings[i] : NULL;
}

static void kept(const void *p, const void *result, bool alone, char *buf, size_t len)
{
    (void)p, (void)alone;
    const struct tlb_result *t = result;
    snprintf(buf, len, "%s",
             !t           ? "the TLB probe did not start"
             : t->stopped ? t->stopped_note
                          : "the TLB probe finished");
}

static bool measured_anything(const void *result)
{
    return tlb_points_measured(result) > 0;
}

static void free_tlb(void *p, void *result)
{
    tlb_result_free(result);
    tlb_plan_free(p);
}

static void text(FILE *out, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_tlb_text(out, result);
}

static void quiet(FILE *out, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    report_tlb_quiet(out, result);
}

static bool csv(FILE *out, const void *result, const struct measure_report_facts *f,
                bool after_table)
{
    (void)f;
    if (after_table) fputc('\n', out);
    report_tlb_csv(out, result);
    return true;
}

static void json(json_t *root, const void *result, const struct measure_report_facts *f)
{
    (void)f;
    json_object_set_new(root, "tlb", report_tlb_json(result));
}

const struct measurement tlb_measurement = {
    .name = "tlb",
    .request_size = sizeof(struct tlb_request),
    .plan_size = sizeof(struct tlb_plan),
    .result_size = sizeof(struct tlb_result),
    .one_deadline = true,
    .plan = plan,
    .asked = asked,
    .team = team,
    .run = run,
    .warning = warning,
    .kept = kept,
    .measured_anything = measured_anything,
    .free = free_tlb,
    .text_slot = MEASURE_BEFORE_TAIL,
    .quiet_slot = MEASURE_AFTER_TAIL,
    .data_slot = MEASURE_AFTER_TAIL,
    .text = text,
    .quiet = quiet,
    .csv = csv,
    .json = json,
    .options = &tlb_option_rows,
};
