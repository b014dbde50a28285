/* The STREAM runs' command line: the kernel flags, and the options of the runs, among them
 * the threads, binding and pages lists that --tlb and --latency read too. */
#include "src/stream/stream_options.h"

#include <stdio.h>

#include "hugepages/backend.h"

#define MAX_NTIMES 1000000
#define MAX_OFFSET (1u << 24)

#define STRINGIFY(x) #x
#define STRING_OF(x) STRINGIFY(x)

#define AT(member) OPTION_AT(struct stream_options, member)
#define COUNT(member) OPTION_COUNT(struct stream_options, member)
#define SHARED_AT(member) OPTION_SHARED_AT(member)
#define SHARED_COUNT(member) OPTION_SHARED_COUNT(member)
#define TEXT(text) OPTION_TEXT(text)

static const char *const types[] = {"double", "float", NULL};
static const char *const domains[] = {"numa", "package", "llc", NULL};
static const char *const matrices[] = {"numa", "tiers", NULL};
static const char *const stores[] = {"auto", "normal", "nt", NULL};

/* The --pages values: the page backends, in their table's order. */
static const char *page_choice(size_t i)
{
    const struct mem_backend *b = mem_backend_at(i);
    return b ? b->name : NULL;
}

int stream_force_isa(struct stream_options *s, const char *source, const char *arg)
{
    enum isa isa;
    if (isa_parse(arg, &isa) != 0)
        return option_error("%s '%.100s': unknown instruction set; this %s build has %s", source,
                            arg, isa_build_arch(), isa_build_list());
    if (!isa_compiled(isa))
        return option_error("%s %s: not an ISA of this %s build (%s)", source, arg,
                            isa_build_arch(), isa_build_list());
    s->isa = isa;
    s->isa_forced_by = source;
    return 0;
}

static int set_isa(void *block, const char *arg)
{
    return stream_force_isa(block, "--isa", arg);
}

static void show_isa(const void *block, char *buf, size_t len)
{
    const struct stream_options *s = block;
    snprintf(buf, len, "%s", s->isa_forced_by ? isa_name(s->isa) : "");
}

static void init(void *block)
{
    struct stream_options *s = block;
    s->ntimes = 10;
    s->type = TYPE_DOUBLE;
}

static void request(const void *block, const struct measure_shared *sh, void *out)
{
    *(struct stream_request *)out = (struct stream_request){
        .opts = block,
        .shared = sh->options,
        .node = *sh,
    };
}

static bool asked(const void *block)
{
    return ((const struct stream_options *)block)->kernel_mask != 0;
}

/* clang-format off */
static const struct option_row asking[] = {
    TEXT("Kernels (default: all four, in STREAM order, unless only probes are asked for):\n"),
    {.kind = ARG_KERNELS, AT(kernel_mask), .bits = KERNEL_MASK_STREAM,
     .applies = APPLIES_OWN, .flags = OPTF_PROFILE,
     .col = 16},
    TEXT("Extra kernels (not in the default set):\n"),
    {.kind = ARG_KERNELS, AT(kernel_mask), .bits = KERNEL_MASK_ALL & ~KERNEL_MASK_STREAM,
     .applies = APPLIES_OWN, .flags = OPTF_PROFILE},
};

