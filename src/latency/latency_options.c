/* --latency's command line: the flag and the size of the chase. */
#include "src/latency/latency_options.h"

#include <stdio.h>

#define AT(member) OPTION_AT(struct latency_options, member)

static int set_latency_size(void *block, const char *arg)
{
    struct latency_options *l = block;
    char why[256];
    if (parse_size(arg, &l->size, why, sizeof(why)) != 0)
        return option_error("--latency-size: %s", why);
    if (l->size.kind == SIZE_ELEMENTS)
        return option_error("--latency-size %s: give bytes such as 256MiB, or a multiple of the "
                            "LLC such as 4xLLC",
                            arg);
    if (l->size.kind == SIZE_BYTES && l->size.bytes < LATENCY_MIN_BYTES)
        return option_error("--latency-size %s: at least 4MiB (two 2 MiB pages to hop between)",
                            arg);
    l->size_given = true;
    return 0;
}

static void show_latency_size(const void *block, char *buf, size_t len)
{
    const struct latency_options *l = block;
    snprintf(buf, len, "%s", l->size_given ? l->size.text : "");
}

static void request(const void *block, const struct measure_shared *sh, void *out)
{
    const struct latency_options *l = block;
    *(struct latency_request *)out = (struct latency_request){
        .enabled = l->enabled,
        .dry_run = sh->dry_run,
        .size_given = l->size_given,
        .size = l->size,
        .shared = sh->options,
        .cpu = -1,
        .mem_node = -1,
        .loaded = true,
        .matrix = sh->options->matrix == MATRIX_NUMA,
    };
}

static bool asked(const void *block)
{
    return ((const struct latency_options *)block)->enabled;
}

/* clang-format off */
static const struct option_row asking[] = {
    {.name = "latency", .kind = ARG_SET,
     .help = "idle memory latency: a random pointer chase over 4x the LLC,\n"
             "huge pages when there are, one bound core; then the loaded\n"
             "curve (bandwidth vs latency while the other cores stream)",
     AT(enabled), .applies = APPLIES_OWN, .flags = OPTF_PROFILE, .col = 16},
    {.name = "latency-size", .kind = ARG_CUSTOM, .arg = "SIZE",
     .help = "chase buffer and each load thread's arrays\n"
             "(default 4xLLC of the chasing core; at least 4MiB)",
     .set = set_latency_size, .show = show_latency_size, .applies = APPLIES_OWN, .col = 24},
};
/* clang-format on */

static const struct option_ask asks[] = {{"--latency", NULL, asked}};
static const char *const uses[] = {"bind", "matrix", "pages", NULL};

const struct measure_options latency_option_rows = {
    .block_size = sizeof(struct latency_options),
    .request = request,
    .rank = 2,
    .asking = asking,
    .n_asking = OPTION_N(asking),
    .asks = asks,
    .n_asks = OPTION_N(asks),
    .uses = uses,
};
