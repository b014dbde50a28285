/* The verdict of one node: the acceptance checks and the saved reference. */
#include "src/node/node_verdict.h"

#include <math.h>

#include "src/base/log.h"

bool report_shows_warnings(const struct options *opts)
{
    return opts->format == FORMAT_TEXT && !opts->quiet && !opts->output;
}

/* The checks of run against the expectations; a line for each failed check (unless the
 * report shows them) and for an inconclusive verdict. */
static void judge(const struct options *opts, struct report *rep, struct run_result *run)
{
    const struct node_facts node = report_node_facts(rep);
    struct expectations expect = opts->expect;
    expect.whole_node = opts->acceptance;
    const struct acceptance_result *a = &rep->acceptance;
    acceptance_evaluate(&node, run, &expect, opts->tolerance_pct, &rep->acceptance);
    if (opts->reference && !expect.memory.present)
        log_note("--reference %s has no memory inventory (saved by an older membench): its NUMA "
                 "nodes and tiers are not checked; save it again to check them",
                 opts->reference);
    const struct acceptance_check *first = NULL;
    int unjudged = 0;
    for (int i = 0; i < a->n_checks; i++) {
        enum check_verdict v = check_state(&a->checks[i]);
        if (v == CHECK_FAIL && !report_shows_warnings(opts))
            log_error("acceptance check failed: %s measured %s, expected %s", a->checks[i].name,
                      a->checks[i].measured, a->checks[i].expected);
        if (v == CHECK_INCONCLUSIVE && !unjudged++) first = &a->checks[i];
    }
    if (acceptance_verdict(a) == CHECK_INCONCLUSIVE)
        log_error("INCONCLUSIVE: %s%s; no check failed, but this run cannot be judged (exit 5)%s",
                  first->why, unjudged > 1 ? " (and more kernels)" : "",
                  first->rate_check ? ": run again when the node is quieter" : "");
}

/* The single measured run that is judged (with its tier runs); NULL when there is none. */
static struct run_result *judged_run(const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    const struct node_facts node = report_node_facts(rep);
    bool one =
        stream->n_runs == 1 || stream->n_runs == 1 + node.n_tier_runs; /* and its tier runs */
    return one && stream->runs[0].measured ? &stream->runs[0] : NULL;
}

void evaluate_checks(const struct options *opts, struct report *rep)
{
    struct run_result *run = judged_run(rep);
    if (run && (opts->checks || opts->acceptance)) judge(opts, rep, run);
}

void evaluate_diagnosis(const struct options *opts, struct report *rep)
{
    const struct run_result *run = judged_run(rep);
    efficiency_of(run, rep->topo.cores, rep->prov.peak_mbps, rep->prov.peak_source, rep->cpu,
                  &rep->efficiency);
    efficiency_per_package(run, rep->topo.cores, rep->dimms, &rep->efficiency);
    const struct run_conditions *c = &rep->conditions;
    struct diagnosis_facts facts = {.dimms = rep->dimms && rep->dimms->read ? rep->dimms : NULL,
                                    .settings = c->read ? &c->settings : NULL,
                                    .during = c->measured ? &c->delta : NULL,
                                    .run = run,
                                    .verdict = &rep->acceptance,
                                    .efficiency = &rep->efficiency,
                                    .tolerance_pct = opts->tolerance_pct};
    diagnosis_make(&facts, &rep->diagnosis);
    if (report_shows_warnings(opts) || !rep->diagnosis.asked_by[0]) return;
    for (int i = 0; i < rep->diagnosis.n; i++)
        log_note("likely cause %d: %s (%s)", i + 1, rep->diagnosis.causes[i].summary,
                 rep->diagnosis.causes[i].evidence);
}