static const struct option_row common[] = {
    {.name = "threads", .short_name = 't', .kind = ARG_LIST, .list = &list_numbers, .arg = "N[,N...]",
     .help = "OpenMP threads (default $OMP_NUM_THREADS, else one per\n"
             "physical core; at most " STRING_OF(MAX_THREADS) ")",
     SHARED_AT(threads), SHARED_COUNT(n_threads), .min = 1, .max = MAX_THREADS,
     .applies = APPLIES_OWN, .flags = OPTF_PROFILE | OPTF_SHARED,
     .col = 26},
    {.name = "size", .short_name = 's', .kind = ARG_LIST, .list = &list_sizes, .arg = "SIZE[,...]",
     .help = "per-array size: 4xLLC (multiple of the total last-level\n"
             "cache, fractions allowed), 1.5GiB, 512MiB, 512MB (decimal),\n"
             "or a plain element count. Default: the STREAM rule, each\n"
             "array >= 4x the total LLC and >= 1M elements",
     AT(sizes), COUNT(n_sizes), .applies = APPLIES_OWN, .flags = OPTF_PROFILE},
    {.name = "ntimes", .short_name = 'n', .kind = ARG_UINT, .arg = "N",
     .help = "repetitions; the first is discarded, the best of the rest\n"
             "is reported (default 10, at least 2)",
     AT(ntimes), .min = 2, .max = MAX_NTIMES,
     .hint = "the first repetition is discarded, so at least 2", .applies = APPLIES_OWN},
    {.name = "type", .kind = ARG_CHOICE,
     .help = "element type (default double)",
     AT(type), .choices = types, .applies = APPLIES_OWN, .flags = OPTF_PROFILE},
    {.name = "offset", .kind = ARG_UINT, .arg = "N",
     .help = "shift array k (a=0, b=1, c=2) by k*N elements, like\n"
             "STREAM's OFFSET (default 0)",
     AT(offset), .min = 0, .max = MAX_OFFSET, .applies = APPLIES_OWN,
     .flags = OPTF_PROFILE},
    {.name = "bind", .kind = ARG_LIST, .list = &list_binds, .arg = "POLICY[,...]",
     .help = "thread placement: scatter (spread over packages, NUMA\n"
             "nodes, LLCs, cores), compact (cores in order, one thread\n"
             "per core before SMT siblings), none (the OS decides), or\n"
             "one PU list of OS indices like 0,2,4-7 (repeat --bind to\n"
             "sweep lists). Default: scatter below one thread per\n"
             "core, compact from there; OpenMP's binding when\n"
             "OMP_PROC_BIND/OMP_PLACES/GOMP_CPU_AFFINITY are set",
     SHARED_AT(binds), SHARED_COUNT(n_binds),
     .applies = APPLIES_OWN, .flags = OPTF_PROFILE | OPTF_SHARED},
    {.name = "per-domain", .kind = ARG_CHOICE,
     .help = "also report each domain's bandwidth, all measured at once",
     AT(per_domain), .min = DOMAIN_NUMA, .choices = domains, .applies = APPLIES_OWN},
    {.name = "matrix", .kind = ARG_CHOICE,
     .help = "numa: a run for every pair of NUMA nodes, threads on\n"
             "the cores of one (rows, one per core, bound), arrays\n"
             "bound to the other (columns); tiers: a run per memory\n"
             "tier (DRAM, HBM, CXL...) from the cores nearest it;\n"
             "kernels chosen by the kernel options, Triad without one",
     SHARED_AT(matrix), .min = MATRIX_NUMA, .choices = matrices,
     .applies = APPLIES_OWN, .flags = OPTF_SHARED},
    {.name = "pages", .kind = ARG_LIST, .list = &list_words, .arg = "4k|thp|2m|1g|default[,...]",
     .help = "page backing of the arrays, verified in /proc/self/smaps:\n"
             "4k (no THP), thp (transparent huge pages), 2m/1g (hugetlb\n"
             "pages from the reserved pool), default (as the system\n"
             "gives). Without --pages, HUGETLB_MORECORE (hugectl --heap)\n"
             "chooses. Several values: an A/B against the first\n"
             "(e.g. --pages 4k,2m)",
     SHARED_AT(pages), SHARED_COUNT(n_pages), .choice_at = page_choice,
     .applies = APPLIES_OWN, .flags = OPTF_SHARED},
    {.name = "stores", .kind = ARG_LIST, .list = &list_words,
     .help = "store instructions: nt = non-temporal (streaming) stores\n"
             "that skip the write-allocate read; auto (default) = time\n"
             "whole repetitions with all normal, all nt and (when the\n"
             "kernels disagree) mixed stores on the discarded first one,\n"
             "run the fastest in total. Runs with nt are labelled tuned,\n"
             "as STREAM's rules ask",
     AT(stores), COUNT(n_stores), .choices = stores, .applies = APPLIES_OWN,
     .flags = OPTF_PROFILE},
    {.name = "isa", .kind = ARG_CUSTOM, .arg = "NAME",
     .help = "force a kernel variant: avx512|avx2|sse2 (x86-64),\n"
             "sve|neon (aarch64), scalar (plain C, every build);\n"
             "default: the widest the CPU has; also MEMBENCH_ISA",
     .set = set_isa, .show = show_isa, .applies = APPLIES_OWN, .flags = OPTF_PROFILE},
};
/* clang-format on */

static const struct option_ask asks[] = {{"the kernels", "a kernel (e.g. --triad)", asked}};

const struct measure_options stream_option_rows = {
    .block_size = sizeof(struct stream_options),
    .init = init,
    .request = request,
    .rank = 0,
    .asking = asking,
    .n_asking = OPTION_N(asking),
    .common = common,
    .n_common = OPTION_N(common),
    .asks = asks,
    .n_asks = OPTION_N(asks),
};
