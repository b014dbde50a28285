#ifndef MEMBENCH_CLI_H
#define MEMBENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernels/kernel_table.h"
#include "src/base/parse.h"
#include "src/measure/option_row.h"
#include "src/measure/shared_options.h"
#include "src/verdict/acceptance.h"

enum output_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON, FORMAT_OPENMETRICS };

#define OPTIONS_BLOCKS_BYTES 16384 /* the measurements' options blocks together */

/* The command line, parsed and checked; nothing here depends on the machine. */
struct options {
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
    unsigned reference_runs;      /* --reference-runs: whole runs behind a saved reference */
    double reference_interval_s;  /* --reference-interval: the pause between those runs */
    double time_limit_s;          /* 0 = none; --acceptance defaults to 30 */
    bool mpi_per_rank;            /* MPI builds: every rank is its own "node" */
    struct shared_options shared; /* threads, binding, pages, --matrix: several measurements' */
    /* each measurement's options block (its .options->block_size bytes), one per row of the
     * table of measurements, where option_table_build() places it */
    _Alignas(max_align_t) unsigned char blocks[OPTIONS_BLOCKS_BYTES];
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

/* The options block of the measurement whose rows are mo (NULL when none in the table has
 * them): what src/cli's checks read of one measurement. */
void *options_block(struct options *o, const struct measure_options *mo);
const void *options_block_of(const struct options *o, const struct measure_options *mo);

/* The judged measurement's options block (STREAM's struct stream_options), or NULL. */
const void *options_judged(const struct options *o);

/* What every measurement's request reads beside its block: points into o. */
void cli_measure_shared(const struct options *o, struct measure_shared *sh);

/* The request of row i of the table of measurements (its m->request_size bytes, zeroed). */
void cli_request(const struct options *o, size_t i, void *request);

#endif
