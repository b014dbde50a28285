#include "src/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "src/log.h"
#include "version.h"

#define MAX_NTIMES 1000000
#define MAX_OFFSET (1u << 24)

enum long_only {
    OPT_COPY = 256,
    OPT_SCALE,
    OPT_ADD,
    OPT_TRIAD,
    OPT_BIND,
    OPT_PAGES,
    OPT_STORES,
    OPT_TYPE,
    OPT_OFFSET,
    OPT_FORMAT,
    OPT_DRY_RUN,
    OPT_PER_DOMAIN,
    OPT_DOT,
    OPT_READ,
    OPT_WRITE,
    OPT_NSTREAM,
    OPT_ISA,
    OPT_PEAK,
    OPT_ACCEPTANCE,
    OPT_EXPECT,
    OPT_TOLERANCE,
    OPT_REFERENCE,
    OPT_SAVE_REFERENCE,
    OPT_TIME_LIMIT,
    OPT_MPI_PER_RANK,
    OPT_TLB,
    OPT_CPU,
    OPT_ORDER,
    OPT_NO_STAGGER,
    OPT_TLB_MODE,
    OPT_TLB_PAGES,
    OPT_TLB_TRIALS,
    OPT_REPEAT,
    OPT_TLB_MAX_PAGES,
};

/* In --help order: an ambiguous abbreviation lists its candidates in that order. */
static const struct option long_options[] = {
    {"copy", no_argument, NULL, OPT_COPY},
    {"scale", no_argument, NULL, OPT_SCALE},
    {"add", no_argument, NULL, OPT_ADD},
    {"triad", no_argument, NULL, OPT_TRIAD},
    {"dot", no_argument, NULL, OPT_DOT},
    {"read", no_argument, NULL, OPT_READ},
    {"write", no_argument, NULL, OPT_WRITE},
    {"nstream", no_argument, NULL, OPT_NSTREAM},
    {"tlb", no_argument, NULL, OPT_TLB},
    {"cpu", required_argument, NULL, OPT_CPU},
    {"order", required_argument, NULL, OPT_ORDER},
    {"no-stagger", no_argument, NULL, OPT_NO_STAGGER},
    {"tlb-mode", required_argument, NULL, OPT_TLB_MODE},
    {"tlb-pages", required_argument, NULL, OPT_TLB_PAGES},
    {"tlb-trials", required_argument, NULL, OPT_TLB_TRIALS},
    {"tlb-max-pages", required_argument, NULL, OPT_TLB_MAX_PAGES},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"threads", required_argument, NULL, 't'},
    {"size", required_argument, NULL, 's'},
    {"ntimes", required_argument, NULL, 'n'},
    {"type", required_argument, NULL, OPT_TYPE},
    {"offset", required_argument, NULL, OPT_OFFSET},
    {"bind", required_argument, NULL, OPT_BIND},
    {"per-domain", required_argument, NULL, OPT_PER_DOMAIN},
    {"pages", required_argument, NULL, OPT_PAGES},
    {"stores", required_argument, NULL, OPT_STORES},
    {"isa", required_argument, NULL, OPT_ISA},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"acceptance", no_argument, NULL, OPT_ACCEPTANCE},
    {"expect", required_argument, NULL, OPT_EXPECT},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"save-reference", required_argument, NULL, OPT_SAVE_REFERENCE},
    {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
    {"mpi-per-rank", no_argument, NULL, OPT_MPI_PER_RANK},
    {"peak", required_argument, NULL, OPT_PEAK},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    PROBE_LONG_OPTIONS,
    {NULL, 0, NULL, 0},
};

