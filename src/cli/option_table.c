#include "src/cli/option_table.h"

#include <stdlib.h>
#include <string.h>

#include "hugepages/backend.h"

#define MAX_NTIMES 1000000
#define MAX_OFFSET (1u << 24)
#define MAX_REMOTE 1023u
#define MAX_PAGES_PER_UNMAP 65536u

#define STRINGIFY(x) #x
#define STRING_OF(x) STRINGIFY(x)

/* Where a row's value goes: the member's offset and size in struct options. */
#define AT(member)                                                                                 \
    .field = offsetof(struct options, member), .field_size = sizeof(((struct options *)0)->member)
#define COUNT(member)                                                                              \
    .count = offsetof(struct options, member), .count_size = sizeof(((struct options *)0)->member)
#define TEXT(text)                                                                                 \
    {                                                                                              \
        .kind = ARG_TEXT, .help = text                                                             \
    }

static const char *const types[] = {"double", "float", NULL};
static const char *const formats[] = {"text", "csv", "json", "openmetrics", NULL};
static const char *const domains[] = {"numa", "package", "llc", NULL};
static const char *const matrices[] = {"numa", "tiers", NULL};
static const char *const stores[] = {"auto", "normal", "nt", NULL};
static const char *const orders[] = {"random", "seq", NULL};
static const char *const modes[] = {"chase", "inc", NULL};

/* The --pages values: the page backends, in their table's order. */
static const char *page_choice(size_t i)
{
    const struct mem_backend *b = mem_backend_at(i);
    return b ? b->name : NULL;
}

int option_force_isa(struct options *o, const char *source, const char *arg)
{
    enum isa isa;
    if (isa_parse(arg, &isa) != 0)
        return option_error("%s '%.100s': unknown instruction set; this %s build has %s", source,
                            arg, isa_build_arch(), isa_build_list());
    if (!isa_compiled(isa))
        return option_error("%s %s: not an ISA of this %s build (%s)", source, arg,
                            isa_build_arch(), isa_build_list());
    o->stream.isa = isa;
    o->stream.isa_forced_by = source;
    return 0;
}

static int set_isa(struct options *o, const char *arg)
{
    return option_force_isa(o, "--isa", arg);
}

static void show_isa(const struct options *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->stream.isa_forced_by ? isa_name(o->stream.isa) : "");
}

static int set_peak(struct options *o, const char *arg)
{
    char *end;
    double gbs = strtod(arg, &end);
    if (end == arg || *end || !(gbs > 0.0) || gbs > 1e6)
        return option_error("--peak '%s': give the theoretical peak in GB/s, e.g. --peak 102.4",
                            arg);
    o->peak_mbps = gbs * 1000.0;
    return 0;
}

static void show_peak(const struct options *o, char *buf, size_t len)
{
    buf[0] = '\0';
    if (o->peak_mbps > 0) snprintf(buf, len, "%.17g", o->peak_mbps / 1000.0);
}

