/* --tlb's command line: the flag and the probe's own options. */
#include "src/tlb/tlb_options.h"

#include <stdio.h>
#include <string.h>

#include "src/base/parse.h"
#include "src/tlb/run_tlb.h"

#define AT(member) OPTION_AT(struct tlb_options, member)
#define TEXT(text) OPTION_TEXT(text)

static const char *const orders[] = {"random", "seq", NULL};
static const char *const modes[] = {"chase", "inc", NULL};

static int set_cpu(void *block, const char *arg)
{
    struct tlb_options *t = block;
    char why[256];
    uint64_t v;
    if (strcmp(arg, "-1") == 0) {
        t->cpu = -1;
    } else if (parse_uint(arg, 0, 65535, &v, why, sizeof(why)) != 0) {
        return option_error("--cpu: %s; give a PU number, or -1 for unpinned", why);
    } else {
        t->cpu = (int)v;
    }
    t->cpu_given = true;
    return 0;
}

/* --tlb-max-pages: a number, and that it was given (the memory share is then not imposed). */
static int set_max_pages(void *block, const char *arg)
{
    struct tlb_options *t = block;
    char why[256];
    uint64_t v;
    if (parse_uint(arg, 4, TLB_MAX_PAGES_LIMIT, &v, why, sizeof(why)) != 0)
        return option_error("--tlb-max-pages: %s (the sweep's last point)", why);
    t->max_pages = v;
    t->max_pages_given = true;
    return 0;
}

static void show_max_pages(const void *block, char *buf, size_t len)
{
    snprintf(buf, len, "%llu", (unsigned long long)((const struct tlb_options *)block)->max_pages);
}

static void show_cpu(const void *block, char *buf, size_t len)
{
    const struct tlb_options *t = block;
    buf[0] = '\0';
    if (t->cpu_given) snprintf(buf, len, "%d", t->cpu);
}

static void init(void *block)
{
    *(struct tlb_options *)block = (struct tlb_options){
        .cpu = -1,
        .order = TLB_ORDER_RANDOM,
        .stagger = true,
        .mode = TLB_MODE_CHASE,
        .repeat = TLB_DEFAULT_REPEAT,
        .max_pages = TLB_DEFAULT_MAX_PAGES,
    };
}

static void request(const void *block, const struct measure_shared *sh, void *out)
{
    *(struct tlb_request *)out = (struct tlb_request){
        .tlb = block,
        .shared = sh->options,
        .dry_run = sh->dry_run,
    };
}

static bool asked(const void *block)
{
    return ((const struct tlb_options *)block)->enabled;
}

/* clang-format off */
static const struct option_row asking[] = {
    {.name = "tlb", .kind = ARG_SET,
     .help = "TLB sizes and miss costs: one access per page over 1..32768 pages,\n"
             "against a control with the same cache lines in 64x fewer pages;\n"
             "names each data-TLB level, 4 KB and 2 MB pages, page-walk throughput;\n"
             "maps at most 10% of MemAvailable (2.3 GiB of 23 GiB) and takes about\n"
             "40-50 s on a quiet machine, minutes on a busy one: its header says",
     AT(enabled), .applies = APPLIES_OWN, .flags = OPTF_PROFILE},
    {.name = "cpu", .kind = ARG_CUSTOM, .arg = "N",
     .help = "pin the probe to PU N (default the first planned PU; -1 none)",
     .set = set_cpu, .show = show_cpu, .applies = APPLIES_OWN, .col = 24},
    {.name = "order", .kind = ARG_CHOICE,
     .help = "page visiting order (default random)",
     AT(order), .choices = orders, .applies = APPLIES_OWN},
    {.name = "no-stagger", .kind = ARG_CLEAR,
     .help = "touch line 0 of every page (default: page p uses line p mod 64)",
     AT(stagger), .applies = APPLIES_OWN},
    {.name = "tlb-mode", .kind = ARG_CHOICE,
     .help = "pointer chase = latency (default), inc = a[i] += 1 loop",
     AT(mode), .choices = modes, .applies = APPLIES_OWN},
    {.name = "tlb-pages", .kind = ARG_UINT, .arg = "N",
     .help = "one point: N pages (like the OSTEP tlb.c's ./tlb N T)",
     AT(pages), .min = 1, .max = TLB_MAX_PAGES_LIMIT,
     .hint = "the number of pages to touch", .applies = APPLIES_OWN},
    {.name = "tlb-trials", .kind = ARG_UINT, .arg = "T",
     .help = "... traversals of those N pages per sample (default: timed)",
     AT(trials), .min = 1, .max = 1000000000000ull,
     .hint = "traversals of the pages per sample", .applies = APPLIES_OWN},
    {.name = "tlb-max-pages", .kind = ARG_CUSTOM, .arg = "N",
     .help = "last point of the sweep (default 32768; the 2 MB sweep\n"
             "goes to N/8 pages, past the 10% share when given)",
     .set = set_max_pages, .show = show_max_pages, .applies = APPLIES_OWN},
    {.name = "repeat", .kind = ARG_UINT, .arg = "K",
     .help = "samples per point, min and median reported (default 5)",
     AT(repeat), .min = 1, .max = 1000, .hint = "samples per point", .applies = APPLIES_OWN},
    TEXT("  with -t N: the probe runs on N placed threads at once, each on its own pages\n"),
};
/* clang-format on */

static const struct option_ask asks[] = {{"--tlb", NULL, asked}};
static const char *const uses[] = {"threads", "bind", "pages", NULL};

const struct measure_options tlb_option_rows = {
    .block_size = sizeof(struct tlb_options),
    .init = init,
    .request = request,
    .rank = 1,
    .asking = asking,
    .n_asking = OPTION_N(asking),
    .asks = asks,
    .n_asks = OPTION_N(asks),
    .uses = uses,
};
