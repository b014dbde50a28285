#include "src/cli/cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"
#include "src/cli/cli_checks.h"
#include "src/cli/option_table.h"
#include "src/latency/latency_options.h"
#include "src/stream/stream_options.h"
#include "version.h"

#define MAX_ENTRIES 96

/* One getopt_long option: a row of option_table, or one kernel of an ARG_KERNELS row. */
struct entry {
    const struct option_row *row;
    int kernel; /* -1 unless the row is ARG_KERNELS */
};

/* getopt_long's tables, generated from option_table, and what the command line gave. */
struct parser {
    struct entry entries[MAX_ENTRIES];
    struct option longopts[MAX_ENTRIES + 1]; /* val: 256 + the entry's index */
    char shorts[2 * MAX_ENTRIES + 2];
    size_t n;
    int given[MAX_ENTRIES]; /* 1 for the first option given, 2 for the next...; 0 not given */
    int seq;
    int first_profile; /* an entry's index + 1; 0 none */
};

static bool takes_value(const struct option_row *r)
{
    return r->kind > ARG_VERSION;
}

static const char *entry_name(const struct entry *e)
{
    return e->kernel >= 0 ? kernel_table[e->kernel].flag + 2 : e->row->name;
}

static void build_parser(struct parser *p)
{
    option_table_build();
    char *s = p->shorts;
    *s++ = ':'; /* a missing value returns ':' */
    for (size_t i = 0; i < option_table_rows; i++) {
        const struct option_row *r = &option_table[i];
        int n = r->kind == ARG_KERNELS ? KERNEL_COUNT : r->kind == ARG_TEXT ? 0 : 1;
        for (int k = 0; k < n && p->n < MAX_ENTRIES; k++) {
            if (r->kind == ARG_KERNELS && !(r->bits & (1u << k))) continue;
            struct entry *e = &p->entries[p->n];
            *e = (struct entry){r, r->kind == ARG_KERNELS ? k : -1};
            p->longopts[p->n] =
                (struct option){entry_name(e), takes_value(r), NULL, 256 + (int)p->n};
            if (r->short_name) {
                *s++ = r->short_name;
                if (takes_value(r)) *s++ = ':';
            }
            p->n++;
        }
    }
    *s = 0;
}

/* The entry of what getopt_long returned: 256 + its index, or its short option. */
static size_t entry_of(const struct parser *p, int c)
{
    if (c >= 256) return (size_t)(c - 256);
    size_t i = 0;
    while (i + 1 < p->n && p->entries[i].row->short_name != c)
        i++;
    return i;
}

/* "-t/--threads", "--stores"; which is an entry's index + 1 */
static void entry_label(const struct parser *p, int which, char *buf, size_t len)
{
    if (which <= 0) {
        snprintf(buf, len, "?");
        return;
    }
    const struct entry *e = &p->entries[which - 1];
    if (e->row->short_name)
        snprintf(buf, len, "-%c/--%s", e->row->short_name, entry_name(e));
    else
        snprintf(buf, len, "--%s", entry_name(e));
}

static void print_row(FILE *out, const struct option_row *r, int col)
{
    char arg[128] = "";
    if (r->arg)
        snprintf(arg, sizeof(arg), " %s", r->arg);
    else if (r->choices || r->choice_at) {
        arg[0] = ' ';
        option_join_choices(r, "|", arg + 1, sizeof(arg) - 1);
    }
    int used;
    if (r->short_name)
        used = fprintf(out, "  -%c, --%s%s", r->short_name, r->name, arg);
    else
        used = fprintf(out, "  --%s%s", r->name, arg);
    int first = r->first_col ? r->first_col : col;
    if (used >= first) { /* too wide: the text starts on the next line */
        fputc('\n', out);
        used = 0;
    }
    fprintf(out, "%*s", first - used, "");
    for (const char *line = r->help;;) {
        size_t len = strcspn(line, "\n");
        fprintf(out, "%.*s\n", (int)len, line);
        if (!line[len]) break;
        line += len + 1;
        fprintf(out, "%*s", col, "");
    }
}

