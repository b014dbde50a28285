/* One set of options across a cluster run: the options as text, their first difference, and the
 * combinations a cluster run refuses; one environment and one resolved profile across its
 * measuring ranks (src/cluster/cluster_env.c). */
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
#include "src/cluster/cluster_env.h"
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
                               {"--isa", "scalar", "--isa scalar"},
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

/* The variables that change a run are described, sorted by name; the others are not. */
static void environment_text_names_the_run_variables(void **state)
{
    (void)state;
    char *env[] = {"PATH=/usr/bin",
                   "OMP_NUM_THREADS=4",
                   "HUGETLB_MORECORE=yes",
                   "OMPI_COMM_WORLD_RANK=1",
                   "HWLOC_XMLFILE=/etc/node.xml",
                   "TMPDIR=/scratch",
                   "MEMBENCH_TEST_HOSTNAMES=a,b",
                   "GOMP_CPU_AFFINITY=0-3",
                   "OMP_PROC_BIND=close",
                   "MEMBENCH_ISA=avx2",
                   "OMP_NUM_THREADS=8", /* getenv() reads the first one */
                   "GLIBC_TUNABLES=glibc.malloc.hugetlb=1",
                   "HUGETLB_PATH=a\nb\\c",
                   NULL};
    char *text = environment_describe(env);
    assert_non_null(text);
    assert_string_equal(text, "GLIBC_TUNABLES=glibc.malloc.hugetlb=1\n"
                              "GOMP_CPU_AFFINITY=0-3\n"
                              "HUGETLB_MORECORE=yes\n"
                              "HUGETLB_PATH=a\\nb\\\\c\n"
                              "HWLOC_XMLFILE=/etc/node.xml\n"
                              "MEMBENCH_ISA=avx2\n"
                              "OMP_NUM_THREADS=4\n"
                              "OMP_PROC_BIND=close\n");
    free(text);
    char *none[] = {"PATH=/bin", "OMPI_COMM_WORLD_SIZE=2", NULL};
    text = environment_describe(none);
    assert_string_equal(text, "");
    free(text);
    assert_true(run_variable_compared("OMP_WAIT_POLICY"));
    assert_true(run_variable_compared("HWLOC_THISSYSTEM=0"));
    assert_false(run_variable_compared("OMP_")); /* a prefix names longer names */
    assert_false(run_variable_compared("OMPI_COMM_WORLD_RANK"));
    assert_false(run_variable_compared("MEMBENCH_ISA_X"));
}

