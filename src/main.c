/* membench: parse -> plan -> run -> report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli.h"
#include "src/log.h"
#include "src/output_file.h"
#include "src/plan.h"
#include "src/report.h"
#include "src/run_stream.h"
#include "src/run_tlb.h"
#include "version.h"

/* libgomp reads OMP_NUM_THREADS while it loads, before main(), and prints its own complaint
 * about a malformed value; this runs earlier still (the executable's preinit array) so the
 * user sees one membench line and exit status 2 instead. */
static void check_omp_num_threads(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    static const char key[] = "OMP_NUM_THREADS=";
    for (char **e = envp; e && *e; e++) {
        if (strncmp(*e, key, sizeof(key) - 1) != 0) continue;
        const char *v = *e + sizeof(key) - 1;
        int ok = *v != '\0', digits = 0, nonzero = 0;
        for (const char *p = v; *p && ok; p++) {
            if (*p >= '0' && *p <= '9') {
                digits++;
                nonzero |= *p != '0';
            } else if (*p == ',' && digits > 0 && nonzero && p[1]) {
                digits = nonzero = 0;
            } else {
                ok = 0;
            }
        }
        if (!ok || digits == 0 || !nonzero || strlen(v) > 16) {
            fprintf(stderr,
                    "membench: OMP_NUM_THREADS='%.40s' is not a thread count; set it to a "
                    "whole number such as 16, or unset it\n",
                    v);
            exit(EXIT_USAGE);
        }
    }
}
__attribute__((section(".preinit_array"),
               used)) static void (*const preinit_check)(int, char **,
                                                         char **) = check_omp_num_threads;

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

static int write_report(const struct options *opts, const struct report *rep,
                        struct output_file *out)
{
    switch (opts->format) {
    case FORMAT_CSV: return report_write_csv(out->stream, rep);
    case FORMAT_JSON: return report_write_json(out->stream, rep);
    case FORMAT_TEXT:
    default:
        return opts->quiet ? report_write_quiet(out->stream, rep)
                           : report_write_text(out->stream, rep);
    }
}

static bool report_shows_warnings(const struct options *opts)
{
    return opts->format == FORMAT_TEXT && !opts->quiet && !opts->output;
}

/* --pages values the STREAM arrays can use in this version (the probe accepts 4k too). */
static int check_stream_pages(const struct options *opts)
{
    for (size_t i = 0; opts->kernel_mask && i < opts->n_pages; i++)
        if (!mem_backend_find(opts->pages[i])) {
            log_error("--pages %s: not available for the STREAM kernels in this version of "
                      "membench (accepted: default; 4k is the TLB probe's)",
                      opts->pages[i]);
            return EXIT_USAGE;
        }
    return EXIT_OK;
}

static int measure(const struct options *opts, const struct plan *plan, const struct topology *topo,
                   struct report *rep)
{
    for (size_t i = 0; i < plan->n_runs; i++) {
        struct run_result *r = &rep->runs[i];
        if (opts->dry_run) {
            run_describe(&plan->runs[i], topo, r);
            continue;
        }
        int rc = run_stream(&plan->runs[i], topo, &rep->timer, r);
        rep->n_runs = i + 1;
        if (rc != EXIT_OK) return rc;
        if (!r->validation.passed)
            log_error("run %zu failed validation: array %c[%zu] = %.17g, expected %.17g", i + 1,
                      r->validation.failed_array, r->validation.first_bad_index,
                      r->validation.first_bad_value, r->validation.first_bad_expected);
        if (!report_shows_warnings(opts)) /* else they are in the report already */
            for (int w = 0; w < r->n_warnings; w++)
                log_warn("run %zu: %s", i + 1, r->warnings[w]);
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    struct options opts;
    switch (cli_parse(argc, argv, &opts)) {
    case CLI_EXIT_OK: return EXIT_OK;
    case CLI_EXIT_USAGE: return EXIT_USAGE;
    case CLI_RUN: break;
    }
    log_set_quiet(opts.quiet);

    struct topology topo;
    char why[300];
    int loaded = topology_load(&topo, why, sizeof(why));
    if (loaded != 0) {
        log_error("%s", why);
        cli_free(&opts);
        return loaded == -2 ? EXIT_USAGE : EXIT_RESOURCE;
    }
    struct report rep = {.version = MEMBENCH_VERSION, .topo = topo.facts, .dry_run = opts.dry_run};
    sysinfo_read(&rep.sys);

    struct plan plan = {0};
    struct tlb_plan tplan = {0};
    int rc = check_stream_pages(&opts);
    if (rc == EXIT_OK && opts.kernel_mask) rc = plan_build(&opts, &topo, &rep.sys, &plan);
    if (rc == EXIT_OK) rc = tlb_plan_build(&opts, &topo, &rep.sys, &tplan);
    if (rc != EXIT_OK) {
        plan_free(&plan);
        tlb_plan_free(&tplan);
        topology_unload(&topo);
        return rc;
    }
    warn_thread_counts(&plan, &topo.facts);

    struct output_file out;
    if (output_open(&out, opts.output) != 0) {
        plan_free(&plan);
        tlb_plan_free(&tplan);
        topology_unload(&topo);
        return EXIT_USAGE;
    }
    timer_probe(&rep.timer);
    rep.runs = calloc(plan.n_runs, sizeof(*rep.runs));
    rep.n_runs = plan.n_runs;
    rc = rep.runs || plan.n_runs == 0 ? measure(&opts, &plan, &topo, &rep) : EXIT_RESOURCE;
    struct tlb_result tres = {0};
    if (rc == EXIT_OK && tplan.enabled) {
        if (opts.dry_run)
            tlb_describe(&tplan, &topo, &tres);
        else
            rc = run_tlb(&tplan, &topo, &rep.sys, &rep.timer, &tres);
        rep.tlb = &tres;
        if (!report_shows_warnings(&opts))
            for (int w = 0; w < tres.n_warnings; w++)
                log_warn("tlb: %s", tres.warnings[w]);
    }

    if (rc == EXIT_OK && (write_report(&opts, &rep, &out) != 0 || output_commit(&out) != 0))
        rc = EXIT_RESOURCE;
    if (rc != EXIT_OK)
        output_abort(&out);
    else
        for (size_t i = 0; i < rep.n_runs; i++)
            if (rep.runs[i].measured && !rep.runs[i].validation.passed) rc = EXIT_FAILED;

    for (size_t i = 0; rep.runs && i < rep.n_runs; i++)
        free(rep.runs[i].placement);
    free(rep.runs);
    tlb_result_free(&tres);
    plan_free(&plan);
    tlb_plan_free(&tplan);
    topology_unload(&topo);
    cli_free(&opts);
    return rc;
}
