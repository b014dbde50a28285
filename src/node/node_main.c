/* One node's benchmark: plan -> run -> verdict -> report. */
#include "src/node/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/omp_env.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/output_file.h"
#include "src/base/test_hooks.h"
#include "src/node/node_verdict.h"
#include "src/node/parts.h"
#include "src/report/report.h"
#include "src/stream/plan.h"
#include "src/verdict/reference.h"
#include "version.h"

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

/* The report's option, or where the report goes without one. */
static const char *report_name(const struct options *o)
{
    return o->output ? "-o" : "the report (stdout)";
}

/* The file a report option names clashes with a reference or another report: the name of the
 * option it clashes with, or NULL. */
static const char *clash_of(const struct options *o, const char *out, bool with_output)
{
    return o->reference && output_same_file(o->reference, out)             ? "--reference"
           : o->save_reference && output_same_file(o->save_reference, out) ? "--save-reference"
           : with_output && output_same_file(o->output ? o->output : "-", out) ? report_name(o)
                                                                               : NULL;
}

/* The report, the metrics file, the reference read and the reference written must be four
 * files (a reference may be saved over the one read: it is read before measuring). */
static int check_distinct_files(const struct options *o)
{
    const char *out = o->output ? o->output : "-";
    const char *clash = clash_of(o, out, false);
    if (clash) {
        log_error("%s and %s name the same file ('%.200s'): the report would overwrite it; give "
                  "-o another file",
                  clash, report_name(o), strcmp(out, "-") == 0 ? "stdout" : out);
        return EXIT_USAGE;
    }
    clash = o->metrics_file ? clash_of(o, o->metrics_file, true) : NULL;
    if (!clash) return EXIT_OK;
    log_error("%s and --metrics-file name the same file ('%.200s'): one would overwrite the "
              "other; give --metrics-file another file",
              clash, strcmp(o->metrics_file, "-") == 0 ? "stdout" : o->metrics_file);
    return EXIT_USAGE;
}

/* Everything one node's benchmark holds between its phases. */
struct node_run {
    struct options opts;
    double started;
    bool topo_loaded;
    struct topology topo;
    struct report rep;
    struct parts parts;
    struct measure_context ctx;
    struct output_file out, ref, metrics;
    bool stopped_early;
    int early_rc;      /* a later step's resource failed: what finished is reported */
    bool cut_by_limit; /* --time-limit cut a measurement (not only a run's repetitions) */
    struct dimm_inventory dimms;
    struct cpu_identity cpu;
};

/* The kernels the judged measurement's runs measure (struct stream_options). */
static unsigned judged_kernels(const struct options *o)
{
    const struct stream_options *s = options_judged(o);
    return s ? s->kernel_mask : 0;
}

/* The options, the reference and the topology; the report's facts. An exit status after a
 * one-line error. */
