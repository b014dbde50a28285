#ifndef MEMBENCH_CLI_H
#define MEMBENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "affinity/policy.h"
#include "kernels/kernel_table.h"
#include "src/verdict/acceptance.h"
#include "src/base/parse.h"
#include "src/latency/latency.h"
#include "src/stream/plan.h"
#include "src/probes/probes.h"
#include "src/tlb/run_tlb.h"
#include "src/tlb/tlb_options.h"

enum output_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON, FORMAT_OPENMETRICS };

/* The command line, parsed and checked; nothing here depends on the machine. */
struct options {
    struct stream_options stream; /* what the STREAM runs read: the kernels, threads, sizes... */
    enum output_format format;
    const char *output;
    const char *metrics_file; /* --metrics-file: the OpenMetrics text too, beside the report */
    bool quiet;
    bool dry_run;
    double peak_mbps;           /* --peak, 0 when not given */
    bool acceptance;            /* the fixed acceptance profile */
    struct expectations expect; /* --expect, then the --reference file's rates */
    bool checks;                /* --expect or --reference: evaluate acceptance checks */
    double tolerance_pct;
    const char *reference;
    const char *save_reference;
    unsigned reference_runs;        /* --reference-runs: whole runs behind a saved reference */
    double reference_interval_s;    /* --reference-interval: the pause between those runs */
    double time_limit_s;            /* 0 = none; --acceptance defaults to 30 */
    bool mpi_per_rank;              /* MPI builds: every rank is its own "node" */
    struct probe_options probes;    /* --faults, --shootdown, --timer and their options */
    struct tlb_options tlb;         /* --tlb and its options */
    struct latency_options latency; /* --latency and its options */
};

enum cli_action { CLI_RUN, CLI_EXIT_OK, CLI_EXIT_USAGE };

/* Parses argv into opts. CLI_EXIT_OK after --help/--version (already printed);
 * CLI_EXIT_USAGE after a one-line error on stderr. */
enum cli_action cli_parse(int argc, char **argv, struct options *opts);

/* Whether the options ask for any measurement (any bit of option_measures). cli_parse makes
 * a run that asks for none the four STREAM kernels. */
bool cli_measures_something(const struct options *o);

void cli_print_help(FILE *out);
void cli_free(struct options *opts);

/* What the STREAM plan needs of the options: r points into o. */
void cli_stream_request(const struct options *o, struct stream_request *r);
/* The TLB probe's request: its options and the placement and page options it shares. */
void cli_tlb_request(const struct options *o, struct tlb_request *r);
/* The latency measurement's request (with --matrix numa, the latency matrix too). */
void cli_latency_request(const struct options *o, struct latency_request *r);

#endif
