/* One set of options across a cluster run: the options as text, their first difference, and the
 * combinations a cluster run refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "src/cli/cli.h"
#include "src/cli/option_table.h"
#include "src/cli/option_values.h"
#include "src/cluster/cluster_options.h"
#include "src/base/log.h"

/* The fingerprint of a command line ("membench" and up to 7 arguments). */
static char *fingerprint_of(const char *a, const char *b, const char *c, const char *d)
{
    char *argv[] = {"membench", (char *)a, (char *)b, (char *)c, (char *)d, NULL};
    int argc = 1;
    while (argv[argc])
        argc++;
    struct options o;
    assert_int_equal(cli_parse(argc, argv, &o), CLI_RUN);
    char *fp = options_describe(&o);
    cli_free(&o);
    assert_non_null(fp);
    return fp;
}

static void same_options_same_text(void **state)
{
    (void)state;
    char mine[420], theirs[420];
    char *a = fingerprint_of("-s", "4000000", "-n", "5");
    char *b = fingerprint_of("--ntimes", "5", "--size", "4000000");
    assert_int_equal(options_difference(a, b, mine, sizeof(mine), theirs, sizeof(theirs)), 0);
    char *c = fingerprint_of("-s", "4000000", "-o", "elsewhere.txt"); /* -n 10, rank 0's -o */
    assert_int_equal(options_difference(a, c, mine, sizeof(mine), theirs, sizeof(theirs)), 1);
    assert_string_equal(mine, "--ntimes 5");
    assert_string_equal(theirs, "--ntimes 10");
    free(a);
    free(b);
    free(c);
}

static void first_difference_is_named(void **state)
{
    (void)state;
    char mine[420], theirs[420];
    const char *cases[][4] = {{"--size", "8000000", "--size 8000000", "--size 4000000"},
                              {"--type", "float", "--type float", "--type double"},
                              {"--expect", "triad=900", "--expect triad=900", "no --expect"},
                              {"--tolerance", "9", "--tolerance 9", "--tolerance 5"},
                              {"--pages", "4k", "--pages 4k", "no --pages"}};
    char *base = fingerprint_of("--size", "4000000", NULL, NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *other = strcmp(cases[i][0], "--size") == 0
                          ? fingerprint_of(cases[i][0], cases[i][1], NULL, NULL)
                          : fingerprint_of("--size", "4000000", cases[i][0], cases[i][1]);
        assert_int_equal(
            options_difference(other, base, mine, sizeof(mine), theirs, sizeof(theirs)), 1);
        assert_string_equal(mine, cases[i][2]);
        assert_string_equal(theirs, cases[i][3]);
        free(other);
    }
    char *per_rank = fingerprint_of("--size", "4000000", "--mpi-per-rank", NULL);
    assert_int_equal(options_difference(per_rank, base, mine, sizeof(mine), theirs, sizeof(theirs)),
                     1);
    assert_string_equal(mine, "--mpi-per-rank");
    assert_string_equal(theirs, "no --mpi-per-rank");
    free(per_rank);
    free(base);
}

/* The text comes from the option table: every option is in it, -o and -q (each rank's own)
 * are not, and an option parsed by its own setter shows what was set. */
static void every_option_is_described(void **state)
{
    (void)state;
    char *text = fingerprint_of("--size", "4000000", NULL, NULL);
    for (size_t i = 0; i < option_table_rows; i++) {
        const struct option_row *r = &option_table[i];
        if (!r->name || r->kind == ARG_HELP || r->kind == ARG_VERSION) continue;
        char given[64], absent[64];
        snprintf(given, sizeof(given), "\n--%s", r->name);
        snprintf(absent, sizeof(absent), "\nno --%s\n", r->name);
        bool found = strstr(text, given) || strstr(text, absent) ||
                     (strncmp(text, given + 1, strlen(given + 1)) == 0);
        if (r->flags & OPTF_LOCAL)
            assert_false(found);
        else if (!found)
            fail_msg("--%s is not in the options' text", r->name);
    }
    free(text);
    const char *custom[][3] = {{"--bind", "0,1", "--bind 0,1"},
                               {"--isa", "sse2", "--isa sse2"},
                               {"--peak", "102.4", "--peak 102.40000000000001"},
                               {"--faults-size", "128", "--faults-size 128MiB"},
                               {"--faults-backing", "2m", "--faults-backing 2m"}};
    for (size_t i = 0; i < sizeof(custom) / sizeof(custom[0]); i++) {
        const char *probe = strncmp(custom[i][0], "--faults", 8) == 0 ? "--faults" : "--triad";
        char *t = fingerprint_of(probe, custom[i][0], custom[i][1], NULL);
        if (!strstr(t, custom[i][2])) fail_msg("%s: no '%s' in\n%s", custom[i][0], custom[i][2], t);
        free(t);
    }
}

/* ... and the metrics, which are one node's: a cluster run writes one table */
static void sweeps_and_save_reference_are_refused(void **state)
{
    (void)state;
    const char *refused[][2] = {{"-t", "1,2"},
                                {"--size", "1000000,2000000"},
                                {"--pages", "4k,thp"},
                                {"--bind", "compact,scatter"},
                                {"--stores", "normal,nt"},
                                {"--save-reference", "ref.json"},
                                {"--format", "openmetrics"},
                                {"--metrics-file", "membench.prom"}};
    char why[400];
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        char *argv[] = {"membench", (char *)refused[i][0], (char *)refused[i][1], NULL};
        struct options o;
        assert_int_equal(cli_parse(3, argv, &o), CLI_RUN);
        why[0] = '\0';
        assert_int_equal(cluster_refusal(&o, why, sizeof(why)), EXIT_USAGE);
        assert_non_null(strstr(why, refused[i][0][1] == 't' ? "--threads" : refused[i][0]));
        cli_free(&o);
    }
    char *argv[] = {"membench", "-t", "4", NULL};
    struct options o;
    assert_int_equal(cli_parse(3, argv, &o), CLI_RUN);
    assert_int_equal(cluster_refusal(&o, why, sizeof(why)), 0);
    cli_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_options_same_text),
        cmocka_unit_test(first_difference_is_named),
        cmocka_unit_test(every_option_is_described),
        cmocka_unit_test(sweeps_and_save_reference_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