void cli_print_help(FILE *out)
{
    fprintf(
        out,
        "Usage: membench [KERNELS] [OPTIONS]\n"
        "STREAM-style memory bandwidth of this node: Copy, Scale, Add and Triad on every\n"
        "core, arrays sized from the last-level cache, results validated.\n"
        "\n"
        "Kernels (default: all four, in STREAM order, unless only probes are asked for):\n"
        "  --copy        c = a          (2 words moved per element)\n"
        "  --scale       b = q*c        (2 words, 1 flop)\n"
        "  --add         c = a + b      (3 words, 1 flop)\n"
        "  --triad       a = b + q*c    (3 words, 2 flops)\n"
        "Extra kernels (not in the default set):\n"
        "  --dot         sum += a*b     (2 words read, a reduction)\n"
        "  --read        sum += a       (1 word read, a reduction)\n"
        "  --write       c = q          (1 word written)\n"
        "  --nstream     a += b + q*c   (4 words: 3 read, 1 written)\n"
        "\n"
        "Probes:\n"
        "  --tlb         TLB sizes and miss costs: one access per page over 1..32768 pages,\n"
        "                against a control with the same cache lines in 64x fewer pages;\n"
        "                names each data-TLB level, 4 KB and 2 MB pages, page-walk throughput\n"
        "  --cpu N               pin the probe to PU N (default the first planned PU; -1 none)\n"
        "  --order random|seq    page visiting order (default random)\n"
        "  --no-stagger          touch line 0 of every page (default: page p uses line p mod 64)\n"
        "  --tlb-mode chase|inc  pointer chase = latency (default), inc = a[i] += 1 loop\n"
        "  --tlb-pages N         one point: N pages (like seed 000's ./tlb N T)\n"
        "  --tlb-trials T        ... traversals of those N pages per sample (default: timed)\n"
        "  --tlb-max-pages N     last point of the sweep (default 32768; the 2 MB sweep\n"
        "                        goes to N/8 pages)\n"
        "  --repeat K            samples per point, min and median reported (default 5)\n"
        "  with -t N: the probe runs on N placed threads at once, each on its own pages\n"
        "\n"
        "Options (a comma list runs every combination, one result row each):\n"
        "  -t, --threads N[,N...]  OpenMP threads (default $OMP_NUM_THREADS, else one per\n"
        "                          physical core; at most %d)\n"
        "  -s, --size SIZE[,...]   per-array size: 4xLLC (multiple of the total last-level\n"
        "                          cache, fractions allowed), 1.5GiB, 512MiB, 512MB (decimal),\n"
        "                          or a plain element count. Default: the STREAM rule, each\n"
        "                          array >= 4x the total LLC and >= 1M elements\n"
        "  -n, --ntimes N          repetitions; the first is discarded, the best of the rest\n"
        "                          is reported (default 10, at least 2)\n"
        "  --type double|float     element type (default double)\n"
        "  --offset N              shift array k (a=0, b=1, c=2) by k*N elements, like\n"
        "                          STREAM's OFFSET (default 0)\n"
        "  --bind POLICY[,...]     thread placement: scatter (spread over packages, NUMA\n"
        "                          nodes, LLCs, cores), compact (cores in order, one thread\n"
        "                          per core before SMT siblings), none (the OS decides), or\n"
        "                          one PU list of OS indices like 0,2,4-7 (repeat --bind to\n"
        "                          sweep lists). Default: scatter below one thread per\n"
        "                          core, compact from there; OpenMP's binding when\n"
        "                          OMP_PROC_BIND/OMP_PLACES/GOMP_CPU_AFFINITY are set\n"
        "  --per-domain numa|package|llc\n"
        "                          also report each domain's bandwidth, all measured at once\n"
        "  --pages 4k|thp|2m|1g|default[,...]\n"
        "                          page backing of the arrays, verified in /proc/self/smaps:\n"
        "                          4k (no THP), thp (transparent huge pages), 2m/1g (hugetlb\n"
        "                          pages from the reserved pool), default (as the system\n"
        "                          gives). Without --pages, HUGETLB_MORECORE (hugectl --heap)\n"
        "                          chooses. Several values: an A/B against the first\n"
        "                          (e.g. --pages 4k,2m)\n"
        "  --stores auto|normal|nt store instructions: nt = non-temporal (streaming) stores\n"
        "                          that skip the write-allocate read; auto = nt when the\n"
        "                          arrays keep the STREAM rule, else normal. Runs with nt\n"
        "                          are labelled tuned, as STREAM's rules ask\n"
        "  --isa avx512|avx2|sse2  force a kernel variant (default: the widest the CPU has;\n"
        "                          also MEMBENCH_ISA)\n"
        "  --format text|csv|json  output format (default text)\n"
        "  -o, --output FILE       write the report to FILE (a file is replaced only when\n"
        "                          complete; a device, FIFO or /dev/fd/N is written to)\n"
        "  -q, --quiet             one line per run\n"
        "  --dry-run               print the plan (topology, LLC, sizes, memory) and exit\n"
        "Node acceptance:\n"
        "  --acceptance            the acceptance profile: all physical cores, scatter,\n"
        "                          STREAM-rule arrays, the four kernels, double, auto stores,\n"
        "                          offset 0, validated, within --time-limit (default 30 s) by\n"
        "                          running fewer repetitions. Fixed: -t, -s, --bind, --type,\n"
        "                          --stores, --offset, --isa, kernel and probe options are\n"
        "                          refused; -n, --pages, --per-domain and output options not\n"
        "  --expect K=MB/s[,...]   expected best rates, e.g. triad=90000,copy=85000; each\n"
        "                          kernel named must run\n"
        "  --tolerance PCT         allowed shortfall below expectations (default 5)\n"
        "  --reference FILE        rates, profile and system fingerprint of a good node: this\n"
        "                          run must measure its kernels; its profile is compared\n"
        "  --save-reference FILE   write this node's results as a reference (needs a kernel\n"
        "                          run that passes)\n"
        "  --time-limit SECONDS    stop repeating once the next repetition would not fit\n"
        "  --mpi-per-rank          (MPI builds, under mpirun/srun) measure on every rank, not\n"
        "                          once per node: per-socket runs, or tests on one machine\n"
        "  --peak GB/s             theoretical memory bandwidth, to report %% of peak\n"
        "                          (default: estimated from SMBIOS when readable)\n"
        "  -h, --help              this help\n"
        "  -V, --version           version\n"
        "\n"
        "Exit status: 0 success; 1 validation, page verification or an acceptance check\n"
        "failed; 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (finished runs still\n"
        "written); 2 bad usage or input; 3 a required resource is missing (memory, huge\n"
        "pages, cache size) or writing the report failed; every error is one line on\n"
        "stderr.\n"
        "Rates are MB/s = 10^6 bytes/s of STREAM-counted traffic, from the best time.\n",
        MAX_THREADS);
    probe_print_help(out);
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof(msg), fmt, a, b);
    log_error("%s; see membench --help", msg);
    return 1;
}

