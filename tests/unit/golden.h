#ifndef MEMBENCH_TEST_GOLDEN_H
#define MEMBENCH_TEST_GOLDEN_H

/* Compares a writer's output with tests/golden/NAME byte for byte; UPDATE_GOLDEN=1 rewrites
 * the file (review the diff). Include after cmocka.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"

static inline void golden_compare(const char *name, const char *text, size_t len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/golden/%s", TESTS_DIR, name);
    if (getenv("UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fwrite(text, 1, len, f);
        fclose(f);
    }
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("missing golden file %s (run with UPDATE_GOLDEN=1)", path);
    char *want = calloc(1, 1 << 20);
    size_t want_len = fread(want, 1, (1 << 20) - 1, f);
    fclose(f);
    if (want_len != len || memcmp(want, text, len) != 0)
        fail_msg("%s differs from the golden file; got:\n%s", name, text);
    free(want);
}

/* What a writer prints for a report, as a string to free. */
static inline char *written(int (*writer)(FILE *, const struct report *), const struct report *rep,
                            size_t *len)
{
    char *text = NULL;
    FILE *mem = open_memstream(&text, len);
    assert_non_null(mem);
    assert_int_equal(writer(mem, rep), 0);
    fclose(mem);
    return text;
}

static inline void golden_check_report(int (*writer)(FILE *, const struct report *),
                                       const struct report *rep, const char *name)
{
    size_t len = 0;
    char *text = written(writer, rep, &len);
    golden_compare(name, text, len);
    free(text);
}

/* A cmocka test, test: the report make() returns, as writer prints it, against the golden
 * file name. */
#define GOLDEN_REPORT_TEST(test, make, writer, name)                                               \
    static void test(void **state)                                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        struct report rep = make();                                                                \
        golden_check_report(writer, &rep, name);                                                   \
    }

#endif
