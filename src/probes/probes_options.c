/* The probes' command line: --faults, --shootdown, --timer and their options, checked here as
 * text, nothing about the machine. */
#include "src/probes/probes_options.h"

#include <stdio.h>
#include <string.h>

#include "src/base/parse.h"

#define MAX_FAULTS_BYTES (1ull << 40)
#define MAX_REMOTE 1023u
#define MAX_PAGES_PER_UNMAP 65536u

#define AT(member) OPTION_AT(struct probe_options, member)
#define COUNT(member) OPTION_COUNT(struct probe_options, member)
#define TEXT(text) OPTION_TEXT(text)

enum { ASK_FAULTS = 1u << 0, ASK_SHOOTDOWN = 1u << 1, ASK_TIMER = 1u << 2 };

static int add_backing(const char *item, void *vctx)
{
    unsigned *mask = vctx;
    if (strcmp(item, "file") == 0) {
        *mask |= 1u << FAULT_FILE | 1u << FAULT_FILE_READAHEAD;
        return 0;
    }
    for (int b = 0; b < FAULT_BACKING_COUNT; b++)
        if (strcmp(item, fault_backing_name((enum fault_backing)b)) == 0) {
            *mask |= 1u << b;
            return 0;
        }
    return option_error("--faults-backing %s: unknown value (accepted: %s)", item,
                        "4k, thp, 2m, file, file-readahead");
}

static int set_faults_backing(void *block, const char *arg)
{
    struct probe_options *p = block;
    return option_list("--faults-backing", arg, add_backing, &p->faults_backings);
}

static void show_faults_backing(const void *block, char *buf, size_t len)
{
    const struct probe_options *p = block;
    buf[0] = '\0';
    for (int b = 0; b < FAULT_BACKING_COUNT; b++)
        if (p->faults_backings & (1u << b))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
                     fault_backing_name((enum fault_backing)b));
}

static int set_faults_size(void *block, const char *arg)
{
    struct size_spec s;
    char why[256];
    if (parse_size(arg, &s, why, sizeof(why)) != 0) return option_error("--faults-size: %s", why);
    uint64_t bytes;
    if (s.kind == SIZE_ELEMENTS) /* a plain number is MiB */
        bytes = s.elements > MAX_FAULTS_BYTES >> 20 ? MAX_FAULTS_BYTES + 1 : s.elements << 20;
    else if (s.kind == SIZE_BYTES)
        bytes = s.bytes;
    else
        return option_error("--faults-size %s: give a size such as 64MiB (a multiple of the LLC "
                            "means nothing here)",
                            arg);
    if (bytes > MAX_FAULTS_BYTES)
        return option_error("--faults-size %s: too large (at most 1 TiB)", arg);
    if (bytes == 0 || bytes % PAGE_2M != 0)
        return option_error("--faults-size %s: must be a positive multiple of 2 MiB (the huge "
                            "page size), e.g. 64MiB",
                            arg);
    ((struct probe_options *)block)->faults_bytes = bytes;
    return 0;
}

static void show_faults_size(const void *block, char *buf, size_t len)
{
    const struct probe_options *p = block;
    buf[0] = '\0';
    if (p->faults_bytes) snprintf(buf, len, "%lluMiB", (unsigned long long)(p->faults_bytes >> 20));
}

static void request(const void *block, const struct measure_shared *sh, void *out)
{
    (void)sh;
    *(struct probe_options *)out = *(const struct probe_options *)block;
}

static bool asked_faults(const void *block)
{
    return ((const struct probe_options *)block)->mask & PROBE_BIT(PROBE_FAULTS);
}

static bool asked_shootdown(const void *block)
{
    return ((const struct probe_options *)block)->mask & PROBE_BIT(PROBE_SHOOTDOWN);
}

static bool asked_timer(const void *block)
{
    return ((const struct probe_options *)block)->mask & PROBE_BIT(PROBE_TIMER);
}

/* clang-format off */
static const struct option_row asking[] = {
    {.name = "faults", .kind = ARG_BITS,
     .help = "page-fault cost: touch one byte per 4 KB page of a fresh region\n"
             "under 4k, thp and 2m backings (minor faults), then of an evicted\n"
             "file with readahead off and on (major faults)",
     AT(mask), .bits = PROBE_BIT(PROBE_FAULTS), .applies = ASK_FAULTS,
     .flags = OPTF_PROFILE, .col = 16},
    {.name = "faults-size", .kind = ARG_CUSTOM, .arg = "SIZE",
     .help = "region and file size, a multiple of 2 MiB; a plain\n"
             "number is MiB (default 64)",
     .set = set_faults_size, .show = show_faults_size, .applies = ASK_FAULTS, .col = 27},
    {.name = "faults-dir", .kind = ARG_NAME, .arg = "DIR",
     .help = "directory for the file, on a disk-backed filesystem\n"
             "(default $TMPDIR, else /var/tmp)",
     AT(faults_dir), .hint = "directory name", .applies = ASK_FAULTS},
    {.name = "faults-backing", .kind = ARG_CUSTOM, .arg = "LIST",
     .help = "4k,thp,2m,file,file-readahead (default all; a listed\n"
             "backing that cannot run here is an error, exit 3)",
     .set = set_faults_backing, .show = show_faults_backing, .applies = ASK_FAULTS},
    {.name = "shootdown", .kind = ARG_BITS,
     .help = "TLB-shootdown cost: one pinned thread unmaps touched pages while\n"
             "0, 1, 2, ... sibling threads spin on other CPUs",
     AT(mask), .bits = PROBE_BIT(PROBE_SHOOTDOWN), .applies = ASK_SHOOTDOWN,
     .flags = OPTF_PROFILE, .col = 16},
    {.name = "shootdown-remote", .kind = ARG_LIST, .list = &list_numbers, .arg = "N[,N...]",
     .help = "sibling thread counts (default 0,1,2,4,... up to\n"
             "the CPUs there are; 0 is always measured)",
     AT(remote), COUNT(n_remote), .min = 0, .max = MAX_REMOTE,
     .applies = ASK_SHOOTDOWN, .flags = OPTF_ONCE, .col = 27, .first_col = 31},
    {.name = "shootdown-pages", .kind = ARG_LIST, .list = &list_numbers, .arg = "N[,N...]",
     .help = "4 KB pages per unmap (default\n"
             "1,2,8,32,33,34,64,512)",
     AT(pages), COUNT(n_pages), .min = 1, .max = MAX_PAGES_PER_UNMAP,
     .applies = ASK_SHOOTDOWN, .flags = OPTF_ONCE, .first_col = 31},
    {.name = "timer", .kind = ARG_BITS,
     .help = "resolution, granularity and cost of clock_gettime, gettimeofday,\n"
             "rdtsc/rdtscp, TSC frequency, and repetitions for 1% precision",
     AT(mask), .bits = PROBE_BIT(PROBE_TIMER), .applies = ASK_TIMER,
     .flags = OPTF_PROFILE,
     .col = 16},
    TEXT("A backing or sibling count that was listed but cannot run here exits 3; by default\n"
         "it is reported as skipped, with the reason.\n"),
};
/* clang-format on */

static const struct option_ask asks[] = {{"--faults", NULL, asked_faults},
                                         {"--shootdown", NULL, asked_shootdown},
                                         {"--timer", NULL, asked_timer}};

const struct measure_options probes_option_rows = {
    .block_size = sizeof(struct probe_options),
    .request = request,
    .rank = 3,
    .asking = asking,
    .n_asking = OPTION_N(asking),
    .asks = asks,
    .n_asks = OPTION_N(asks),
};
