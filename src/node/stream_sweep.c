/* The STREAM sweep: the report's core runs, one after the other, and --reference-runs. */
#include "src/node/stream_sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/test_hooks.h"
#include "src/stream/run_stream.h"

bool report_shows_warnings(const struct options *opts)
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

static void free_run(struct run_result *r)
{
    free(r->placement);
    free(r->domains);
    r->placement = NULL;
    r->domains = NULL;
}

/* Run i + 1 of the K (i of them finished, the last in *last) did not finish: the report keeps
 * *last, and says how many finished. */
static void keep_last(struct report *rep, struct run_result *r, struct run_result *last, unsigned i)
{
    free_run(r);
    *r = *last;
    rep->reference_runs_finished = i;
}

/* --save-reference --reference-runs K: the run measured K times, each a whole run (first touch
 * and repetitions; a time limit applies to each), --reference-interval apart; every run's best
 * rates go into k, the last run is the report's. Stops at a run that errs, is interrupted or
 * fails (it is reported); a signal during a pause or a run after the first keeps the last run
 * that finished as the report's. */
static int measure_reference_runs(const struct options *opts, struct run_config *cfg,
                                  const struct topology *topo, struct report *rep,
                                  struct reference_runs *k)
{
    struct run_result *r = &rep->runs[0], last;
    double first_start = timer_now();
    k->interval_s = opts->reference_interval_s;
    int rc = EXIT_OK;
    bool stopped = false;
    for (unsigned i = 0; i < opts->reference_runs && !stopped; i++) {
        if (i > 0) {
            last = *r; /* last owns its placement and domains now */
            r->placement = NULL;
            r->domains = NULL;
            test_hook_at("reference pause %u", i);
            pause_between_runs(opts->reference_interval_s);
            if (interrupt_signal()) {
                keep_last(rep, r, &last, i);
                return rc;
            }
            cfg->started = timer_now();
        }
        test_hook_at("reference run %u", i + 1);
        rc = run_stream(cfg, topo, &rep->timer, r);
        if (i > 0 && rc == EXIT_OK && r->interrupted)
            keep_last(rep, r, &last, i);
        else if (i > 0)
            free_run(&last);
        stopped = rc != EXIT_OK || r->interrupted || run_failed(r) || rep->reference_runs_finished;
        if (!stopped) reference_runs_add(k, r);
    }
    if (stopped) return rc;
    k->span_s = timer_now() - first_start;
    reference_runs_finish(k);
    rep->saved_runs = k;
    return EXIT_OK;
}

int stream_sweep(const struct options *opts, const struct plan *plan, const struct topology *topo,
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
        /* --time-limit bounds each run on its own clock: the first from membench's start */
        if (i > 0) plan->runs[i].started = timer_now();
        /* memory taken meanwhile (another process of the job) is found before allocating */
        int rc = i > 0 ? plan_recheck_memory(&plan->runs[i], i, plan->n_runs) : EXIT_OK;
        if (rc == EXIT_OK && opts->reference_runs > 1 && i == 0) /* not a verdict's tier run */
            rc = measure_reference_runs(opts, &plan->runs[i], topo, rep, k);
        else if (rc == EXIT_OK)
            rc = run_stream(&plan->runs[i], topo, &rep->timer, r);
        if (progress_wanted(opts, plan) && (rc != EXIT_OK || i + 1 == plan->n_runs))
            fprintf(stderr, "\r\033[K"); /* the report follows on a clean line */
        rep->n_runs = i + 1;
        if (rc != EXIT_OK || r->interrupted) { /* the unfinished run is dropped */
            free_run(r);
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