struct word_list {
    const char *const *accepted;
    const char **dest;
    size_t *count;
    const char *hint;
};

struct list_ctx {
    struct options *opts;
    const char *option;
    const struct word_list *words;
    char why[256];
};

static int add_threads(const char *item, void *vctx)
{
    struct list_ctx *ctx = vctx;
    struct options *o = ctx->opts;
    uint64_t v;
    if (parse_uint(item, 1, MAX_THREADS, &v, ctx->why, sizeof(ctx->why)) != 0)
        return usage_error("--threads: %s", ctx->why, "");
    if (o->n_threads == LIST_MAX) return usage_error("--threads: more than 64 values%s%s", "", "");
    o->threads[o->n_threads++] = (unsigned)v;
    return 0;
}

static int add_bind(const char *item, void *vctx)
{
    struct list_ctx *ctx = vctx;
    struct options *o = ctx->opts;
    if (o->n_binds == LIST_MAX) return usage_error("--bind: more than 64 values%s%s", "", "");
    if (bind_spec_parse(item, &o->binds[o->n_binds], ctx->why, sizeof(ctx->why)) != 0)
        return usage_error("--bind: %s%s", ctx->why, "");
    o->n_binds++;
    return 0;
}

static int add_size(const char *item, void *vctx)
{
    struct list_ctx *ctx = vctx;
    struct options *o = ctx->opts;
    if (o->n_sizes == LIST_MAX) return usage_error("--size: more than 64 values%s%s", "", "");
    if (parse_size(item, &o->sizes[o->n_sizes], ctx->why, sizeof(ctx->why)) != 0)
        return usage_error("--size: %s", ctx->why, "");
    o->n_sizes++;
    return 0;
}

