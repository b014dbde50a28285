/* One node's benchmark: plan -> run -> verdict -> report. */
#include "src/node/node.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affinity/omp_env.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/output_file.h"
#include "src/base/test_hooks.h"
#include "src/latency/latency.h"
#include "src/probes/probes.h"
#include "src/report/report.h"
#include "src/stream/compare.h"
#include "src/stream/plan.h"
#include "src/stream/run_stream.h"
#include "src/tlb/run_tlb.h"
#include "src/verdict/reference.h"
#include "version.h"

static void warn_thread_counts(const struct plan *plan, const struct topology_facts *topo)
{
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

static int format_report(const struct options *opts, const struct report *rep, FILE *out)
{
    switch (opts->format) {
    case FORMAT_CSV: return report_write_csv(out, rep);
    case FORMAT_JSON: return report_write_json(out, rep);
    case FORMAT_OPENMETRICS: return report_write_openmetrics(out, rep);
    case FORMAT_TEXT:
    default: return opts->quiet ? report_write_quiet(out, rep) : report_write_text(out, rep);
    }
}

static int write_report(const struct options *opts, const struct report *rep,
                        struct output_file *out)
{
    if (output_begin(out) != 0) return -1;
    return output_commit(out, format_report(opts, rep, out->stream));
}

/* The report, then --metrics-file from the same report through the same rules: 0, or -1 after
 * an error line. */
static int write_reports(const struct options *opts, const struct report *rep,
                         struct output_file *out, struct output_file *metrics)
{
    if (write_report(opts, rep, out) != 0) return -1;
    if (!opts->metrics_file) return 0;
    if (output_begin(metrics) != 0) return -1;
    return output_commit(metrics, report_write_openmetrics(metrics->stream, rep));
}

/* Nothing more is written to these: temporary files removed, the old files left as they are. */
static void abort_outputs(struct output_file *a, struct output_file *b, struct output_file *c)
{
    output_abort(a);
    output_abort(b);
    if (c) output_abort(c);
}

/* Whether an interrupted run has anything to report: else the previous -o file is kept. */
static bool measured_anything(const struct report *rep)
{
    return rep->n_runs > 0 || (rep->tlb && tlb_points_measured(rep->tlb) > 0) ||
           probes_measured(rep->probes) || (rep->latency && rep->latency->idle.measured);
}

/* The file a report option names clashes with a reference or another report: the name of the
 * option it clashes with, or NULL. */
static const char *clash_of(const struct options *o, const char *out, bool with_output)
{
    return o->reference && output_same_file(o->reference, out)             ? "--reference"
           : o->save_reference && output_same_file(o->save_reference, out) ? "--save-reference"
           : with_output && output_same_file(o->output ? o->output : "-", out) ? "-o"
                                                                               : NULL;
}

/* The report, the metrics file, the reference read and the reference written must be four
 * files (a reference may be saved over the one read: it is read before measuring). */
static int check_distinct_files(const struct options *o)
{
    const char *out = o->output ? o->output : "-";
    const char *clash = clash_of(o, out, false);
    if (clash) {
        log_error("%s and -o name the same file ('%.200s'): the report would overwrite it; give "
                  "-o another file",
                  clash, strcmp(out, "-") == 0 ? "stdout" : out);
        return EXIT_USAGE;
    }
    clash = o->metrics_file ? clash_of(o, o->metrics_file, true) : NULL;
    if (!clash) return EXIT_OK;
    log_error("%s and --metrics-file name the same file ('%.200s'): one would overwrite the "
              "other; give --metrics-file another file",
              clash, strcmp(o->metrics_file, "-") == 0 ? "stdout" : o->metrics_file);
    return EXIT_USAGE;
}

static bool report_shows_warnings(const struct options *opts)
{
    return opts->format == FORMAT_TEXT && !opts->quiet && !opts->output;
}

/* A sweep can take minutes: say where it is, on a terminal only, on one rewritten line. */
static bool progress_wanted(const struct options *opts, const struct plan *plan)
{
    return plan->n_runs > 1 && !opts->quiet && isatty(STDERR_FILENO);
}

static void show_progress(const struct options *opts, const struct plan *plan, size_t i)
{
    if (!progress_wanted(opts, plan)) return;
    const struct run_config *c = &plan->runs[i];
    char size[32];
    format_bytes(c->array_bytes, size, sizeof(size));
    fprintf(stderr, "\rmembench: run %zu of %zu: %u threads, %s, %s pages, %s per array\033[K",
            i + 1, plan->n_runs, c->threads, c->bind, c->pages, size);
    fflush(stderr);
}

/* --reference-interval: sleeps, in slices short enough that a signal ends the wait at once. */
static void pause_between_runs(double seconds)
{
    double until = timer_now() + seconds;
    for (double now; !interrupt_signal() && (now = timer_now()) < until;)
        sleep_until(now + 0.05 < until ? now + 0.05 : until);
}

/* --save-reference --reference-runs K: the run measured K times, each a whole run (first touch
 * and repetitions; a time limit applies to each), --reference-interval apart; every run's best
 * rates go into k, the last run is the report's. Stops at a run that errs, is interrupted or
 * fails (it is reported); a signal during a pause stops it as during a run. */
static int measure_reference_runs(const struct options *opts, struct run_config *cfg,
                                  const struct topology *topo, struct report *rep,
                                  struct reference_runs *k)
{
    struct run_result *r = &rep->runs[0];
    double first_start = timer_now();
    k->interval_s = opts->reference_interval_s;
    for (unsigned i = 0; i < opts->reference_runs; i++) {
        if (i > 0) {
            free(r->placement);
            free(r->domains);
            r->placement = NULL;
            r->domains = NULL;
            test_hook_at("reference pause %u", i);
            pause_between_runs(opts->reference_interval_s);
            if (interrupt_signal()) {
                r->interrupted = true;
                return EXIT_OK;
            }
            cfg->started = timer_now();
        }
        test_hook_at("reference run %u", i + 1);
        int rc = run_stream(cfg, topo, &rep->timer, r);
        if (rc != EXIT_OK || r->interrupted || run_failed(r)) return rc;
        reference_runs_add(k, r);
    }
    k->span_s = timer_now() - first_start;
    reference_runs_finish(k);
    rep->saved_runs = k;
    return EXIT_OK;
}

/* Runs the plan. A run that cannot get its resources ends the sweep with its exit status;
 * *stopped_early then says that the runs before it finished and are to be reported. */
static int measure(const struct options *opts, const struct plan *plan, const struct topology *topo,
                   struct report *rep, bool *stopped_early, struct reference_runs *k)
{
    for (size_t i = 0; i < plan->n_runs; i++) {
        struct run_result *r = &rep->runs[i];
        test_hook_at("run %zu", i + 1);
        if (interrupt_signal()) {
            rep->n_runs = i;
            break;
        }
        if (opts->dry_run) {
            run_describe(&plan->runs[i], topo, r);
            continue;
        }
        show_progress(opts, plan, i);
        /* memory taken meanwhile (another process of the job) is found before allocating */
        int rc = i > 0 ? plan_recheck_memory(&plan->runs[i], i, plan->n_runs) : EXIT_OK;
        if (rc == EXIT_OK && opts->reference_runs > 1)
            rc = measure_reference_runs(opts, &plan->runs[i], topo, rep, k);
        else if (rc == EXIT_OK)
            rc = run_stream(&plan->runs[i], topo, &rep->timer, r);
        if (progress_wanted(opts, plan) && (rc != EXIT_OK || i + 1 == plan->n_runs))
            fprintf(stderr, "\r\033[K"); /* the report follows on a clean line */
        rep->n_runs = i + 1;
        if (rc != EXIT_OK || r->interrupted) { /* the unfinished run is dropped */
            free(r->placement);
            free(r->domains);
            r->placement = NULL;
            r->domains = NULL;
            rep->n_runs = i;
            if (rc != EXIT_OK) {
                *stopped_early = i > 0;
                return rc;
            }
            break;
        }
        if (!r->validation.passed && r->validation.failed_reduction >= 0)
            log_error("run %zu failed validation: the %s sum is off its closed form", i + 1,
                      kernel_table[r->validation.failed_reduction].name);
        else if (!r->validation.passed)
            log_error("run %zu failed validation: array %c[%zu] = %.17g, expected %.17g", i + 1,
                      r->validation.failed_array, r->validation.first_bad_index,
                      r->validation.first_bad_value, r->validation.first_bad_expected);
        if (r->backing.mismatch[0])
            log_error("run %zu: %s; the run fails, its rates are not for the pages asked for",
                      i + 1, r->backing.mismatch);
        if (!report_shows_warnings(opts)) /* else they are in the report already */
            for (int w = 0; w < r->n_warnings; w++)
                log_warn("run %zu: %s", i + 1, r->warnings[w]);
    }
    return EXIT_OK;
}

static void append(char *buf, size_t len, const char *part)
{
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%s", at ? "; " : "", part);
}

/* What a report stopped early (a signal, the time limit) holds, measurement by measurement in
 * the order they run: each probe, the STREAM runs that finished, the TLB probe and the latency
 * measurement, each finished, stopped half-way (and what of it is kept) or not started. */
static void describe_kept(const struct plan *plan, const struct report *rep,
                          const struct tlb_plan *tplan, const struct latency_plan *lplan, char *buf,
                          size_t len)
{
    char part[400];
    buf[0] = '\0';
    if (probes_kept(rep->probes, part, sizeof(part)))
        append(buf, len, part);
    else if (rep->probes && rep->probes->requested)
        append(buf, len, "no probe had finished");
    const char *s = rep->n_runs == 1 ? "" : "s";
    bool others = buf[0] || tplan->enabled || lplan->enabled;
    if (plan->n_runs && !rep->n_runs)
        append(buf, len, others ? "no STREAM run had finished" : "no run had finished");
    else if (plan->n_runs && others)
        snprintf(part, sizeof(part), "the %zu STREAM run%s that finished", rep->n_runs, s);
    else if (plan->n_runs)
        snprintf(part, sizeof(part), "only the %zu run%s that finished %s reported", rep->n_runs, s,
                 rep->n_runs == 1 ? "is" : "are");
    if (plan->n_runs && rep->n_runs) append(buf, len, part);
    if (tplan->enabled)
        append(buf, len,
               !rep->tlb           ? "the TLB probe did not start"
               : rep->tlb->stopped ? rep->tlb->stopped_note
                                   : "the TLB probe finished");
    if (lplan->enabled && rep->latency) {
        latency_kept(rep->latency, part, sizeof(part));
        append(buf, len, part);
    } else if (lplan->enabled) {
        append(buf, len, "the latency measurement did not start");
    }
}

/* The acceptance checks of a single measured run, when asked for. A failed check is one line
 * each (unless the report shows it); an inconclusive verdict is always one line. */
static void evaluate_checks(const struct options *opts, struct report *rep)
{
    struct run_result *run = rep->n_runs == 1 && rep->runs[0].measured ? &rep->runs[0] : NULL;
    if (!run || !(opts->checks || opts->acceptance)) return;
    struct expectations expect = opts->expect;
    expect.whole_node = opts->acceptance;
    const struct node_facts node = report_node_facts(rep);
    const struct acceptance_result *a = &rep->acceptance;
    acceptance_evaluate(&node, run, &expect, opts->tolerance_pct, &rep->acceptance);
    const char *first = NULL;
    int unjudged = 0;
    for (int i = 0; i < a->n_checks; i++) {
        enum check_verdict v = check_state(&a->checks[i]);
        if (v == CHECK_FAIL && !report_shows_warnings(opts))
            log_error("acceptance check failed: %s measured %s, expected %s", a->checks[i].name,
                      a->checks[i].measured, a->checks[i].expected);
        if (v == CHECK_INCONCLUSIVE && !unjudged++) first = a->checks[i].why;
    }
    if (acceptance_verdict(a) == CHECK_INCONCLUSIVE)
        log_error("INCONCLUSIVE: %s%s; no check failed, but this run cannot be judged (exit 5): "
                  "run again when the node is quieter",
                  first, unjudged > 1 ? " (and more kernels)" : "");
}

/* "reference: Triad 52100.0 MB/s, median of 5 runs, spread 8%", one line per kernel. */
static void say_saved_reference(const struct report *rep, const char *path)
{
    const struct reference_runs *k = rep->saved_runs;
    const struct run_result *run = &rep->runs[0];
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

static int save_reference(const struct report *rep, struct output_file *ref, const char *path)
{
    const struct run_result *run = &rep->runs[0];
    const char *failed = !run->measured             ? "measured nothing"
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
    const struct node_facts node = report_node_facts(rep);
    if (output_begin(ref) != 0 ||
        output_commit(ref, reference_write(ref->stream, &node, run, rep->saved_runs)) != 0)
        return EXIT_RESOURCE;
    say_saved_reference(rep, path);
    return EXIT_OK;
}

static void free_report(struct report *rep)
{
    for (size_t i = 0; rep->runs && i < rep->n_runs; i++) {
        free(rep->runs[i].placement);
        free(rep->runs[i].domains);
    }
    free(rep->runs);
}

/* The most OpenMP threads one parallel region of this invocation starts. */
static unsigned largest_team(const struct plan *plan, const struct tlb_plan *tplan,
                             const struct latency_plan *lplan)
{
    unsigned most = 1;
    for (size_t i = 0; i < plan->n_runs; i++)
        if (plan->runs[i].threads > most) most = plan->runs[i].threads;
    if (tplan->enabled && tplan->threads > 0 && (unsigned)tplan->threads > most)
        most = (unsigned)tplan->threads;
    if (lplan->enabled && (unsigned)lplan->n_load + 1 > most) most = (unsigned)lplan->n_load + 1;
    return most;
}

int node_main(struct options *o, char **json, size_t *json_len)
{
    struct options opts = *o;
    if (json) opts.format = FORMAT_JSON;
    double started = timer_now();
    char why[400];
    if (check_distinct_files(&opts) != EXIT_OK) return EXIT_USAGE;
    if (opts.reference &&
        (reference_load(opts.reference, &opts.expect, why, sizeof(why)) != 0 ||
         reference_check_kernels(opts.reference, &opts.expect, opts.stream.kernel_mask,
                                 opts.acceptance, why, sizeof(why)) != 0)) {
        log_error("%s", why);
        return EXIT_USAGE;
    }
    if (opts.acceptance && opts.time_limit_s == 0) opts.time_limit_s = ACCEPTANCE_TIME_LIMIT_S;

    struct topology topo;
    int loaded = topology_load(&topo, why, sizeof(why));
    if (loaded != 0) {
        log_error("%s", why);
        return loaded == -2 ? EXIT_USAGE : EXIT_RESOURCE;
    }
    if (opts.acceptance && !opts.dry_run &&
        acceptance_topology_check(&topo.facts, why, sizeof(why)) != 0) {
        log_error("%s", why);
        topology_unload(&topo);
        return EXIT_USAGE;
    }
    struct report rep = {.version = MEMBENCH_VERSION, .topo = topo.facts, .dry_run = opts.dry_run};
    sysinfo_read(&rep.sys);
    provenance_read(&rep.prov);
    if (opts.peak_mbps > 0) {
        rep.prov.peak_mbps = opts.peak_mbps;
        snprintf(rep.prov.peak_source, sizeof(rep.prov.peak_source), "--peak");
    }

    struct plan plan = {NULL, 0};
    struct tlb_plan tplan = {0};
    struct stream_request request;
    struct tlb_request tlb_request;
    struct latency_request latency_request;
    struct latency_plan lplan = {0};
    cli_stream_request(&opts, &request);
    cli_tlb_request(&opts, &tlb_request);
    cli_latency_request(&opts, &latency_request);
    int rc = opts.stream.kernel_mask ? plan_build(&request, &topo, &rep.sys, &plan) : EXIT_OK;
    if (rc == EXIT_OK) rc = probes_check(&opts.probes, &topo, &rep.sys);
    if (rc == EXIT_OK) rc = tlb_plan_build(&tlb_request, &topo, &rep.sys, &tplan);
    if (rc == EXIT_OK) rc = latency_plan_build(&latency_request, &topo, &rep.sys, &lplan);
    if (rc == EXIT_OK &&
        omp_env_check_process(largest_team(&plan, &tplan, &lplan), why, sizeof(why)) != 0) {
        log_error("%s", why);
        rc = EXIT_USAGE;
    }
    struct output_file out = {0}, ref = {0}, metrics = {0};
    if (rc == EXIT_OK && json && output_open_memory(&out, json, json_len) != 0) rc = EXIT_RESOURCE;
    if (rc == EXIT_OK && !json) rc = output_prepare(&out, opts.output);
    if (rc == EXIT_OK && opts.save_reference) rc = output_prepare(&ref, opts.save_reference);
    if (rc == EXIT_OK && opts.metrics_file) rc = output_prepare(&metrics, opts.metrics_file);
    if (rc != EXIT_OK) {
        abort_outputs(&out, &ref, &metrics);
        plan_free(&plan);
        tlb_plan_free(&tplan);
        latency_plan_free(&lplan);
        topology_unload(&topo);
        return rc;
    }
    warn_thread_counts(&plan, &topo.facts);
    if (strcmp(rep.prov.governor, "unknown") != 0 && strcmp(rep.prov.governor, "performance") != 0)
        log_warn("the CPU frequency governor is '%s', not 'performance': bandwidth follows the "
                 "core clock; set it with 'cpupower frequency-set -g performance'",
                 rep.prov.governor);
    for (size_t i = 0; opts.time_limit_s > 0 && i < plan.n_runs; i++) {
        plan.runs[i].time_limit_s = opts.time_limit_s;
        plan.runs[i].started = started;
    }

    timer_probe(&rep.timer);
    /* the probes first: the STREAM runs leave OpenMP threads behind that would share the CPUs
     * (and the mm) with the shootdown probe */
    struct probe_results probes;
    if (opts.probes.mask) {
        rep.probes = &probes;
        rc = probes_run(&opts.probes, opts.dry_run, opts.time_limit_s, &topo, &probes);
    }
    bool cut_by_limit = rep.probes && probes.cut_by_time_limit;
    rep.runs = calloc(plan.n_runs ? plan.n_runs : 1, sizeof(*rep.runs));
    rep.n_runs = plan.n_runs;
    bool stopped_early = false;
    struct reference_runs saved_runs = {0};
    if (rc == EXIT_OK)
        rc = rep.runs ? measure(&opts, &plan, &topo, &rep, &stopped_early, &saved_runs)
                      : EXIT_RESOURCE;
    int early_rc = EXIT_OK; /* a later run's resource failed: the finished runs are reported */
    if (stopped_early) {
        early_rc = rc;
        rc = EXIT_OK;
        snprintf(rep.kept, sizeof(rep.kept),
                 "run %zu of %zu could not run (see the error); only the %zu run%s that "
                 "finished %s reported",
                 rep.n_runs + 1, plan.n_runs, rep.n_runs, rep.n_runs == 1 ? "" : "s",
                 rep.n_runs == 1 ? "is" : "are");
    }
    bool latency_failed = false;
    struct tlb_result tres = {0};
    if (rc == EXIT_OK && tplan.enabled && !interrupt_signal() && !stopped_early) {
        interrupt_measurement_begins(opts.time_limit_s);
        if (opts.dry_run)
            tlb_describe(&tplan, &topo, &tres);
        else
            rc = run_tlb(&tplan, &topo, &rep.sys, &rep.timer, &tres);
        cut_by_limit |= interrupt_measurement_ends();
        rep.tlb = &tres;
        if (!report_shows_warnings(&opts))
            for (int w = 0; w < tres.n_warnings; w++)
                log_warn("tlb: %s", tres.warnings[w]);
    }
    struct latency_result lres = {0};
    if (rc == EXIT_OK && lplan.enabled && !interrupt_signal() && !stopped_early) {
        interrupt_measurement_begins(opts.time_limit_s);
        if (opts.dry_run)
            latency_describe(&lplan, &lres);
        else
            rc = run_latency(&lplan, &topo, &lres);
        cut_by_limit |= interrupt_measurement_ends();
        rep.latency = &lres;
        if (rc == EXIT_FAILED) { /* the chase failed its validation: reported, exit 1 */
            latency_failed = true;
            rc = EXIT_OK;
        }
        if (!report_shows_warnings(&opts))
            for (int w = 0; w < lres.n_warnings; w++)
                log_warn("latency: %s", lres.warnings[w]);
    }
    if (rc == EXIT_OK && !opts.dry_run && opts.stream.n_pages > 1 &&
        compare_pages(rep.runs, rep.n_runs, opts.stream.pages[0], &rep.comparisons,
                      &rep.n_comparisons) != 0) {
        log_error("out of memory comparing the page backings");
        rc = EXIT_RESOURCE;
    }
    rep.interrupted = interrupt_signal();
    bool report = !rep.interrupted || measured_anything(&rep);
    if (rep.interrupted && report) {
        describe_kept(&plan, &rep, &tplan, &lplan, rep.kept, sizeof(rep.kept));
        log_error("interrupted by %s: %s", interrupt_name(rep.interrupted), rep.kept);
    } else if (rep.interrupted) {
        bool runs_only = plan.n_runs && !opts.probes.mask && !tplan.enabled && !lplan.enabled;
        log_error("interrupted by %s before any %s finished: no report written%s%.200s%s",
                  interrupt_name(rep.interrupted), runs_only ? "run" : "measurement",
                  out.name ? ", '" : "", out.name ? out.name : "",
                  out.name ? "' is unchanged" : "");
    } else if (rc == EXIT_OK && !stopped_early) {
        if (cut_by_limit) { /* as a STREAM run the limit cuts: a warning, the run reported */
            char kept[sizeof(rep.kept)];
            describe_kept(&plan, &rep, &tplan, &lplan, kept, sizeof(kept));
            snprintf(rep.kept, sizeof(rep.kept), "time limit (--time-limit %g s): %.*s",
                     opts.time_limit_s, (int)sizeof(kept) - 48, kept);
            log_warn("%s; raise --time-limit to measure it all", rep.kept);
        }
        evaluate_checks(&opts, &rep);
    }
    rep.prov.duration_s = timer_now() - started;

    if (rc == EXIT_OK && report && write_reports(&opts, &rep, &out, &metrics) != 0)
        rc = EXIT_RESOURCE;
    if (!report) abort_outputs(&out, &metrics, NULL);
    if (rc != EXIT_OK) {
        abort_outputs(&out, &ref, &metrics);
    } else {
        for (size_t i = 0; i < rep.n_runs; i++)
            if (run_failed(&rep.runs[i])) rc = EXIT_FAILED;
        if (rep.acceptance.evaluated && !rep.acceptance.passed)
            rc = acceptance_verdict(&rep.acceptance) == CHECK_INCONCLUSIVE && rc == EXIT_OK
                     ? EXIT_INCONCLUSIVE
                     : EXIT_FAILED;
        if (rep.probes && probes_report_mismatches(rep.probes) > 0) rc = EXIT_FAILED;
        if (latency_failed) rc = EXIT_FAILED;
        if (rep.interrupted) {
            output_abort(&ref);
            if (opts.save_reference)
                log_note("no reference written to %s: the run was interrupted",
                         opts.save_reference);
            rc = 128 + rep.interrupted;
        } else if (stopped_early) {
            output_abort(&ref);
            rc = early_rc;
        } else if (opts.save_reference && opts.dry_run) {
            output_abort(&ref);
            log_note("--dry-run measures nothing: no reference written to %s", opts.save_reference);
        } else if (opts.save_reference) {
            int saved = save_reference(&rep, &ref, opts.save_reference);
            if (rc == EXIT_OK) rc = saved;
        }
    }
    free_report(&rep);
    compare_free(&rep.comparisons, &rep.n_comparisons);
    probes_free(rep.probes);
    tlb_result_free(&tres);
    tlb_plan_free(&tplan);
    latency_result_free(&lres);
    latency_plan_free(&lplan);
    plan_free(&plan);
    topology_unload(&topo);
    return rc;
}
