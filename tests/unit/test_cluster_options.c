/* One set of options across a cluster run: the fingerprint, its first difference, and the
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
    char *fp = options_fingerprint(&o);
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

static void sweeps_and_save_reference_are_refused(void **state)
{
    (void)state;
    const char *refused[][2] = {{"-t", "1,2"},
                                {"--size", "1000000,2000000"},
                                {"--pages", "4k,thp"},
                                {"--bind", "compact,scatter"},
                                {"--stores", "normal,nt"},
                                {"--save-reference", "ref.json"}};
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
        cmocka_unit_test(sweeps_and_save_reference_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
