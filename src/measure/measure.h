#ifndef MEMBENCH_MEASURE_H
#define MEMBENCH_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A measurement (STREAM, the probes, --tlb, --latency) described once: one const instance in
 * its own folder, one row of the table in src/cli/measurements.c. src/node and the report
 * writers loop over that table; plans and results are opaque to them (the verdict and the
 * saved reference read STREAM's runs from its result, struct stream_result). */

struct topology;
struct sys_info;
struct timer_info;
struct json_t;
struct measure_options;
struct node_memory;

/* What every hook may read of the invocation. */
struct measure_context {
    const struct topology *topo;
    const struct sys_info *sys;
    const struct timer_info *timer;
    bool dry_run;
    double time_limit_s;     /* --time-limit; 0: none */
    double started;          /* timer_now() when membench started: the limit counts from here */
    bool quiet;              /* -q: no progress line */
    bool warnings_in_report; /* the text report on stdout shows warnings: not also on stderr */
};

/* What a run tells the loop beside its exit status. */
struct measure_outcome {
    bool cut_by_limit; /* --time-limit cut it: a warning, what it measured reported */
    bool failed;       /* it failed its own check: reported, exit 1 */
    /* a later step could not get its resources (its exit status is the run's): what finished
     * before it is reported, and kept() says so */
    bool stopped_early;
};

/* Where a writer's section goes in its report, in this order: first after the node's facts,
 * or before or after the report's tail (text: the dry-run line and the text_tail hooks' lines;
 * quiet: the acceptance line; JSON and OpenMetrics: the verdict and the saved reference). */
enum measure_slot { MEASURE_LEAD, MEASURE_BEFORE_TAIL, MEASURE_AFTER_TAIL };

/* What the writers may read of the node's report beside their result. */
struct measure_report_facts {
    bool dry_run;
    double peak_mbps;                 /* --peak or the machine's; 0: unknown */
    const struct node_memory *memory; /* every NUMA node; NULL in tests */
    /* the CSV's provenance columns and the OpenMetrics hostname label */
    const char *hostname, *start_iso, *version;
};

struct measurement {
    const char *name; /* "tlb": the prefix of its warnings on stderr */
    size_t request_size, plan_size, result_size;
    /* runs before the others (in table order), though planned in table order */
    bool runs_first;
    /* its result is what the verdict judges (and saves as a reference):
     * STREAM's runs, a struct stream_result, read by src/verdict, src/node and the report's
     * saved reference through report_stream(); one measurement at most */
    bool judged;
    /* its writers run on its zeroed result when it did not run (its JSON keys are in every
     * report) */
    bool in_every_report;
    /* what one finished step of it is called where it is the only measurement ("run": an
     * interruption before any run finished); NULL: "measurement" */
    const char *step;
    /* the loop skips it after a signal and gives it --time-limit as one deadline (else it
     * keeps its own) */
    bool one_deadline;
    /* request -> plan: an exit status after a one-line error; a plan that asks for nothing
     * is EXIT_OK and asked() false */
    int (*plan)(const void *request, const struct measure_context *ctx, void *plan);
    bool (*asked)(const void *plan);
    /* the most OpenMP threads one of its regions starts; NULL: one */
    unsigned (*team)(const void *plan);
    void (*advise)(const void *plan, const struct measure_context *ctx); /* notes, or NULL */
    /* measures (or with ctx->dry_run describes) into result: an exit status */
    int (*run)(const void *plan, const struct measure_context *ctx, void *result,
               struct measure_outcome *outcome);
    const char *(*warning)(const void *result, int i); /* NULL past the last; or no hook */
    /* after a signal or the time limit: what it keeps, one phrase; result NULL when it did
     * not start; alone: it is the only measurement of the run */
    void (*kept)(const void *plan, const void *result, bool alone, char *buf, size_t len);
    bool (*measured_anything)(const void *result); /* worth a report after a signal */
    int (*failures)(const void *result); /* logs each failed check it holds; how many; or NULL */
    /* frees what plan and run allocated (both start zeroed, run may not have begun); or NULL */
    void (*free)(void *plan, void *result);
    /* writers: they only format; a NULL writer: no section in that format. data_slot places
     * the CSV table, JSON keys and OpenMetrics families. */
    enum measure_slot text_slot, quiet_slot, data_slot;
    void (*text)(FILE *out, const void *result, const struct measure_report_facts *f);
    /* its lines in the text report's tail (STREAM's summary of its runs), or NULL */
    void (*text_tail)(FILE *out, const void *result, const struct measure_report_facts *f);
    void (*quiet)(FILE *out, const void *result, const struct measure_report_facts *f);
    /* after_table: a table was written before it (a blank line then separates them); whether
     * it wrote one */
    bool (*csv)(FILE *out, const void *result, const struct measure_report_facts *f,
                bool after_table);
    void (*json)(struct json_t *root, const void *result, const struct measure_report_facts *f);
    /* its OpenMetrics families (src/measure/report_metrics.h writes them) */
    void (*metrics)(FILE *out, const void *result, const struct measure_report_facts *f);
    /* its command line: its rows, what asks for it (src/measure/option_row.h) */
    const struct measure_options *options;
};

/* A measurement that ran, in the report: what the writers loop over. */
struct measured_part {
    const struct measurement *m;
    const void *result;
};

#define MEASURE_PARTS_MAX 8

#endif