void cli_print_help(FILE *out)
{
    option_table_build();
    int col = 0;
    for (size_t i = 0; i < option_table_rows; i++) {
        const struct option_row *r = &option_table[i];
        if (r->col) col = r->col;
        if (r->kind == ARG_TEXT) {
            fputs(r->help, out);
        } else if (r->kind == ARG_KERNELS) {
            for (int k = 0; k < KERNEL_COUNT; k++)
                if (r->bits & (1u << k))
                    fprintf(out, "  %-*s%-15s%s\n", col - 2, kernel_table[k].flag,
                            kernel_table[k].formula, kernel_table[k].help);
        } else {
            print_row(out, r, col);
        }
    }
}

static int apply(struct options *o, const struct entry *e, const char *arg)
{
    const struct option_row *r = e->row;
    void *at = (char *)o + r->field;
    char option[48], why[256];
    snprintf(option, sizeof(option), "--%s", r->name);
    uint64_t v;
    switch (r->kind) {
    case ARG_KERNELS: *(unsigned *)at |= 1u << e->kernel; return 0;
    case ARG_SET: *(bool *)at = true; return 0;
    case ARG_CLEAR: *(bool *)at = false; return 0;
    case ARG_BITS: *(unsigned *)at |= r->bits; return 0;
    case ARG_UINT:
        if (parse_uint(arg, r->min, r->max, &v, why, sizeof(why)) != 0)
            return r->hint ? option_error("%s: %s (%s)", option, why, r->hint)
                           : option_error("%s: %s", option, why);
        if (r->field_size == sizeof(uint64_t))
            *(uint64_t *)at = v;
        else
            *(unsigned *)at = (unsigned)v;
        return 0;
    case ARG_REAL: {
        char *end;
        double d = strtod(arg, &end);
        if (end == arg || *end || !(d >= (double)r->min) || !(d <= (double)r->max))
            return option_error("%s '%.60s': give %s", option, arg, r->hint);
        *(double *)at = d;
        return 0;
    }
    case ARG_CHOICE:
        for (size_t i = 0; option_choice(r, i); i++)
            if (strcmp(arg, option_choice(r, i)) == 0) {
                *(unsigned *)at = (unsigned)(i + r->min);
                return 0;
            }
        char accepted[128];
        option_join_choices(r, "|", accepted, sizeof(accepted));
        return option_error("%s '%.200s': unknown value; use %s", option, arg, accepted);
    case ARG_LIST: return option_list_add(o, r, option, arg);
    case ARG_NAME:
        if (!*arg) return option_error("%s: empty %s", option, r->hint);
        *(const char **)at = arg;
        return 0;
    case ARG_CUSTOM: return r->set((char *)o + r->block, arg);
    default: return 0;
    }
}

static void set_defaults(struct options *o)
{
    memset(o, 0, sizeof(*o));
    options_init_blocks(o);
    o->format = FORMAT_TEXT;
    o->tolerance_pct = 5.0;
    o->reference_runs = 1;
    for (int k = 0; k < KERNEL_COUNT; k++)
        o->expect.rate_mbps[k] = 0.0;
    o->expect.hugepages_2m = -1;
}

/* The first option given (by position) that applies to none of the run's measurements. */
static int check_applies(const struct parser *p, const struct options *o)
{
    unsigned run = option_measures(o);
    int first = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->given[i] && !(p->entries[i].row->applies & run) &&
            (!first || p->given[i] < p->given[first - 1]))
            first = (int)i + 1;
    if (!first) return 0;
    unsigned applies = p->entries[first - 1].row->applies;
    char option[48], to[120], measured[120], add[130];
    entry_label(p, first, option, sizeof(option));
    option_measures_text(applies, to, sizeof(to));
    option_measures_text(run, measured, sizeof(measured));
    option_measures_add(applies, add, sizeof(add));
    return option_error("%s applies to %s, not to %s (what this run measures); add %s, or drop "
                        "%s",
                        option, to, measured, add, option);
}

/* --acceptance runs its profile as documented. */
static int check_acceptance_profile(const struct options *o, const struct parser *p)
{
    const struct stream_options *s = options_block_of(o, &stream_option_rows);
    char name[48], msg[400];
    if (o->acceptance && p->first_profile) {
        entry_label(p, p->first_profile, name, sizeof(name));
        snprintf(msg, sizeof(msg),
                 "--acceptance is a fixed profile (all physical cores, scatter, STREAM-rule "
                 "arrays, the four kernels, double, auto stores, offset 0) and %s changes it; "
                 "drop %s, or check that run with --expect/--reference instead",
                 name, name);
        return option_error("%s", msg);
    }
    if (o->acceptance && s->isa_forced_by)
        return option_error(
            "--acceptance is a fixed profile and %s changes its kernels; %s", s->isa_forced_by,
            strcmp(s->isa_forced_by, "MEMBENCH_ISA") == 0 ? "unset MEMBENCH_ISA" : "drop --isa");
    return 0;
}