/* Values accepted by the list options of words. */
static const char *const page_values[] = {"default", "4k", "thp", "2m", "1g", NULL};
static const char *const store_values[] = {"auto", "normal", "nt", NULL};

static const char *find_word(const char *const *words, const char *item)
{
    for (; *words; words++)
        if (strcmp(*words, item) == 0) return *words;
    return NULL;
}

static int add_word(const char *item, void *vctx)
{
    struct list_ctx *ctx = vctx;
    const struct word_list *w = ctx->words;
    const char *word = find_word(w->accepted, item);
    char msg[300];
    if (!word) {
        snprintf(msg, sizeof(msg), "%s %s", ctx->option, item);
        return usage_error("%s: unknown value (accepted: %s)", msg, w->hint);
    }
    if (*w->count == LIST_MAX) return usage_error("%s: more than 64 values%s", ctx->option, "");
    w->dest[(*w->count)++] = word;
    return 0;
}

static int parse_list(struct options *o, const char *option, const char *arg,
                      int (*each)(const char *, void *), const struct word_list *words)
{
    struct list_ctx ctx = {.opts = o, .option = option, .words = words};
    char why[256];
    int rc = for_each_list_item(arg, each, &ctx, why, sizeof(why));
    if (rc == -1) /* the list itself is malformed; callbacks report their own errors */
        return usage_error("%s: %s", option, why);
    return rc;
}

static int parse_choice(const char *option, const char *arg, const char *const *choices, int *index)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(arg, choices[i]) == 0) {
            *index = i;
            return 0;
        }
    char accepted[128] = "";
    for (int i = 0; choices[i]; i++) {
        strncat(accepted, i ? "|" : "", sizeof(accepted) - strlen(accepted) - 1);
        strncat(accepted, choices[i], sizeof(accepted) - strlen(accepted) - 1);
    }
    char msg[300];
    snprintf(msg, sizeof(msg), "%s '%.200s'", option, arg);
    return usage_error("%s: unknown value; use %s", msg, accepted);
}

static int parse_isa(struct options *o, const char *source, const char *arg)
{
    enum isa isa;
    if (isa_parse(arg, &isa) != 0) {
        char msg[200];
        snprintf(msg, sizeof(msg), "%s '%.100s'", source, arg);
        return usage_error("%s: unknown instruction set; use avx512, avx2 or sse2%s", msg, "");
    }
    o->isa = isa;
    o->isa_forced_by = source;
    return 0;
}

static int parse_positive(const char *arg, const char *option, const char *hint, double min,
                          double max, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= min) || !(v <= max)) {
        char msg[200];
        snprintf(msg, sizeof(msg), "%s '%.60s'", option, arg);
        return usage_error("%s: give %s", msg, hint);
    }
    *out = v;
    return 0;
}

static int parse_peak(struct options *o, const char *arg)
{
    char *end;
    double gbs = strtod(arg, &end);
    if (end == arg || *end || !(gbs > 0.0) || gbs > 1e6)
        return usage_error("--peak '%s': give the theoretical peak in GB/s, e.g. --peak 102.4%s",
                           arg, "");
    o->peak_mbps = gbs * 1000.0;
    return 0;
}

static void set_defaults(struct options *o)
{
    memset(o, 0, sizeof(*o));
    o->ntimes = 10;
    o->type = TYPE_DOUBLE;
    o->format = FORMAT_TEXT;
    o->tolerance_pct = 5.0;
    for (int k = 0; k < KERNEL_COUNT; k++)
        o->expect.rate_mbps[k] = 0.0;
    o->expect.hugepages_2m = -1;
    o->tlb.cpu = -1;
    o->tlb.order = TLB_ORDER_RANDOM;
    o->tlb.stagger = true;
    o->tlb.mode = TLB_MODE_CHASE;
    o->tlb.repeat = TLB_DEFAULT_REPEAT;
    o->tlb.max_pages = TLB_DEFAULT_MAX_PAGES;
}

