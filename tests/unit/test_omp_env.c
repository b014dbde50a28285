/* GOMP_CPU_AFFINITY read as libgomp reads it, checked against the CPUs the process may use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "affinity/omp_env.h"

static hwloc_bitmap_t cpus(const char *list)
{
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    assert_int_equal(hwloc_bitmap_list_sscanf(b, list), 0);
    return b;
}

static int check_threads(const char *value, const char *places, const char *bind,
                         const char *usable, unsigned threads, char *why)
{
    hwloc_bitmap_t b = usable ? cpus(usable) : NULL;
    why[0] = '\0';
    int rc = omp_env_check(value, places, bind, b, threads, why, 400);
    if (b) hwloc_bitmap_free(b);
    return rc;
}

/* Every entry checked, as for a team at least as large as the list. */
static int check(const char *value, const char *places, const char *bind, const char *usable,
                 char *why)
{
    return check_threads(value, places, bind, usable, 0, why);
}

static void lists_libgomp_reads(void **state)
{
    (void)state;
    char why[400];
    const char *ok[] = {"0", "0-3", "0,1", "0 1", " 0 , 1 ", "0-3:2", "0x1", "+1", "3,2,1,0"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        assert_int_equal(check(ok[i], NULL, NULL, "0-3", why), 0);
        assert_string_equal(why, "");
    }
    assert_int_equal(check(NULL, NULL, NULL, "0", why), 0);
    assert_int_equal(check("", NULL, NULL, "0", why), 0);
}

static void cpus_outside_the_usable_set(void **state)
{
    (void)state;
    char why[400];
    assert_int_equal(check("7", NULL, NULL, "0-1", why), -1);
    assert_non_null(strstr(why, "names CPU 7"));
    assert_non_null(strstr(why, "(usable: 0-1)"));
    assert_int_equal(check("0-4:2", NULL, NULL, "0-3", why), -1);
    assert_non_null(strstr(why, "names CPU 4"));
    assert_int_equal(check("0,1", NULL, NULL, "0", why), -1); /* a cpuset of CPU 0 */
    assert_non_null(strstr(why, "names CPU 1"));
    assert_int_equal(check("1,3", NULL, NULL, "0,2", why), -1);
    assert_non_null(strstr(why, "names CPU 1"));
    /* the usable CPUs unknown: only the syntax is checked */
    assert_int_equal(check("7", NULL, NULL, NULL, why), 0);
}

static void malformed_values(void **state)
{
    (void)state;
    char why[400];
    const char *bad[] = {"abc",  "0,",    "0,,1",  ",0", "1-0", "0-1:0",
                         "0-1:", "65536", "0 - 1", "-1", "0;1", "0-"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(check(bad[i], NULL, NULL, "0-3", why), -1);
        assert_non_null(strstr(why, "not a CPU list"));
    }
}

/* OMP_PLACES wins over it, and OMP_PROC_BIND=false turns binding off: libgomp ignores it. */
static void ignored_by_libgomp(void **state)
{
    (void)state;
    char why[400];
    assert_int_equal(check("7", "cores", NULL, "0-1", why), 0);
    assert_int_equal(check("abc", "{0}", NULL, "0-1", why), 0);
    assert_int_equal(check("7", NULL, "false", "0-1", why), 0);
    assert_int_equal(check("7", NULL, "FALSE", "0-1", why), 0);
    assert_int_equal(check("7", NULL, "true", "0-1", why), -1);
    assert_int_equal(check("7", "", NULL, "0-1", why), -1);
}

/* Thread i takes entry i (mod the length): entries past the team are never used. */
static void only_the_entries_the_threads_take(void **state)
{
    (void)state;
    char why[400];
    assert_int_equal(check_threads("0-63", NULL, NULL, "0-1", 2, why), 0);
    assert_int_equal(check_threads("0-63", NULL, NULL, "0-1", 3, why), -1);
    assert_non_null(strstr(why, "names CPU 2 for one of this run's 3 threads"));
    assert_int_equal(check_threads("0,7", NULL, NULL, "0-1", 1, why), 0);
    assert_int_equal(check_threads("0,7", NULL, NULL, "0-1", 2, why), -1);
    assert_int_equal(check_threads("7,0", NULL, NULL, "0-1", 1, why), -1);
    assert_int_equal(check_threads("1,0", NULL, NULL, "0-1", 64, why), 0); /* wraps around */
    assert_int_equal(check_threads("0,1-7", NULL, NULL, "0-1", 2, why), 0);
    assert_int_equal(check_threads("0,1,abc", NULL, NULL, "0-1", 1, why), -1); /* still read */
    assert_non_null(strstr(why, "not a CPU list"));
}

