/* src/cli's rows: the node's own options (the report, the verdict, the bounds of the run) and
 * the text of --help around the measurements' rows. */
#include "src/cli/option_table.h"

#include <stdlib.h>
#include <string.h>

#define AT(member) OPTION_AT(struct options, member)
#define TEXT(text) OPTION_TEXT(text)

static const char *const formats[] = {"text", "csv", "json", "openmetrics", NULL};

static int set_peak(void *block, const char *arg)
{
    struct options *o = block;
    char *end;
    double gbs = strtod(arg, &end);
    if (end == arg || *end || !(gbs > 0.0) || gbs > 1e6)
        return option_error("--peak '%s': give the theoretical peak in GB/s, e.g. --peak 102.4",
                            arg);
    o->peak_mbps = gbs * 1000.0;
    return 0;
}

static void show_peak(const void *block, char *buf, size_t len)
{
    const struct options *o = block;
    buf[0] = '\0';
    if (o->peak_mbps > 0) snprintf(buf, len, "%.17g", o->peak_mbps / 1000.0);
}

/* A shortfall of 100% or more would accept 0 MB/s: the check would check nothing. */
static int set_tolerance(void *block, const char *arg)
{
    struct options *o = block;
    char *end;
    double pct = strtod(arg, &end);
    if (end == arg || *end || !(pct >= 0.0))
        return option_error("--tolerance '%.60s': give a percentage, e.g. --tolerance 5", arg);
    if (!(pct < 100.0))
        return option_error("--tolerance '%.60s': a shortfall of 100%% or more accepts any rate "
                            "(the floor would be 0 MB/s); give less than 100, e.g. --tolerance 5",
                            arg);
    o->tolerance_pct = pct;
    return 0;
}

static void show_tolerance(const void *block, char *buf, size_t len)
{
    const struct options *o = block;
    snprintf(buf, len, "%.17g", o->tolerance_pct);
}

static int set_expect(void *block, const char *arg)
{
    struct options *o = block;
    char why[256];
    if (expectations_parse(arg, &o->expect, why, sizeof(why)) != 0)
        return option_error("--expect: %s", why);
    o->checks = true;
    return 0;
}

/* The rates expected: --expect's, then the --reference file's (the same path may hold other
 * rates on another node). */
static void show_expect(const void *block, char *buf, size_t len)
{
    const struct options *o = block;
    buf[0] = '\0';
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (o->expect.rate_mbps[k] > 0)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%.17g", buf[0] ? "," : "",
                     kernel_table[k].flag + 2, o->expect.rate_mbps[k]);
    for (int t = 0; t < o->expect.n_tier_rates; t++)
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (o->expect.tier_rates[t].rate_mbps[k] > 0)
                snprintf(buf + strlen(buf), len - strlen(buf), "%s%s:%s=%.17g", buf[0] ? "," : "",
                         o->expect.tier_rates[t].tier, kernel_table[k].flag + 2,
                         o->expect.tier_rates[t].rate_mbps[k]);
}

static int set_reference(void *block, const char *arg)
{
    struct options *o = block;
    if (!*arg) return option_error("--reference: empty file name");
    if (strcmp(arg, "-") == 0) /* "-" is stdout for -o: not read as stdin here */
        return option_error("--reference -: a reference is read from a file, not from stdin; give "
                            "the name of a file --save-reference wrote");
    o->reference = arg;
    o->checks = true;
    return 0;
}

static void show_reference(const void *block, char *buf, size_t len)
{
    const struct options *o = block;
    snprintf(buf, len, "%s", o->reference ? o->reference : "");
}

/* clang-format off */
static const struct option_row usage[] = {
    TEXT("Usage: membench [KERNELS] [OPTIONS]\n"
         "STREAM-style memory bandwidth of this node: Copy, Scale, Add and Triad on every\n"
         "core, arrays sized from the last-level cache, results validated.\n"
         "\n"),
};

static const struct option_row probes_heading[] = {
    TEXT("\n"
         "Probes (combinable; alone they replace the STREAM kernels, which then run only\n"
         "when kernel options are also given):\n"),
};

static const struct option_row options_heading[] = {
    TEXT("\n"
         "Options (a comma list runs every combination, one result row each; an option\n"
         "that none of the run's measurements uses is refused, exit 2):\n"),
};