static int node_begin(struct node_run *n)
{
    struct options *o = &n->opts;
    char why[400];
    if (check_distinct_files(o) != EXIT_OK) return EXIT_USAGE;
    if (o->reference && (reference_load(o->reference, &o->expect, why, sizeof(why)) != 0 ||
                         reference_check_kernels(o->reference, &o->expect, judged_kernels(o),
                                                 o->acceptance, why, sizeof(why)) != 0)) {
        log_error("%s", why);
        return EXIT_USAGE;
    }
    if (o->acceptance && o->time_limit_s == 0) o->time_limit_s = ACCEPTANCE_TIME_LIMIT_S;
    int loaded = topology_load(&n->topo, why, sizeof(why));
    if (loaded != 0) {
        log_error("%s", why);
        return loaded == -2 ? EXIT_USAGE : EXIT_RESOURCE;
    }
    n->topo_loaded = true;
    if (o->acceptance && !o->dry_run &&
        acceptance_topology_check(&n->topo.facts, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_USAGE;
    }
    if (acceptance_hmat_check(&o->expect, &n->topo.memory, why, sizeof(why)) != 0) {
        log_error("%s", why);
        return EXIT_RESOURCE;
    }
    struct report *rep = &n->rep;
    *rep = (struct report){.version = MEMBENCH_VERSION,
                           .topo = n->topo.facts,
                           .memory = &n->topo.memory,
                           .dry_run = o->dry_run};
    sysinfo_read(&rep->sys);
    provenance_read(&rep->prov);
    cpu_identity_read(test_hooks ? test_hooks->cpuinfo : NULL, &n->cpu);
    dimm_inventory_read(test_hooks ? test_hooks->dmi_entries : NULL, &n->cpu, &n->dimms);
    rep->dimms = &n->dimms;
    rep->cpu = &n->cpu;
    peak_from_inventory(&n->dimms, &rep->prov);
    if (o->peak_mbps > 0) {
        rep->prov.peak_mbps = o->peak_mbps;
        snprintf(rep->prov.peak_source, sizeof(rep->prov.peak_source), "--peak");
    }
    return EXIT_OK;
}

/* Plans every measurement of the table and opens the outputs. An exit status. */
static int node_prepare(struct node_run *n, char **json, size_t *json_len)
{
    const struct options *o = &n->opts;
    char why[400];
    n->ctx = (struct measure_context){.topo = &n->topo,
                                      .sys = &n->rep.sys,
                                      .timer = &n->rep.timer,
                                      .dry_run = o->dry_run,
                                      .time_limit_s = o->time_limit_s,
                                      .started = n->started,
                                      .quiet = o->quiet,
                                      .warnings_in_report = report_shows_warnings(o)};
    int rc = parts_plan(&n->parts, o, &n->ctx);
    if (rc == EXIT_OK && omp_env_check_process(parts_team(&n->parts), why, sizeof(why)) != 0) {
        log_error("%s", why);
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && json && output_open_memory(&n->out, json, json_len) != 0)
        rc = EXIT_RESOURCE;
    if (rc == EXIT_OK && !json) rc = output_prepare(&n->out, o->output);
    if (rc == EXIT_OK && o->save_reference) rc = output_prepare(&n->ref, o->save_reference);
    if (rc == EXIT_OK && o->metrics_file) rc = output_prepare(&n->metrics, o->metrics_file);
    if (rc != EXIT_OK) {
        abort_outputs(&n->out, &n->ref, &n->metrics);
        return rc;
    }
    for (size_t i = 0; i < n->parts.n; i++)
        if (n->parts.p[i].asked && n->parts.p[i].m->advise)
            n->parts.p[i].m->advise(n->parts.p[i].plan, &n->ctx);
    const char *governor = n->rep.prov.governor;
    if (strcmp(governor, "unknown") != 0 && strcmp(governor, "performance") != 0)
        log_warn("the CPU frequency governor is '%s', not 'performance': bandwidth follows the "
                 "core clock; set it with 'cpupower frequency-set -g performance'",
                 governor);
    return EXIT_OK;
}

/* Runs one measurement; its result joins the report. */
static int run_part(struct node_run *n, struct part *p)
{
    const struct measurement *m = p->m;
    if (m->one_deadline && interrupt_signal()) return EXIT_OK;
    if (m->one_deadline) interrupt_measurement_begins(n->ctx.time_limit_s);
    p->started = true;
    int rc = m->run(p->plan, &n->ctx, p->result, &p->outcome);
    if (m->one_deadline) p->outcome.cut_by_limit |= interrupt_measurement_ends();
    n->cut_by_limit |= p->outcome.cut_by_limit;
    n->rep.parts[n->rep.n_parts++] = (struct measured_part){m, p->result};
    if (m->warning && !n->ctx.warnings_in_report) /* else they are in the report */
        for (int w = 0; m->warning(p->result, w); w++)
            log_warn("%s: %s", m->name, m->warning(p->result, w));
    return rc;
}

/* Where the run's conditions are read: /proc and /sys, or membench-hooked's fixture trees. */
static struct conditions_roots conditions_roots(void)
{
    struct conditions_roots r = conditions_system;
    if (test_hooks && test_hooks->proc_root) r.proc = test_hooks->proc_root;
    if (test_hooks && test_hooks->sys_root) r.sys = test_hooks->sys_root;
    return r;
}

/* Before the first measurement: the settings, and (unless --dry-run) the counters' first
 * reading, over the CPUs this process may run on. */
static void conditions_begin(struct node_run *n)
{
    struct run_conditions *c = &n->rep.conditions;
    struct conditions_roots r = conditions_roots();
    c->n_cpus = conditions_allowed_cpus(c->cpus, CONDITIONS_CPUS_MAX);
    conditions_settings_read(&r, c->cpus, c->n_cpus, &c->settings);
    c->read = true;
    if (!n->opts.dry_run) conditions_snapshot_read(&r, c->cpus, c->n_cpus, &c->before);
}

/* After the last measurement, however the run ended: what moved since the first reading. */
static void conditions_end(struct node_run *n)
{
    struct run_conditions *c = &n->rep.conditions;
    if (n->opts.dry_run) return;
    struct conditions_roots r = conditions_roots();
    struct conditions_snapshot after;
    conditions_snapshot_read(&r, c->cpus, c->n_cpus, &after);
    conditions_delta_of(&c->before, &after, &c->delta);
    c->measured = true;
}

/* Every asked measurement in run order, until one fails or stops early (then what finished
 * is reported). An exit status. */
static int node_measure(struct node_run *n)
{
    timer_probe(&n->rep.timer);
    conditions_begin(n);
    int rc = EXIT_OK;
    for (size_t k = 0; k < n->parts.n && rc == EXIT_OK; k++) {
        struct part *p = &n->parts.p[n->parts.order[k]];
        if (!p->asked) continue;
        rc = run_part(n, p);
        if (!p->outcome.stopped_early) continue;
        n->stopped_early = true;
        n->early_rc = rc;
        p->m->kept(p->plan, p->result, true, n->rep.kept, sizeof(n->rep.kept));
        rc = EXIT_OK;
        break;
    }
    conditions_end(n);
    return rc;
}

/* --time-limit cut a measurement short (not only a STREAM run's repetitions, which it may
 * lower, the run still whole): what finished is reported and says what was cut, or, with nothing
 * finished, no report is written. EXIT_RESOURCE (the time asked for was too short) either way. */
static int judge_cut(struct node_run *n, bool *report)
{
    struct report *rep = &n->rep;
    *report = parts_measured_anything(&n->parts);
    if (!*report) {
        const char *name = n->out.name;
        log_error("time limit (--time-limit %g s) reached before any measurement finished: no "
                  "report written%s%.200s%s; raise --time-limit",
                  n->opts.time_limit_s, name ? ", '" : "", name ? name : "",
                  name ? "' is unchanged" : "");
        return EXIT_RESOURCE;
    }
    char kept[sizeof(rep->kept)];
    parts_kept(&n->parts, kept, sizeof(kept));
    snprintf(rep->kept, sizeof(rep->kept), "time limit (--time-limit %g s): %.*s",
             n->opts.time_limit_s, (int)sizeof(kept) - 48, kept);
    log_error("%s; raise --time-limit to measure it all", rep->kept);
    evaluate_checks(&n->opts, rep);
    return EXIT_OK;
}

/* After the runs: the page comparison, what an interrupted or limited run keeps, the checks;
 * *report: whether there is a report to write. An exit status. */
static int node_judge(struct node_run *n, int rc, bool *report)
{
    const struct options *o = &n->opts;
    struct report *rep = &n->rep;
    rep->interrupted = interrupt_signal();
    *report = !rep->interrupted || parts_measured_anything(&n->parts);
    if (rep->interrupted && *report) {
        parts_kept(&n->parts, rep->kept, sizeof(rep->kept));
        log_error("interrupted by %s: %s", interrupt_name(rep->interrupted), rep->kept);
    } else if (rep->interrupted) {
        const char *name = n->out.name;
        log_error("interrupted by %s before any %s finished: no report written%s%.200s%s",
                  interrupt_name(rep->interrupted), parts_step(&n->parts), name ? ", '" : "",
                  name ? name : "", name ? "' is unchanged" : "");
    } else if (rc == EXIT_OK && n->cut_by_limit && !n->stopped_early) {
        rc = judge_cut(n, report);
    } else if (rc == EXIT_OK && !n->stopped_early) {
        evaluate_checks(o, rep);
    }
    if (*report) evaluate_diagnosis(o, rep);
    rep->prov.duration_s = timer_now() - n->started;
    return rc;
}

/* The measurements in every report that did not run join it with their zeroed results. */
static void join_unrun(struct node_run *n)
{
    for (size_t i = 0; i < n->parts.n; i++) {
        const struct part *p = &n->parts.p[i];
        if (p->m->in_every_report && !p->started && n->rep.n_parts < MEASURE_PARTS_MAX)
            n->rep.parts[n->rep.n_parts++] = (struct measured_part){p->m, p->result};
    }
}

/* Writes the report (when there is one) and the reference; the exit status. */
static int node_finish(struct node_run *n, int rc, bool report)
{
    const struct options *o = &n->opts;
    struct report *rep = &n->rep;
    join_unrun(n);
    if (rc == EXIT_OK && report && write_reports(o, rep, &n->out, &n->metrics) != 0)
        rc = EXIT_RESOURCE;
    if (!report) abort_outputs(&n->out, &n->metrics, NULL);
    if (rc != EXIT_OK) {
        abort_outputs(&n->out, &n->ref, &n->metrics);
        return rc;
    }
    if (rep->acceptance.evaluated && !rep->acceptance.passed)
        rc = acceptance_verdict(&rep->acceptance) == CHECK_INCONCLUSIVE && rc == EXIT_OK
                 ? EXIT_INCONCLUSIVE
                 : EXIT_FAILED;
    if (parts_failures(&n->parts) > 0) rc = EXIT_FAILED;
    if (rep->interrupted) {
        output_abort(&n->ref);
        if (o->save_reference)
            log_note("no reference written to %s: the run was interrupted", o->save_reference);
        return 128 + rep->interrupted;
    }
    if (n->stopped_early || n->cut_by_limit) {
        output_abort(&n->ref);
        if (o->save_reference && n->cut_by_limit)
            log_note("no reference written to %s: --time-limit cut the run short",
                     o->save_reference);
        return n->stopped_early ? n->early_rc : rc == EXIT_FAILED ? rc : EXIT_RESOURCE;
    }
    if (o->save_reference && o->dry_run) {
        output_abort(&n->ref);
        log_note("--dry-run measures nothing: no reference written to %s", o->save_reference);
    } else if (o->save_reference) {
        int saved = save_reference(rep, &n->ref, o->save_reference, o->tolerance_pct);
        if (rc == EXIT_OK) rc = saved;
    }
    return rc;
}

int node_main(struct options *o, char **json, size_t *json_len)
{
    struct node_run n = {.opts = *o, .started = timer_now()};
    if (json) n.opts.format = FORMAT_JSON;
    int rc = node_begin(&n);
    if (rc == EXIT_OK) rc = node_prepare(&n, json, json_len);
    if (rc == EXIT_OK) {
        bool report = false;
        rc = node_judge(&n, node_measure(&n), &report);
        rc = node_finish(&n, rc, report);
    }
    parts_free(&n.parts);
    if (n.topo_loaded) topology_unload(&n.topo);
    return rc;
}