/* The probe's options: checked here as text, against the machine when the probe is planned. */
static int apply_tlb_option(struct tlb_options *t, int c, const char *arg)
{
    static const char *const orders[] = {"random", "seq", NULL};
    static const char *const modes[] = {"chase", "inc", NULL};
    static const char *const names[] = {"--cpu",      "--order",        "--no-stagger",
                                        "--tlb-mode", "--tlb-pages",    "--tlb-trials",
                                        "--repeat",   "--tlb-max-pages"};
    char why[256];
    uint64_t v;
    int index = 0;
    if (c < OPT_CPU || c > OPT_TLB_MAX_PAGES)
        return usage_error("internal: unhandled option %s%s", "", "");
    if (!t->any_option) t->first_option = names[c - OPT_CPU];
    t->any_option = true;
    switch (c) {
    case OPT_CPU:
        if (strcmp(arg, "-1") == 0) {
            t->cpu = -1;
        } else if (parse_uint(arg, 0, 65535, &v, why, sizeof(why)) != 0) {
            return usage_error("--cpu: %s; give a PU number, or -1 for unpinned", why, "");
        } else {
            t->cpu = (int)v;
        }
        t->cpu_given = true;
        return 0;
    case OPT_ORDER:
        if (parse_choice("--order", arg, orders, &index) != 0) return 1;
        t->order = (enum tlb_order)index;
        return 0;
    case OPT_NO_STAGGER: t->stagger = false; return 0;
    case OPT_TLB_MODE:
        if (parse_choice("--tlb-mode", arg, modes, &index) != 0) return 1;
        t->mode = (enum tlb_mode)index;
        return 0;
    case OPT_TLB_PAGES:
        if (parse_uint(arg, 1, TLB_MAX_PAGES_LIMIT, &v, why, sizeof(why)) != 0)
            return usage_error("--tlb-pages: %s (the number of pages to touch)", why, "");
        t->pages = v;
        return 0;
    case OPT_TLB_TRIALS:
        if (parse_uint(arg, 1, 1000000000000ull, &v, why, sizeof(why)) != 0)
            return usage_error("--tlb-trials: %s (traversals of the pages per sample)", why, "");
        t->trials = v;
        return 0;
    case OPT_REPEAT:
        if (parse_uint(arg, 1, 1000, &v, why, sizeof(why)) != 0)
            return usage_error("--repeat: %s (samples per point)", why, "");
        t->repeat = (unsigned)v;
        return 0;
    default: /* OPT_TLB_MAX_PAGES */
        if (parse_uint(arg, 4, TLB_MAX_PAGES_LIMIT, &v, why, sizeof(why)) != 0)
            return usage_error("--tlb-max-pages: %s (the sweep's last point)", why, "");
        t->max_pages = v;
        return 0;
    }
}

/* Combinations of probe options that cannot mean anything. */
static int check_tlb_options(const struct options *o)
{
    const struct tlb_options *t = &o->tlb;
    if (t->any_option && !t->enabled)
        return usage_error("%s is an option of the TLB probe; add --tlb%s", t->first_option, "");
    if (t->trials && !t->pages)
        return usage_error("--tlb-trials needs --tlb-pages N (trials are traversals of N "
                           "pages)%s%s",
                           "", "");
    if (t->pages && t->max_pages != TLB_DEFAULT_MAX_PAGES)
        return usage_error("--tlb-pages measures one point; --tlb-max-pages is for sweeps, "
                           "drop one of them%s%s",
                           "", "");
    if (t->enabled && t->cpu_given && o->n_threads)
        return usage_error("--cpu pins the single-thread probe; with --threads place the "
                           "threads with --bind (e.g. --bind 0,1)%s%s",
                           "", "");
    return 0;
}