/* A shortfall of 100% or more would accept 0 MB/s: the check would check nothing. */
static int set_tolerance(struct options *o, const char *arg)
{
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

static void show_tolerance(const struct options *o, char *buf, size_t len)
{
    snprintf(buf, len, "%.17g", o->tolerance_pct);
}

static int set_expect(struct options *o, const char *arg)
{
    char why[256];
    if (expectations_parse(arg, &o->expect, why, sizeof(why)) != 0)
        return option_error("--expect: %s", why);
    o->checks = true;
    return 0;
}

/* The rates expected: --expect's, then the --reference file's (the same path may hold other
 * rates on another node). */
static void show_expect(const struct options *o, char *buf, size_t len)
{
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

static int set_reference(struct options *o, const char *arg)
{
    if (!*arg) return option_error("--reference: empty file name");
    if (strcmp(arg, "-") == 0) /* "-" is stdout for -o: not read as stdin here */
        return option_error("--reference -: a reference is read from a file, not from stdin; give "
                            "the name of a file --save-reference wrote");
    o->reference = arg;
    o->checks = true;
    return 0;
}

static void show_reference(const struct options *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->reference ? o->reference : "");
}

static int set_cpu(struct options *o, const char *arg)
{
    char why[256];
    uint64_t v;
    if (strcmp(arg, "-1") == 0) {
        o->tlb.cpu = -1;
    } else if (parse_uint(arg, 0, 65535, &v, why, sizeof(why)) != 0) {
        return option_error("--cpu: %s; give a PU number, or -1 for unpinned", why);
    } else {
        o->tlb.cpu = (int)v;
    }
    o->tlb.cpu_given = true;
    return 0;
}

static void show_cpu(const struct options *o, char *buf, size_t len)
{
    buf[0] = '\0';
    if (o->tlb.cpu_given) snprintf(buf, len, "%d", o->tlb.cpu);
}

const char *option_choice(const struct option_row *r, size_t i)
{
    if (r->choice_at) return r->choice_at(i);
    for (size_t k = 0; r->choices[k]; k++)
        if (k == i) return r->choices[k];
    return NULL;
}

/* clang-format off */
const struct option_row option_table[] = {
    TEXT("Usage: membench [KERNELS] [OPTIONS]\n"
         "STREAM-style memory bandwidth of this node: Copy, Scale, Add and Triad on every\n"
         "core, arrays sized from the last-level cache, results validated.\n"
         "\n"
         "Kernels (default: all four, in STREAM order, unless only probes are asked for):\n"),
    {.kind = ARG_KERNELS, AT(stream.kernel_mask), .bits = KERNEL_MASK_STREAM,
     .applies = MEASURE_STREAM, .flags = OPTF_PROFILE,
     .col = 16},
    TEXT("Extra kernels (not in the default set):\n"),
    {.kind = ARG_KERNELS, AT(stream.kernel_mask), .bits = KERNEL_MASK_ALL & ~KERNEL_MASK_STREAM,
     .applies = MEASURE_STREAM, .flags = OPTF_PROFILE},
    TEXT("\n"
         "Probes (combinable; alone they replace the STREAM kernels, which then run only\n"
         "when kernel options are also given):\n"),
    {.name = "tlb", .kind = ARG_SET,
     .help = "TLB sizes and miss costs: one access per page over 1..32768 pages,\n"
             "against a control with the same cache lines in 64x fewer pages;\n"
             "names each data-TLB level, 4 KB and 2 MB pages, page-walk throughput;\n"
             "maps at most 10% of MemAvailable (2.3 GiB of 23 GiB) and takes about\n"
             "40-50 s on a quiet machine, minutes on a busy one: its header says",
     AT(tlb.enabled), .applies = MEASURE_TLB, .flags = OPTF_PROFILE},
    {.name = "cpu", .kind = ARG_CUSTOM, .arg = "N",
     .help = "pin the probe to PU N (default the first planned PU; -1 none)",
     .set = set_cpu, .show = show_cpu, .applies = MEASURE_TLB, .col = 24},
    {.name = "order", .kind = ARG_CHOICE,
     .help = "page visiting order (default random)",
     AT(tlb.order), .choices = orders, .applies = MEASURE_TLB},
    {.name = "no-stagger", .kind = ARG_CLEAR,
     .help = "touch line 0 of every page (default: page p uses line p mod 64)",
     AT(tlb.stagger), .applies = MEASURE_TLB},
    {.name = "tlb-mode", .kind = ARG_CHOICE,
     .help = "pointer chase = latency (default), inc = a[i] += 1 loop",
     AT(tlb.mode), .choices = modes, .applies = MEASURE_TLB},
    {.name = "tlb-pages", .kind = ARG_UINT, .arg = "N",
     .help = "one point: N pages (like the OSTEP tlb.c's ./tlb N T)",
     AT(tlb.pages), .min = 1, .max = TLB_MAX_PAGES_LIMIT,
     .hint = "the number of pages to touch", .applies = MEASURE_TLB},
    {.name = "tlb-trials", .kind = ARG_UINT, .arg = "T",
     .help = "... traversals of those N pages per sample (default: timed)",
     AT(tlb.trials), .min = 1, .max = 1000000000000ull,
     .hint = "traversals of the pages per sample", .applies = MEASURE_TLB},
    {.name = "tlb-max-pages", .kind = ARG_UINT, .arg = "N",
     .help = "last point of the sweep (default 32768; the 2 MB sweep\n"
             "goes to N/8 pages, past the 10% share when given)",
     AT(tlb.max_pages), .min = 4, .max = TLB_MAX_PAGES_LIMIT,
     .hint = "the sweep's last point", .applies = MEASURE_TLB},
    {.name = "repeat", .kind = ARG_UINT, .arg = "K",
     .help = "samples per point, min and median reported (default 5)",
     AT(tlb.repeat), .min = 1, .max = 1000, .hint = "samples per point", .applies = MEASURE_TLB},
    TEXT("  with -t N: the probe runs on N placed threads at once, each on its own pages\n"),
    {.name = "latency", .kind = ARG_SET,
     .help = "idle memory latency: a random pointer chase over 4x the LLC,\n"
             "huge pages when there are, one bound core; then the loaded\n"
             "curve (bandwidth vs latency while the other cores stream)",
     AT(latency.enabled), .applies = MEASURE_LATENCY, .flags = OPTF_PROFILE, .col = 16},
    {.name = "latency-size", .kind = ARG_CUSTOM, .arg = "SIZE",
     .help = "chase buffer and each load thread's arrays\n"
             "(default 4xLLC of the chasing core; at least 4MiB)",
     .set = set_latency_size, .show = show_latency_size, .applies = MEASURE_LATENCY, .col = 24},
    {.name = "faults", .kind = ARG_BITS,
     .help = "page-fault cost: touch one byte per 4 KB page of a fresh region\n"
             "under 4k, thp and 2m backings (minor faults), then of an evicted\n"
             "file with readahead off and on (major faults)",
     AT(probes.mask), .bits = PROBE_BIT(PROBE_FAULTS), .applies = MEASURE_FAULTS,
     .flags = OPTF_PROFILE, .col = 16},
    {.name = "faults-size", .kind = ARG_CUSTOM, .arg = "SIZE",
     .help = "region and file size, a multiple of 2 MiB; a plain\n"
             "number is MiB (default 64)",
     .set = set_faults_size, .show = show_faults_size, .applies = MEASURE_FAULTS, .col = 27},
    {.name = "faults-dir", .kind = ARG_NAME, .arg = "DIR",
     .help = "directory for the file, on a disk-backed filesystem\n"
             "(default $TMPDIR, else /var/tmp)",
     AT(probes.faults_dir), .hint = "directory name", .applies = MEASURE_FAULTS},
    {.name = "faults-backing", .kind = ARG_CUSTOM, .arg = "LIST",
     .help = "4k,thp,2m,file,file-readahead (default all; a listed\n"
             "backing that cannot run here is an error, exit 3)",
     .set = set_faults_backing, .show = show_faults_backing, .applies = MEASURE_FAULTS},
    {.name = "shootdown", .kind = ARG_BITS,
     .help = "TLB-shootdown cost: one pinned thread unmaps touched pages while\n"
             "0, 1, 2, ... sibling threads spin on other CPUs",
     AT(probes.mask), .bits = PROBE_BIT(PROBE_SHOOTDOWN), .applies = MEASURE_SHOOTDOWN,
     .flags = OPTF_PROFILE, .col = 16},
    {.name = "shootdown-remote", .kind = ARG_LIST, .list = &list_numbers, .arg = "N[,N...]",
     .help = "sibling thread counts (default 0,1,2,4,... up to\n"
             "the CPUs there are; 0 is always measured)",
     AT(probes.remote), COUNT(probes.n_remote), .min = 0, .max = MAX_REMOTE,
     .applies = MEASURE_SHOOTDOWN, .flags = OPTF_ONCE, .col = 27, .first_col = 31},
    {.name = "shootdown-pages", .kind = ARG_LIST, .list = &list_numbers, .arg = "N[,N...]",
     .help = "4 KB pages per unmap (default\n"
             "1,2,8,32,33,34,64,512)",
     AT(probes.pages), COUNT(probes.n_pages), .min = 1, .max = MAX_PAGES_PER_UNMAP,
     .applies = MEASURE_SHOOTDOWN, .flags = OPTF_ONCE, .first_col = 31},
    {.name = "timer", .kind = ARG_BITS,
     .help = "resolution, granularity and cost of clock_gettime, gettimeofday,\n"
             "rdtsc/rdtscp, TSC frequency, and repetitions for 1% precision",
     AT(probes.mask), .bits = PROBE_BIT(PROBE_TIMER), .applies = MEASURE_TIMER,
     .flags = OPTF_PROFILE,
     .col = 16},
    TEXT("A backing or sibling count that was listed but cannot run here exits 3; by default\n"
         "it is reported as skipped, with the reason.\n"),
    TEXT("\n"
         "Options (a comma list runs every combination, one result row each; an option\n"
         "that none of the run's measurements uses is refused, exit 2):\n"),
    {.name = "threads", .short_name = 't', .kind = ARG_LIST, .list = &list_numbers, .arg = "N[,N...]",
     .help = "OpenMP threads (default $OMP_NUM_THREADS, else one per\n"
             "physical core; at most " STRING_OF(MAX_THREADS) ")",
     AT(stream.shared.threads), COUNT(stream.shared.n_threads), .min = 1, .max = MAX_THREADS,
     .applies = MEASURE_STREAM | MEASURE_TLB, .flags = OPTF_PROFILE,
     .col = 26},
    {.name = "size", .short_name = 's', .kind = ARG_LIST, .list = &list_sizes, .arg = "SIZE[,...]",
     .help = "per-array size: 4xLLC (multiple of the total last-level\n"
             "cache, fractions allowed), 1.5GiB, 512MiB, 512MB (decimal),\n"
             "or a plain element count. Default: the STREAM rule, each\n"
             "array >= 4x the total LLC and >= 1M elements",
     AT(stream.sizes), COUNT(stream.n_sizes), .applies = MEASURE_STREAM, .flags = OPTF_PROFILE},
    {.name = "ntimes", .short_name = 'n', .kind = ARG_UINT, .arg = "N",
     .help = "repetitions; the first is discarded, the best of the rest\n"
             "is reported (default 10, at least 2)",
     AT(stream.ntimes), .min = 2, .max = MAX_NTIMES,
     .hint = "the first repetition is discarded, so at least 2", .applies = MEASURE_STREAM},
    {.name = "type", .kind = ARG_CHOICE,
     .help = "element type (default double)",
     AT(stream.type), .choices = types, .applies = MEASURE_STREAM, .flags = OPTF_PROFILE},
    {.name = "offset", .kind = ARG_UINT, .arg = "N",
     .help = "shift array k (a=0, b=1, c=2) by k*N elements, like\n"
             "STREAM's OFFSET (default 0)",
     AT(stream.offset), .min = 0, .max = MAX_OFFSET, .applies = MEASURE_STREAM,
     .flags = OPTF_PROFILE},
    {.name = "bind", .kind = ARG_LIST, .list = &list_binds, .arg = "POLICY[,...]",
     .help = "thread placement: scatter (spread over packages, NUMA\n"
             "nodes, LLCs, cores), compact (cores in order, one thread\n"
             "per core before SMT siblings), none (the OS decides), or\n"
             "one PU list of OS indices like 0,2,4-7 (repeat --bind to\n"
             "sweep lists). Default: scatter below one thread per\n"
             "core, compact from there; OpenMP's binding when\n"
             "OMP_PROC_BIND/OMP_PLACES/GOMP_CPU_AFFINITY are set",
     AT(stream.shared.binds), COUNT(stream.shared.n_binds),
     .applies = MEASURE_STREAM | MEASURE_TLB | MEASURE_LATENCY, .flags = OPTF_PROFILE},
    {.name = "per-domain", .kind = ARG_CHOICE,
     .help = "also report each domain's bandwidth, all measured at once",
     AT(stream.per_domain), .min = DOMAIN_NUMA, .choices = domains, .applies = MEASURE_STREAM},
    {.name = "matrix", .kind = ARG_CHOICE,
     .help = "numa: a run for every pair of NUMA nodes, threads on\n"
             "the cores of one (rows, one per core, bound), arrays\n"
             "bound to the other (columns); tiers: a run per memory\n"
             "tier (DRAM, HBM, CXL...) from the cores nearest it;\n"
             "kernels chosen by the kernel options, Triad without one",
     AT(stream.matrix), .min = MATRIX_NUMA, .choices = matrices,
     .applies = MEASURE_STREAM | MEASURE_LATENCY},
    {.name = "pages", .kind = ARG_LIST, .list = &list_words, .arg = "4k|thp|2m|1g|default[,...]",
     .help = "page backing of the arrays, verified in /proc/self/smaps:\n"
             "4k (no THP), thp (transparent huge pages), 2m/1g (hugetlb\n"
             "pages from the reserved pool), default (as the system\n"
             "gives). Without --pages, HUGETLB_MORECORE (hugectl --heap)\n"
             "chooses. Several values: an A/B against the first\n"
             "(e.g. --pages 4k,2m)",
     AT(stream.shared.pages), COUNT(stream.shared.n_pages), .choice_at = page_choice,
     .applies = MEASURE_STREAM | MEASURE_TLB | MEASURE_LATENCY},
    {.name = "stores", .kind = ARG_LIST, .list = &list_words,
     .help = "store instructions: nt = non-temporal (streaming) stores\n"
             "that skip the write-allocate read; auto (default) = time\n"
             "whole repetitions with all normal, all nt and (when the\n"
             "kernels disagree) mixed stores on the discarded first one,\n"
             "run the fastest in total. Runs with nt are labelled tuned,\n"
             "as STREAM's rules ask",
     AT(stream.stores), COUNT(stream.n_stores), .choices = stores, .applies = MEASURE_STREAM,
     .flags = OPTF_PROFILE},
    {.name = "isa", .kind = ARG_CUSTOM, .arg = "NAME",
     .help = "force a kernel variant: avx512|avx2|sse2 (x86-64),\n"
             "sve|neon (aarch64), scalar (plain C, every build);\n"
             "default: the widest the CPU has; also MEMBENCH_ISA",
     .set = set_isa, .show = show_isa, .applies = MEASURE_STREAM, .flags = OPTF_PROFILE},
    {.name = "format", .kind = ARG_CHOICE,
     .help = "output format (default text); openmetrics = Prometheus\n"
             "text format for node_exporter's textfile collector",
     AT(format), .choices = formats, .applies = MEASURE_ALL},
    {.name = "output", .short_name = 'o', .kind = ARG_NAME, .arg = "FILE",
     .help = "write the report to FILE (a file is replaced only when\n"
             "complete; a device, FIFO or /dev/fd/N is written to)",
     AT(output), .hint = "file name", .applies = MEASURE_ALL, .flags = OPTF_LOCAL},
    {.name = "metrics-file", .kind = ARG_NAME, .arg = "FILE",
     .help = "also write the report as OpenMetrics text to FILE (the\n"
             "rules of -o), e.g. node_exporter's textfile directory:\n"
             "/var/lib/prometheus/node-exporter/membench.prom",
     AT(metrics_file), .hint = "file name", .applies = MEASURE_ALL, .flags = OPTF_LOCAL},
    {.name = "quiet", .short_name = 'q', .kind = ARG_SET,
     .help = "one line per run",
    AT(quiet), .applies = MEASURE_ALL,
     .flags = OPTF_LOCAL},
    {.name = "dry-run", .kind = ARG_SET,
     .help = "print the plan (topology, LLC, sizes, memory) and exit",
    AT(dry_run),
     .applies = MEASURE_ALL},
    TEXT("Node acceptance:\n"),
    {.name = "acceptance", .kind = ARG_SET,
     .help = "the acceptance profile: all physical cores, scatter,\n"
             "STREAM-rule arrays, the four kernels, double, auto stores,\n"
             "offset 0, validated, within --time-limit (default 30 s) by\n"
             "running fewer repetitions. Fixed: -t, -s, --bind, --type,\n"
             "--stores, --offset, --isa, kernel and probe options are\n"
             "refused; -n, --pages, --per-domain and output options not",
     AT(acceptance), .applies = MEASURE_STREAM},
    {.name = "expect", .kind = ARG_CUSTOM, .arg = "K=MB/s[,...]",
     .help = "expected best rates, e.g. triad=90000,copy=85000; each\n"
             "kernel named must run",
     .set = set_expect, .show = show_expect, .applies = MEASURE_STREAM},
    {.name = "tolerance", .kind = ARG_CUSTOM, .arg = "PCT",
     .help = "allowed shortfall below expectations, from 0 to under 100\n"
             "(default 5); a rate below it by no more than a spread\n"
             "larger than it (repetitions, the reference's runs) is\n"
             "INCONCLUSIVE (exit 5), not FAIL",
     .set = set_tolerance, .show = show_tolerance, .applies = MEASURE_STREAM},
    {.name = "reference", .kind = ARG_CUSTOM, .arg = "FILE",
     .help = "rates, profile and system fingerprint of a good node: this\n"
             "run must measure its kernels; its profile is compared",
     .set = set_reference, .show = show_reference, .applies = MEASURE_STREAM},
    {.name = "save-reference", .kind = ARG_NAME, .arg = "FILE",
     .help = "write this node's results as a reference (needs a kernel\n"
             "run that passes)",
     AT(save_reference), .hint = "file name", .applies = MEASURE_STREAM},
    {.name = "reference-runs", .kind = ARG_UINT, .arg = "K",
     .help = "with --save-reference: measure K whole runs (default 1, at\n"
             "most 20) and save each kernel's median best rate and the\n"
             "runs' spread, (max - min) / max",
     AT(reference_runs), .min = 1, .max = 20,
     .hint = "from 1 to 20 runs, e.g. --reference-runs 5", .applies = MEASURE_STREAM},
    {.name = "reference-interval", .kind = ARG_REAL, .arg = "SECONDS",
     .help = "with --reference-runs: pause this long between the runs\n"
             "(default 0), so that their spread sees the node drift",
     AT(reference_interval_s), .min = 0, .max = 86400,
     .hint = "seconds, e.g. --reference-interval 60", .applies = MEASURE_STREAM},
    {.name = "time-limit", .kind = ARG_REAL, .arg = "SECONDS",
     .help = "bound each STREAM run (it stops repeating once the next\n"
             "repetition would not fit), each probe, the TLB probe and\n"
             "the latency measurement (they stop and report what finished)",
     AT(time_limit_s), .min = 1, .max = 86400, .hint = "seconds, e.g. --time-limit 30",
     .applies = MEASURE_ALL},
    {.name = "mpi-per-rank", .kind = ARG_SET,
     .help = "(MPI builds, under mpirun/srun) measure on every rank, not\n"
             "once per node: per-socket runs, or tests on one machine",
     AT(mpi_per_rank), .applies = MEASURE_ALL},
    {.name = "peak", .kind = ARG_CUSTOM, .arg = "GB/s",
     .help = "theoretical memory bandwidth, to report % of peak\n"
             "(default: estimated from SMBIOS when readable)",
     .set = set_peak, .show = show_peak, .applies = MEASURE_STREAM},
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

const size_t option_table_rows = sizeof(option_table) / sizeof(option_table[0]);