/* "reference: Triad 52100.0 MB/s, median of 5 runs, spread 8%", one line per kernel. */
static void say_saved_reference(const struct report *rep, const char *path)
{
    const struct stream_result *stream = report_stream(rep);
    const struct reference_runs *k = stream->saved_runs;
    const struct run_result *run = &stream->runs[0];
    for (int i = 0; i < run->n_results; i++) {
        enum kernel_id id = run->results[i].kernel;
        if (k)
            log_note("reference %s: %s %.1f MB/s, median of %d runs over %.1f s, spread %.0f%%",
                     path, kernel_table[id].name, k->median_mbps[id], k->runs, k->span_s,
                     100.0 * k->spread[id]);
        else
            log_note("reference %s: %s %.1f MB/s, from 1 run (no run-to-run spread: "
                     "--reference-runs 5 measures one)",
                     path, kernel_table[id].name, run->results[i].best_rate_mbps);
    }
}

/* A reference whose K runs varied more than the tolerance it will judge with cannot tell a slow
 * node from its own noise (a shortfall within that spread is only INCONCLUSIVE): its worst
 * kernel, or -1 when every spread is within the tolerance. */
static int too_noisy_kernel(const struct report *rep, double tolerance_pct)
{
    const struct stream_result *stream = report_stream(rep);
    const struct reference_runs *k = stream->saved_runs;
    const struct run_result *run = &stream->runs[0];
    int worst = -1;
    for (int i = 0; k && k->runs > 1 && i < run->n_results; i++) {
        int id = (int)run->results[i].kernel;
        if (100.0 * k->spread[id] > tolerance_pct &&
            (worst < 0 || k->spread[id] > k->spread[worst]))
            worst = id;
    }
    return worst;
}

static int refuse_noisy(const struct report *rep, struct output_file *ref, int kernel,
                        double tolerance_pct)
{
    const struct reference_runs *k = report_stream(rep)->saved_runs;
    double spread = 100.0 * k->spread[kernel];
    char override[160] = "";
    if (ceil(spread) < 100.0)
        snprintf(override, sizeof(override),
                 ", or give --tolerance %.0f to save it anyway (checks at a lower tolerance will "
                 "say it is too noisy)",
                 ceil(spread));
    log_error("not saving a reference: its %d runs varied %.*f%% (%s), more than the %g%% "
              "tolerance, so a node slower by less than that could not be told from noise; quiet "
              "the node (no other jobs) and save again%s",
              k->runs, spread - tolerance_pct < 1.0 ? 1 : 0, spread, kernel_table[kernel].name,
              tolerance_pct, override);
    output_abort(ref);
    return EXIT_INCONCLUSIVE;
}

int save_reference(const struct report *rep, struct output_file *ref, const char *path,
                   double tolerance_pct)
{
    const struct stream_result *stream = report_stream(rep);
    const struct run_result *run = &stream->runs[0];
    bool tier_failed = false; /* a verdict's tier run, whose rates go into tier_rates */
    for (size_t i = 1; i < stream->n_runs; i++)
        tier_failed |= run_failed(&stream->runs[i]);
    const char *failed = !run->measured             ? "measured nothing"
                         : tier_failed              ? "has a tier run that failed"
                         : !run->validation.passed  ? "failed validation"
                         : run->backing.mismatch[0] ? "got other pages than asked for"
                         : rep->acceptance.evaluated && rep->acceptance.inconclusive
                             ? "was INCONCLUSIVE (too noisy to judge)"
                         : rep->acceptance.evaluated && !rep->acceptance.passed
                             ? "failed its acceptance checks"
                             : NULL;
    if (failed) {
        log_error("not saving a reference: this run %s; a reference must come from a good node",
                  failed);
        output_abort(ref);
        return EXIT_FAILED;
    }
    int noisy = too_noisy_kernel(rep, tolerance_pct);
    if (noisy >= 0) return refuse_noisy(rep, ref, noisy, tolerance_pct);
    const struct node_facts node = report_node_facts(rep);
    if (output_begin(ref) != 0 ||
        output_commit(ref, reference_write(ref->stream, &node, run, stream->saved_runs)) != 0)
        return EXIT_RESOURCE;
    say_saved_reference(rep, path);
    return EXIT_OK;
}