static int apply_option(struct options *o, int c, const char *arg)
{
    static const char *const types[] = {"double", "float", NULL};
    static const char *const formats[] = {"text", "csv", "json", NULL};
    static const char *const domains[] = {"numa", "package", "llc", NULL};
    char why[256];
    uint64_t v;
    int index = 0;
    struct word_list pages = {page_values, o->pages, &o->n_pages, "default, 4k, thp, 2m, 1g"};
    struct word_list stores = {store_values, o->stores, &o->n_stores, "auto, normal, nt"};
    switch (c) {
    case OPT_COPY: o->kernel_mask |= 1u << KERNEL_COPY; return 0;
    case OPT_SCALE: o->kernel_mask |= 1u << KERNEL_SCALE; return 0;
    case OPT_ADD: o->kernel_mask |= 1u << KERNEL_ADD; return 0;
    case OPT_TRIAD: o->kernel_mask |= 1u << KERNEL_TRIAD; return 0;
    case OPT_DOT: o->kernel_mask |= 1u << KERNEL_DOT; return 0;
    case OPT_READ: o->kernel_mask |= 1u << KERNEL_READ; return 0;
    case OPT_WRITE: o->kernel_mask |= 1u << KERNEL_WRITE; return 0;
    case OPT_NSTREAM: o->kernel_mask |= 1u << KERNEL_NSTREAM; return 0;
    case OPT_ISA: return parse_isa(o, "--isa", arg);
    case OPT_PEAK: return parse_peak(o, arg);
    case OPT_ACCEPTANCE: o->acceptance = true; return 0;
    case OPT_MPI_PER_RANK: o->mpi_per_rank = true; return 0;
    case OPT_EXPECT:
        if (expectations_parse(arg, &o->expect, why, sizeof(why)) != 0)
            return usage_error("--expect: %s%s", why, "");
        o->checks = true;
        return 0;
    case OPT_TOLERANCE:
        return parse_positive(arg, "--tolerance", "a percentage, e.g. --tolerance 5", 0.0, 100.0,
                              &o->tolerance_pct);
    case OPT_TIME_LIMIT:
        return parse_positive(arg, "--time-limit", "seconds, e.g. --time-limit 30", 1.0, 86400.0,
                              &o->time_limit_s);
    case OPT_REFERENCE:
        if (!*arg) return usage_error("--reference: empty file name%s%s", "", "");
        o->reference = arg;
        o->checks = true;
        return 0;
    case OPT_SAVE_REFERENCE:
        if (!*arg) return usage_error("--save-reference: empty file name%s%s", "", "");
        o->save_reference = arg;
        return 0;
    case 't': return parse_list(o, "--threads", arg, add_threads, NULL);
    case 's': return parse_list(o, "--size", arg, add_size, NULL);
    case OPT_PAGES: return parse_list(o, "--pages", arg, add_word, &pages);
    case OPT_BIND:
        if (bind_text_is_list(arg)) /* "0,2,4-7" is one PU list, not three policies */
            return add_bind(arg, &(struct list_ctx){.opts = o, .option = "--bind"});
        return parse_list(o, "--bind", arg, add_bind, NULL);
    case OPT_PER_DOMAIN:
        if (parse_choice("--per-domain", arg, domains, &index) != 0) return 1;
        o->per_domain = (enum domain_kind)(index + 1);
        return 0;
    case OPT_STORES: return parse_list(o, "--stores", arg, add_word, &stores);
    case 'n':
        if (parse_uint(arg, 2, MAX_NTIMES, &v, why, sizeof(why)) != 0)
            return usage_error("--ntimes: %s (the first repetition is discarded, so at least 2)",
                               why, "");
        o->ntimes = (unsigned)v;
        return 0;
    case OPT_OFFSET:
        if (parse_uint(arg, 0, MAX_OFFSET, &v, why, sizeof(why)) != 0)
            return usage_error("--offset: %s%s", why, "");
        o->offset = (size_t)v;
        return 0;
    case OPT_TYPE:
        if (parse_choice("--type", arg, types, &index) != 0) return 1;
        o->type = index == 1 ? TYPE_FLOAT : TYPE_DOUBLE;
        return 0;
    case OPT_FORMAT:
        if (parse_choice("--format", arg, formats, &index) != 0) return 1;
        o->format = (enum output_format)index;
        return 0;
    case 'o':
        if (!*arg) return usage_error("--output: empty file name%s%s", "", "");
        o->output = arg;
        return 0;
    case 'q': o->quiet = true; return 0;
    case OPT_DRY_RUN: o->dry_run = true; return 0;
    case OPT_TLB: o->tlb.enabled = true; return 0;
    default:
        if (c >= OPT_FAULTS) return probe_apply_option(&o->probes, c, arg);
        return apply_tlb_option(&o->tlb, c, arg);
    }
}