static const struct option_row node[] = {
    {.name = "format", .kind = ARG_CHOICE,
     .help = "output format (default text); openmetrics = Prometheus\n"
             "text format for node_exporter's textfile collector",
     AT(format), .choices = formats, .applies = APPLIES_ALL},
    {.name = "output", .short_name = 'o', .kind = ARG_NAME, .arg = "FILE",
     .help = "write the report to FILE (a file is replaced only when\n"
             "complete; a device, FIFO or /dev/fd/N is written to)",
     AT(output), .hint = "file name", .applies = APPLIES_ALL, .flags = OPTF_LOCAL},
    {.name = "metrics-file", .kind = ARG_NAME, .arg = "FILE",
     .help = "also write the report as OpenMetrics text to FILE (the\n"
             "rules of -o), e.g. node_exporter's textfile directory:\n"
             "/var/lib/prometheus/node-exporter/membench.prom",
     AT(metrics_file), .hint = "file name", .applies = APPLIES_ALL, .flags = OPTF_LOCAL},
    {.name = "quiet", .short_name = 'q', .kind = ARG_SET,
     .help = "one line per run",
    AT(quiet), .applies = APPLIES_ALL,
     .flags = OPTF_LOCAL},
    {.name = "dry-run", .kind = ARG_SET,
     .help = "print the plan (topology, LLC, sizes, memory) and exit",
    AT(dry_run),
     .applies = APPLIES_ALL},
    TEXT("Node acceptance:\n"),
    {.name = "acceptance", .kind = ARG_SET,
     .help = "the acceptance profile: all physical cores, scatter,\n"
             "STREAM-rule arrays, the four kernels, double, auto stores,\n"
             "offset 0, validated, within --time-limit (default 30 s) by\n"
             "running fewer repetitions. Fixed: -t, -s, --bind, --type,\n"
             "--stores, --offset, --isa, kernel and probe options are\n"
             "refused; -n, --pages, --per-domain and output options not",
     AT(acceptance), .applies = APPLIES_CORE},
    {.name = "expect", .kind = ARG_CUSTOM, .arg = "K=MB/s[,...]",
     .help = "expected best rates, e.g. triad=90000,copy=85000; each\n"
             "kernel named must run",
     .set = set_expect, .show = show_expect, .applies = APPLIES_CORE},
    {.name = "tolerance", .kind = ARG_CUSTOM, .arg = "PCT",
     .help = "allowed shortfall below expectations, from 0 to under 100\n"
             "(default 5); a rate below it by no more than a spread\n"
             "larger than it (repetitions, the reference's runs) is\n"
             "INCONCLUSIVE (exit 5), not FAIL",
     .set = set_tolerance, .show = show_tolerance, .applies = APPLIES_CORE},
    {.name = "reference", .kind = ARG_CUSTOM, .arg = "FILE",
     .help = "rates, profile and system fingerprint of a good node: this\n"
             "run must measure its kernels; its profile is compared",
     .set = set_reference, .show = show_reference, .applies = APPLIES_CORE},
    {.name = "save-reference", .kind = ARG_NAME, .arg = "FILE",
     .help = "write this node's results as a reference (needs a kernel\n"
             "run that passes)",
     AT(save_reference), .hint = "file name", .applies = APPLIES_CORE},
    {.name = "reference-runs", .kind = ARG_UINT, .arg = "K",
     .help = "with --save-reference: measure K whole runs (default 1, at\n"
             "most 20) and save each kernel's median best rate and the\n"
             "runs' spread, (max - min) / max",
     AT(reference_runs), .min = 1, .max = 20,
     .hint = "from 1 to 20 runs, e.g. --reference-runs 5", .applies = APPLIES_CORE},
    {.name = "reference-interval", .kind = ARG_REAL, .arg = "SECONDS",
     .help = "with --reference-runs: pause this long between the runs\n"
             "(default 0), so that their spread sees the node drift",
     AT(reference_interval_s), .min = 0, .max = 86400,
     .hint = "seconds, e.g. --reference-interval 60", .applies = APPLIES_CORE},
    {.name = "time-limit", .kind = ARG_REAL, .arg = "SECONDS",
     .help = "bound each STREAM run (it stops repeating once the next\n"
             "repetition would not fit), each probe, the TLB probe and\n"
             "the latency measurement (they stop and report what finished)",
     AT(time_limit_s), .min = 1, .max = 86400, .hint = "seconds, e.g. --time-limit 30",
     .applies = APPLIES_ALL},
    {.name = "mpi-per-rank", .kind = ARG_SET,
     .help = "(MPI builds, under mpirun/srun) measure on every rank, not\n"
             "once per node: per-socket runs, or tests on one machine",
     AT(mpi_per_rank), .applies = APPLIES_ALL},
    {.name = "peak", .kind = ARG_CUSTOM, .arg = "GB/s",
     .help = "theoretical memory bandwidth, to report % of peak\n"
             "(default: estimated from SMBIOS when readable)",
     .set = set_peak, .show = show_peak, .applies = APPLIES_CORE},
    {.name = "help", .short_name = 'h', .kind = ARG_HELP, .help = "this help"},
    {.name = "version", .short_name = 'V', .kind = ARG_VERSION, .help = "version"},
    TEXT("\n"
         "Exit status: 0 success; 1 validation, page verification or an acceptance check\n"
         "failed; 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (finished runs still\n"
         "written); 2 bad usage or input; 3 a required resource is missing (memory, huge\n"
         "pages, cache size) or writing the report failed; 5 inconclusive: no check\n"
         "failed but a rate was short by no more than a spread above --tolerance (too\n"
         "noisy to judge: run again); every error is one line on stderr.\n"
         "Rates are MB/s = 10^6 bytes/s of STREAM-counted traffic, from the best time.\n"),
};
/* clang-format on */

const struct option_span cli_usage = {usage, OPTION_N(usage)};
const struct option_span cli_probes_heading = {probes_heading, OPTION_N(probes_heading)};
const struct option_span cli_options_heading = {options_heading, OPTION_N(options_heading)};
const struct option_span cli_node_rows = {node, OPTION_N(node)};
