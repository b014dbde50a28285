/* The whole command line: the input, one argument per line, after "membench", through
 * cli_parse and cli_free (--help and --version print to a /dev/null stdout). */
#include "src/cli/cli.h"
#include "src/probes/probes_options.h"
#include "src/stream/stream_options.h"
#include "tests/fuzz/fuzz.h"

#define MAX_ARGS 64

struct args {
    char *argv[MAX_ARGS + 2];
    int argc;
};

static void take_arg(const uint8_t *piece, size_t len, int index, void *ctx)
{
    struct args *a = ctx;
    (void)index;
    a->argv[a->argc++] = fuzz_cstr(piece, len);
}

struct call {
    struct args *args;
    struct options opts;
    enum cli_action action;
};

static void parse(void *ctx)
{
    struct call *c = ctx;
    c->action = cli_parse(c->args->argc, c->args->argv, &c->opts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct args args;
    static struct call call;
    memset(&args, 0, sizeof(args));
    args.argv[args.argc++] = fuzz_cstr((const uint8_t *)"membench", 8);
    if (size) fuzz_split(data, size, '\n', MAX_ARGS, take_arg, &args);
    char *owned[MAX_ARGS + 1]; /* getopt permutes argv */
    memcpy(owned, args.argv, sizeof(owned));

    call.args = &args;
    fuzz_quietly(parse, &call);
    struct options *o = &call.opts;
    const struct shared_options *sh = &o->shared;
    const struct stream_options *s = options_block_of(o, &stream_option_rows);
    const struct probe_options *p = options_block_of(o, &probes_option_rows);
    FUZZ_CHECK(call.action == CLI_RUN || call.action == CLI_EXIT_OK ||
                   call.action == CLI_EXIT_USAGE,
               "cli_parse returned %d", (int)call.action);
    FUZZ_CHECK(sh->n_threads <= LIST_MAX && s->n_sizes <= LIST_MAX && sh->n_pages <= LIST_MAX &&
                   sh->n_binds <= LIST_MAX && s->n_stores <= LIST_MAX,
               "a list overflowed");
    if (call.action == CLI_RUN) {
        FUZZ_CHECK(cli_measures_something(o), "nothing to run");
        FUZZ_CHECK(s->ntimes >= 2, "--ntimes %u", s->ntimes);
        for (size_t i = 0; i < sh->n_threads; i++)
            FUZZ_CHECK(sh->threads[i] >= 1, "0 threads");
        for (size_t i = 0; i < sh->n_binds; i++)
            FUZZ_CHECK(sh->binds[i].kind != BIND_LIST || sh->binds[i].n_pus >= 1, "empty PU list");
        FUZZ_CHECK(o->tolerance_pct >= 0.0 && o->tolerance_pct <= 100.0, "tolerance %g",
                   o->tolerance_pct);
    }
    cli_free(o);
    for (int i = 0; i < args.argc; i++)
        free(owned[i]);

    /* Nothing of this command line may outlive it: a bare "membench" parsed next is the
     * default run (getopt keeps state between calls). */
    char name[] = "membench";
    struct args bare = {{name, NULL}, 1};
    call.args = &bare;
    fuzz_quietly(parse, &call);
    FUZZ_CHECK(call.action == CLI_RUN && !sh->n_threads && !s->n_sizes && !sh->n_binds &&
                   !sh->n_pages && !s->n_stores && !o->quiet && !o->dry_run && !p->mask,
               "a bare command line after this one is not the default run");
    cli_free(o);
    return 0;
}