/* Options that choose what is measured: the acceptance profile fixes every one of them. */
static bool changes_profile(int c)
{
    switch (c) {
    case 't':
    case 's':
    case OPT_BIND:
    case OPT_TYPE:
    case OPT_STORES:
    case OPT_OFFSET:
    case OPT_ISA:
    case OPT_TLB:
    case OPT_FAULTS:
    case OPT_SHOOTDOWN:
    case OPT_TIMER: return true;
    default: return (c >= OPT_COPY && c <= OPT_TRIAD) || (c >= OPT_DOT && c <= OPT_NSTREAM);
    }
}

static bool is_probe(int c)
{
    return c == OPT_TLB || c == OPT_FAULTS || c == OPT_SHOOTDOWN || c == OPT_TIMER;
}

/* "-t/--threads", "--stores" */
static void option_label(int c, char *buf, size_t len)
{
    for (const struct option *lo = long_options; lo->name; lo++)
        if (lo->val == c) {
            if (c < 256)
                snprintf(buf, len, "-%c/--%s", c, lo->name);
            else
                snprintf(buf, len, "--%s", lo->name);
            return;
        }
    snprintf(buf, len, "?");
}

/* A verdict must check what it names: the profile as documented, kernels that run. */
static int check_verdict_options(const struct options *o, int first_probe)
{
    char name[48], msg[400];
    if (o->acceptance && o->profile_option) {
        option_label(o->profile_option, name, sizeof(name));
        snprintf(msg, sizeof(msg),
                 "--acceptance is a fixed profile (all physical cores, scatter, STREAM-rule "
                 "arrays, the four kernels, double, auto stores, offset 0) and %s changes it; "
                 "drop %s, or check that run with --expect/--reference instead",
                 name, name);
        return usage_error("%s%s", msg, "");
    }
    if (o->acceptance && o->isa_forced_by)
        return usage_error(
            "--acceptance is a fixed profile and %s changes its kernels; %s", o->isa_forced_by,
            strcmp(o->isa_forced_by, "MEMBENCH_ISA") == 0 ? "unset MEMBENCH_ISA" : "drop --isa");
    if (o->kernel_mask == 0 && (o->checks || o->save_reference)) {
        bool expect = false;
        for (int k = 0; k < KERNEL_COUNT; k++)
            expect |= o->expect.rate_mbps[k] > 0.0;
        const char *verdict = expect         ? "--expect"
                              : o->reference ? "--reference"
                                             : "--save-reference";
        option_label(first_probe, name, sizeof(name));
        snprintf(msg, sizeof(msg),
                 "%s needs STREAM kernel rates but %s runs only its probe, no kernel; add the "
                 "kernels (e.g. --triad) or drop %s",
                 verdict, name, verdict);
        return usage_error("%s%s", msg, "");
    }
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (o->expect.rate_mbps[k] <= 0.0 || (o->kernel_mask & (1u << k))) continue;
        const char *word = kernel_table[k].flag + 2; /* "triad" */
        char runs[96] = "";
        for (int r = 0; r < KERNEL_COUNT; r++)
            if (o->kernel_mask & (1u << r))
                snprintf(runs + strlen(runs), sizeof(runs) - strlen(runs), "%s%s",
                         runs[0] ? ", " : "", kernel_table[r].flag + 2);
        if (o->acceptance)
            snprintf(msg, sizeof(msg),
                     "--expect %s: the acceptance profile measures %s, not %s; drop %s from "
                     "--expect",
                     word, runs, word, word);
        else
            snprintf(msg, sizeof(msg),
                     "--expect %s: this run measures %s, not %s; add %s (kernel options choose "
                     "what runs) or drop %s from --expect",
                     word, runs, word, kernel_table[k].flag, word);
        return usage_error("%s%s", msg, "");
    }
    return 0;
}

