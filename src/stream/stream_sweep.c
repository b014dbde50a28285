/* The STREAM sweep: the runs one after the other, and --reference-runs. */
#include "src/stream/stream_sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/test_hooks.h"
#include "src/stream/run_stream.h"

/* A sweep can take minutes: say where it is, on a terminal only, on one rewritten line. */
static bool progress_wanted(const struct measure_context *ctx, const struct plan *plan)
{
    return plan->n_runs > 1 && !ctx->quiet && isatty(STDERR_FILENO);
}

static void show_progress(const struct measure_context *ctx, const struct plan *plan, size_t i)
{
    if (!progress_wanted(ctx, plan)) return;
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

static void free_run(struct run_result *r)
{
    free(r->placement);
    free(r->domains);
    r->placement = NULL;
    r->domains = NULL;
}

/* Run i + 1 of the K (i of them finished, the last in *last) did not finish: the report keeps
 * *last, and says how many finished. */
static void keep_last(struct stream_result *res, struct run_result *r, struct run_result *last,
                      unsigned i)
{
    free_run(r);
    *r = *last;
    res->reference_runs_finished = i;
}

/* --save-reference --reference-runs K: the run measured K times, each a whole run (first touch
 * and repetitions; a time limit applies to each), --reference-interval apart; every run's best
 * rates go into k, the last run is the report's. Stops at a run that errs, is interrupted or
 * fails (it is reported); a signal during a pause or a run after the first keeps the last run
 * that finished as the report's. */
static int measure_reference_runs(const struct plan *plan, const struct measure_context *ctx,
                                  struct stream_result *res)
{
    struct run_config *cfg = &plan->runs[0];
    struct run_result *r = &res->runs[0], last;
    struct reference_runs *k = &res->reference;
    double first_start = timer_now();
    k->interval_s = plan->reference_interval_s;
    int rc = EXIT_OK;
    bool stopped = false;
    for (unsigned i = 0; i < plan->reference_runs && !stopped; i++) {
        if (i > 0) {
            last = *r; /* last owns its placement and domains now */
            r->placement = NULL;
            r->domains = NULL;
            test_hook_at("reference pause %u", i);
            pause_between_runs(plan->reference_interval_s);
            if (interrupt_signal()) {
                keep_last(res, r, &last, i);
                return rc;
            }
            cfg->started = timer_now();
        }
        test_hook_at("reference run %u", i + 1);
        rc = run_stream(cfg, ctx->topo, ctx->timer, r);
        if (i > 0 && rc == EXIT_OK && r->interrupted)
            keep_last(res, r, &last, i);
        else if (i > 0)
            free_run(&last);
        stopped = rc != EXIT_OK || r->interrupted || run_failed(r) || res->reference_runs_finished;
        if (!stopped) reference_runs_add(k, r);
    }
    if (stopped) return rc;
    k->span_s = timer_now() - first_start;
    reference_runs_finish(k);
    res->saved_runs = k;
    return EXIT_OK;
}

/* What a finished run failed, and its warnings when the report does not show them. */
static void say_run(const struct measure_context *ctx, const struct run_result *r, size_t i)
{
    if (!r->validation.passed && r->validation.failed_reduction >= 0)
        log_error("run %zu failed validation: the %s sum is off its closed form", i + 1,
                  kernel_table[r->validation.failed_reduction].name);
    else if (!r->validation.passed)
        log_error("run %zu failed validation: array %c[%zu] = %.17g, expected %.17g", i + 1,
                  r->validation.failed_array, r->validation.first_bad_index,
                  r->validation.first_bad_value, r->validation.first_bad_expected);
    if (r->backing.mismatch[0])
        log_error("run %zu: %s; the run fails, its rates are not for the pages asked for", i + 1,
                  r->backing.mismatch);
    if (!ctx->warnings_in_report)
        for (int w = 0; w < r->n_warnings; w++)
            log_warn("run %zu: %s", i + 1, r->warnings[w]);
}

/* Run i: an exit status (the run is dropped when it did not finish). */
static int sweep_run(const struct plan *plan, const struct measure_context *ctx,
                     struct stream_result *res, size_t i)
{
    struct run_result *r = &res->runs[i];
    show_progress(ctx, plan, i);
    /* --time-limit bounds each run on its own clock: the first from membench's start */
    if (i > 0) plan->runs[i].started = timer_now();
    /* memory taken meanwhile (another process of the job) is found before allocating */
    int rc = i > 0 ? plan_recheck_memory(&plan->runs[i], i, plan->n_runs) : EXIT_OK;
    if (rc == EXIT_OK && plan->reference_runs > 1 && i == 0) /* not a verdict's tier run */
        rc = measure_reference_runs(plan, ctx, res);
    else if (rc == EXIT_OK)
        rc = run_stream(&plan->runs[i], ctx->topo, ctx->timer, r);
    if (progress_wanted(ctx, plan) && (rc != EXIT_OK || i + 1 == plan->n_runs))
        fprintf(stderr, "\r\033[K"); /* the report follows on a clean line */
    res->n_runs = i + 1;
    if (rc != EXIT_OK || r->interrupted) { /* the unfinished run is dropped */
        free_run(r);
        res->n_runs = i;
    }
    return rc;
}

int stream_sweep(const struct plan *plan, const struct measure_context *ctx,
                 struct stream_result *res)
{
    res->n_runs = plan->n_runs;
    for (size_t i = 0; i < plan->n_runs; i++) {
        test_hook_at("run %zu", i + 1);
        if (interrupt_signal()) {
            res->n_runs = i;
            break;
        }
        if (ctx->dry_run) {
            run_describe(&plan->runs[i], ctx->topo, &res->runs[i]);
            continue;
        }
        int rc = sweep_run(plan, ctx, res, i);
        if (rc != EXIT_OK) {
            res->stopped_early = i > 0;
            return rc;
        }
        if (res->n_runs == i) break; /* interrupted */
        say_run(ctx, &res->runs[i], i);
    }
    return EXIT_OK;
}