/* The first variable by name whose value differs, or that one side has and the other not. */
static void environment_difference_names_variable_and_both_values(void **state)
{
    (void)state;
    char mine[640], theirs[640];
    const char *base = "HWLOC_XMLFILE=/a.xml\nOMP_NUM_THREADS=1\n";
    assert_int_equal(environment_difference(base, base, mine, sizeof(mine), theirs, sizeof(theirs)),
                     0);
    assert_int_equal(environment_difference("", "", mine, sizeof(mine), theirs, sizeof(theirs)), 0);
    const char *cases[][4] = {
        {"HWLOC_XMLFILE=/a.xml\nOMP_NUM_THREADS=2\n", base, "OMP_NUM_THREADS=2",
         "OMP_NUM_THREADS=1"},
        {"HWLOC_XMLFILE=/b.xml\nOMP_NUM_THREADS=2\n", base, "HWLOC_XMLFILE=/b.xml",
         "HWLOC_XMLFILE=/a.xml"},
        {"HUGETLB_MORECORE=yes\n"
         "HWLOC_XMLFILE=/a.xml\nOMP_NUM_THREADS=1\n",
         base, "HUGETLB_MORECORE=yes", "HUGETLB_MORECORE unset"},
        {"OMP_NUM_THREADS=1\n", base, "HWLOC_XMLFILE unset", "HWLOC_XMLFILE=/a.xml"},
        {base, "HWLOC_XMLFILE=/a.xml\n", "OMP_NUM_THREADS=1", "OMP_NUM_THREADS unset"},
        {"", base, "HWLOC_XMLFILE unset", "HWLOC_XMLFILE=/a.xml"},
        {"OMP_A=1\n", "OMP_A_B=1\n", "OMP_A=1", "OMP_A unset"}, /* by name, not by line */
        {"OMP_NUM_THREADS=\n", "", "OMP_NUM_THREADS=", "OMP_NUM_THREADS unset"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(environment_difference(cases[i][0], cases[i][1], mine, sizeof(mine),
                                                theirs, sizeof(theirs)),
                         1);
        assert_string_equal(mine, cases[i][2]);
        assert_string_equal(theirs, cases[i][3]);
    }
}

static struct rank_profile profile(unsigned threads, const char *from, int cores,
                                   const char *topology, int this_system)
{
    struct rank_profile p = {.threads = threads, .cores = cores, .this_system = this_system};
    snprintf(p.threads_from, sizeof(p.threads_from), "%s", from);
    snprintf(p.topology, sizeof(p.topology), "%s", topology);
    return p;
}

/* What must be equal (where the threads come from, an explicit count, the topology) and what
 * may differ (a count that follows each node's cores). */
static void profile_difference_allows_only_the_cores(void **state)
{
    (void)state;
    char mine[640], theirs[640];
    struct rank_profile cores8 = profile(8, "physical cores", 8, "this machine", 1),
                        cores16 = profile(16, "physical cores", 16, "this machine", 1),
                        env4 = profile(4, "OMP_NUM_THREADS", 8, "this machine", 1),
                        env2 = profile(2, "OMP_NUM_THREADS", 8, "this machine", 1),
                        env4_big = profile(4, "OMP_NUM_THREADS", 16, "this machine", 1),
                        opt4 = profile(4, "--threads", 8, "this machine", 1),
                        xml = profile(8, "physical cores", 8, "HWLOC_XMLFILE=/n.xml", 0),
                        forced = profile(8, "physical cores", 8, "HWLOC_XMLFILE=/n.xml", 1);
    assert_int_equal(profile_difference(&cores8, &cores16, mine, 640, theirs, 640), 0);
    assert_int_equal(profile_difference(&env4, &env4_big, mine, 640, theirs, 640), 0);
    assert_int_equal(profile_difference(&env4, &env2, mine, 640, theirs, 640), 1);
    assert_string_equal(mine, "4 threads from OMP_NUM_THREADS");
    assert_string_equal(theirs, "2 threads from OMP_NUM_THREADS");
    assert_int_equal(profile_difference(&opt4, &env4, mine, 640, theirs, 640), 1);
    assert_string_equal(mine, "4 threads from --threads");
    assert_int_equal(profile_difference(&cores8, &env4, mine, 640, theirs, 640), 1);
    assert_string_equal(mine, "8 threads from physical cores");
    assert_int_equal(profile_difference(&xml, &cores8, mine, 640, theirs, 640), 1);
    assert_string_equal(mine, "topology HWLOC_XMLFILE=/n.xml (not this machine)");
    assert_string_equal(theirs, "topology this machine");
    assert_int_equal(profile_difference(&xml, &forced, mine, 640, theirs, 640), 1);
    assert_string_equal(theirs, "topology HWLOC_XMLFILE=/n.xml");
}

/* The profile read here, on a described machine: threads from the cores, OMP_NUM_THREADS or
 * --threads; the topology's source. */
static void profile_read_resolves_threads_and_topology(void **state)
{
    (void)state;
    char *argv[] = {"membench", "-t", "3", NULL};
    struct options given, plain;
    assert_int_equal(cli_parse(3, argv, &given), CLI_RUN);
    assert_int_equal(cli_parse(1, argv, &plain), CLI_RUN);
    setenv("HWLOC_SYNTHETIC", "pack:1 core:6 pu:2", 1);
    unsetenv("HWLOC_XMLFILE");
    unsetenv("OMP_NUM_THREADS");
    struct rank_profile p;
    rank_profile_read(&plain, &p);
    assert_int_equal(p.threads, 6);
    assert_string_equal(p.threads_from, "physical cores");
    assert_int_equal(p.cores, 6);
    assert_string_equal(p.topology, "HWLOC_SYNTHETIC=pack:1 core:6 pu:2");
    assert_false(p.this_system);
    setenv("OMP_NUM_THREADS", "5", 1);
    rank_profile_read(&plain, &p);
    assert_int_equal(p.threads, 5);
    assert_string_equal(p.threads_from, "OMP_NUM_THREADS");
    rank_profile_read(&given, &p);
    assert_int_equal(p.threads, 3);
    assert_string_equal(p.threads_from, "--threads");
    unsetenv("HWLOC_SYNTHETIC");
    setenv("OMP_NUM_THREADS", "2", 1);
    cli_free(&given);
    cli_free(&plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_options_same_text),
        cmocka_unit_test(first_difference_is_named),
        cmocka_unit_test(every_option_is_described),
        cmocka_unit_test(sweeps_and_save_reference_are_refused),
        cmocka_unit_test(environment_text_names_the_run_variables),
        cmocka_unit_test(environment_difference_names_variable_and_both_values),
        cmocka_unit_test(profile_difference_allows_only_the_cores),
        cmocka_unit_test(profile_read_resolves_threads_and_topology),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