const char *domain_kind_name(enum domain_kind kind)
{
    static const char *const names[] = {"none", "numa", "package", "llc"};
    return names[kind];
}

void cli_free(struct options *o)
{
    for (size_t i = 0; i < o->n_binds; i++)
        bind_spec_free(&o->binds[i]);
    o->n_binds = 0;
}

/* What getopt_long refused: an unknown short option (optopt is its letter), or a long option
 * that is unknown, ambiguous or given a value it does not take (optopt is then the option's
 * code, often no character at all), so the long ones are judged from what was typed. */
static void bad_option(const char *typed, int optopt_code)
{
    if (strncmp(typed, "--", 2) != 0) {
        usage_error("unknown option '-%s'%s", (char[]){(char)optopt_code, 0}, "");
        return;
    }
    const char *name = typed + 2;
    size_t len = strcspn(name, "=");
    const struct option *exact = NULL, *prefix = NULL;
    int n_prefix = 0;
    char candidates[256] = "";
    for (const struct option *o = long_options; o->name; o++) {
        if (strncmp(o->name, name, len) != 0) continue;
        if (strlen(o->name) == len) exact = o;
        prefix = o;
        n_prefix++;
        size_t used = strlen(candidates);
        if (n_prefix <= 4)
            snprintf(candidates + used, sizeof(candidates) - used, "%s--%s",
                     n_prefix > 1 ? ", " : "", o->name);
    }
    const struct option *hit = exact ? exact : n_prefix == 1 ? prefix : NULL;
    char shown[80];
    snprintf(shown, sizeof(shown), "--%.*s", (int)(len < 60 ? len : 60), name);
    if (hit && name[len] == '=' && hit->has_arg == no_argument)
        usage_error("option '--%s' takes no value%s", hit->name, "");
    else if (!hit && n_prefix > 1)
        usage_error("option '%s' is ambiguous (%s...); write more of its name", shown, candidates);
    else
        usage_error("unknown option '%s'%s", shown, "");
}

enum cli_action cli_parse(int argc, char **argv, struct options *o)
{
    set_defaults(o);
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then also forgets a previous call's half-read "-Vs1,2" */
    int c, first_probe = 0;
    while ((c = getopt_long(argc, argv, ":t:s:n:o:qhV", long_options, NULL)) != -1) {
        const char *current = argv[optind - 1];
        switch (c) {
        case 'h': cli_print_help(stdout); return CLI_EXIT_OK;
        case 'V': printf("membench %s\n", MEMBENCH_VERSION); return CLI_EXIT_OK;
        case ':': usage_error("option '%s' needs a value%s", current, ""); return CLI_EXIT_USAGE;
        case '?': bad_option(current, optopt); return CLI_EXIT_USAGE;
        default:
            if (changes_profile(c) && !o->profile_option) o->profile_option = c;
            if (is_probe(c) && !first_probe) first_probe = c;
            if (apply_option(o, c, optarg) != 0) return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        usage_error("unexpected argument '%s'%s", argv[optind], "");
        return CLI_EXIT_USAGE;
    }
    if (probe_options_finish(&o->probes) != 0) return CLI_EXIT_USAGE;
    if (check_tlb_options(o) != 0) return CLI_EXIT_USAGE;
    /* probes alone replace the STREAM kernels; with a kernel flag both run */
    if (o->kernel_mask == 0 && o->probes.mask == 0 && !o->tlb.enabled)
        o->kernel_mask = KERNEL_MASK_STREAM;
    const char *env_isa = getenv("MEMBENCH_ISA");
    if (!o->isa_forced_by && env_isa && *env_isa && parse_isa(o, "MEMBENCH_ISA", env_isa) != 0)
        return CLI_EXIT_USAGE;
    if (check_verdict_options(o, first_probe) != 0) return CLI_EXIT_USAGE;
    return CLI_RUN;
}