void cli_measure_shared(const struct options *o, struct measure_shared *sh)
{
    const struct reference_profile *ref = &o->expect.profile;
    *sh = (struct measure_shared){
        .options = &o->shared,
        .dry_run = o->dry_run,
        .acceptance = o->acceptance,
        .checks = o->checks,
        .save_reference = o->save_reference,
        .reference_runs = o->reference_runs,
        .reference_interval_s = o->reference_interval_s,
        .reference_stores = ref->present && ref->stores[0] ? ref->stores : NULL,
        .reference_kernel_stores = ref->has_kernel_stores ? ref->kernel_stores : NULL,
    };
}

void cli_free(struct options *o)
{
    for (size_t i = 0; i < o->shared.n_binds; i++)
        bind_spec_free(&o->shared.binds[i]);
    o->shared.n_binds = 0;
}

/* What getopt_long refused: an unknown short option (optopt is its letter), or a long option
 * that is unknown, ambiguous or given a value it does not take (optopt is then the option's
 * code, often no character at all), so the long ones are judged from what was typed. */
static void bad_option(const struct parser *p, const char *typed, int optopt_code)
{
    if (strncmp(typed, "--", 2) != 0) {
        option_error("unknown option '-%c'", (char)optopt_code);
        return;
    }
    const char *name = typed + 2;
    size_t len = strcspn(name, "=");
    const struct option *exact = NULL, *prefix = NULL;
    int n_prefix = 0;
    char candidates[256] = "";
    for (const struct option *o = p->longopts; o->name; o++) {
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
        option_error("option '--%s' takes no value", hit->name);
    else if (!hit && n_prefix > 1)
        option_error("option '%s' is ambiguous (%s...); write more of its name", shown, candidates);
    else
        option_error("unknown option '%s'", shown);
}

bool cli_measures_something(const struct options *o)
{
    return option_measures(o) != 0;
}

enum cli_action cli_parse(int argc, char **argv, struct options *o)
{
    struct parser p = {0};
    build_parser(&p);
    set_defaults(o);
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then also forgets a previous call's half-read "-Vs1,2" */
    int c;
    while ((c = getopt_long(argc, argv, p.shorts, p.longopts, NULL)) != -1) {
        const char *current = argv[optind - 1];
        if (c == ':') {
            option_error("option '%s' needs a value", current);
            return CLI_EXIT_USAGE;
        }
        if (c == '?') {
            bad_option(&p, current, optopt);
            return CLI_EXIT_USAGE;
        }
        size_t i = entry_of(&p, c);
        const struct option_row *r = p.entries[i].row;
        if (r->kind == ARG_HELP) {
            cli_print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (r->kind == ARG_VERSION) {
            printf("membench %s\n", MEMBENCH_VERSION);
            return CLI_EXIT_OK;
        }
        if (!p.given[i]) p.given[i] = ++p.seq;
        if ((r->flags & OPTF_PROFILE) && !p.first_profile) p.first_profile = (int)i + 1;
        if (apply(o, &p.entries[i], optarg) != 0) return CLI_EXIT_USAGE;
    }
    struct stream_options *s = options_block(o, &stream_option_rows);
    const struct latency_options *l = options_block_of(o, &latency_option_rows);
    if (optind < argc) {
        option_error("unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (o->shared.matrix && s->kernel_mask == 0 && !l->enabled)
        s->kernel_mask = 1u << KERNEL_TRIAD; /* --latency --matrix: the latency matrix alone */
    /* probes alone replace the STREAM kernels; with a kernel flag both run */
    if (!cli_measures_something(o)) s->kernel_mask = KERNEL_MASK_STREAM;
    const char *env_isa = getenv("MEMBENCH_ISA");
    if (!s->isa_forced_by && env_isa && *env_isa &&
        stream_force_isa(s, "MEMBENCH_ISA", env_isa) != 0)
        return CLI_EXIT_USAGE;
    if (check_acceptance_profile(o, &p) != 0 || check_applies(&p, o) != 0 ||
        cli_check_combinations(o) != 0)
        return CLI_EXIT_USAGE;
    return CLI_RUN;
}