/* What the libraries printed while loading: libgomp's refusals become one reason; the rest
 * is left as it was. */
static int refused(const char *printed, char *left, char *why)
{
    size_t len = strlen(printed);
    strcpy(left, printed);
    why[0] = '\0';
    int rc = omp_env_refused(left, &len, why, 400);
    assert_int_equal(len, strlen(left));
    return rc;
}

static void libgomp_refusals(void **state)
{
    (void)state;
    char left[400], why[400];
    setenv("OMP_PLACES", "{99999}", 1);
    setenv("OMP_WAIT_POLICY", "x\ny", 1);
    assert_int_equal(refused("other: note\n\nlibgomp: Logical CPU number 99999 out of range\n"
                             "\nlibgomp: Invalid value for environment variable OMP_PLACES\n"
                             "\nlibgomp: Invalid value for environment variable OMP_WAIT_POLICY\n"
                             "tail\n",
                             left, why),
                     -1);
    assert_string_equal(left, "other: note\ntail\n");
    assert_non_null(strstr(why, "OMP_PLACES='{99999}' is a value libgomp cannot read (Logical "
                                "CPU number 99999 out of range)"));
    assert_non_null(strstr(why, "cores"));
    assert_non_null(strstr(why, "; the runtime refused OMP_WAIT_POLICY too"));
    /* GOMP_CPU_AFFINITY's parser spells it "enviroment"; the first refused is named */
    assert_int_equal(refused("\nlibgomp: Invalid value for enviroment variable GOMP_CPU_AFFINITY"
                             "\n\nlibgomp: Unknown value for environment variable OMP_SCHEDULE\n",
                             left, why),
                     -1);
    assert_string_equal(left, "");
    assert_non_null(strstr(why, "GOMP_CPU_AFFINITY="));
    assert_non_null(strstr(why, "refused OMP_SCHEDULE too"));
    unsetenv("OMP_PLACES");
    unsetenv("OMP_WAIT_POLICY");
}

/* libomp (clang) says it in a warning that starts with the name, with Info and Hint lines. */
static void libomp_refusals(void **state)
{
    (void)state;
    char left[400], why[400];
    setenv("OMP_THREAD_LIMIT", "0", 1);
    assert_int_equal(refused("OMP: Warning #80: OMP_THREAD_LIMIT=\"0\": value too small.\n"
                             "OMP: Info #106: OMP_THREAD_LIMIT value \"1\" will be used.\n"
                             "OMP: Warning #124: Ignoring invalid OS proc ID 99.\n",
                             left, why),
                     -1);
    assert_string_equal(left, "OMP: Warning #124: Ignoring invalid OS proc ID 99.\n");
    assert_non_null(strstr(why, "OMP_THREAD_LIMIT='0' is a value libomp cannot read "
                                "(OMP_THREAD_LIMIT=\"0\": value too small.)"));
    unsetenv("OMP_THREAD_LIMIT");
}

/* libgomp's other messages, and text that only looks like a refusal, pass through as they are. */
static void other_messages_pass_through(void **state)
{
    (void)state;
    char left[400], why[400];
    const char *kept[] = {
        "",
        ("\nlibgomp: Number of places reduced from 4 to 2 because some places didn't contain "
         "any usable logical CPUs\n"),
        "libgomp: Invalid value for environment variable OMP_PLACES (quoted by another)\n",
        "x libgomp: Invalid value for environment variable OMP_PLACES\n",
        ("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP = '201511'\n"),
        "OMP: Warning #182: OMP_PLACES: ignored because GOMP_CPU_AFFINITY has been defined\n",
    };
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        assert_int_equal(refused(kept[i], left, why), 0);
        assert_string_equal(left, kept[i]);
        assert_string_equal(why, "");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_libgomp_reads),
        cmocka_unit_test(cpus_outside_the_usable_set),
        cmocka_unit_test(malformed_values),
        cmocka_unit_test(ignored_by_libgomp),
        cmocka_unit_test(only_the_entries_the_threads_take),
        cmocka_unit_test(libgomp_refusals),
        cmocka_unit_test(libomp_refusals),
        cmocka_unit_test(other_messages_pass_through),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
