/* The run profile's table (src/stream/run_profile.c) is what the writers, the reference and the
 * comparison use: each row changed alone changes its JSON config key, its CSV column, its
 * reference key (read back as written), fails its acceptance check and splits a page pair
 * exactly when the row says so. A row some output leaves out fails here. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "src/report/report.h"
#include "src/stream/stream_measurement.h"
#include "src/stream/run_profile.h"
#include "src/sys/provenance.h"
#include "src/verdict/reference.h"
#ifdef MEMBENCH_EXTRA_PROFILE_ROW
#include MEMBENCH_EXTRA_PROFILE_ROW /* its key: design.md does not name a throw-away row */
#endif

static void fill(struct run_result *r)
{
    memset(r, 0, sizeof(*r));
    struct run_config *c = &r->config;
    c->threads = 3;
    c->threads_from = "--threads";
    snprintf(c->bind, sizeof(c->bind), "scatter");
    c->pages = "4k";
    c->pages_from = "--pages";
    c->elements = 1234567;
    c->array_bytes = 8 * 1234567;
    c->total_bytes = 3 * 8 * 1234567 + 48;
    snprintf(c->size_label, sizeof(c->size_label), "1234567");
    c->ntimes = 7;
    c->stores = "nt";
    c->stores_requested = "nt";
    c->stores_kind = STORES_NT;
    c->type = TYPE_DOUBLE;
    c->offset = 2;
    c->kernel_mask = 1u << KERNEL_COPY | 1u << KERNEL_TRIAD;
    c->llc_count = 2;
    c->llc_bytes = 4 << 20;
    c->per_domain = DOMAIN_NUMA;
    c->below_stream_rule = true;
    c->tuned = true;
    c->isa = ISA_AVX2;
    c->numa_cell = true;
    c->cpu_node = 1;
    c->mem_node = 0;
    r->measured = true;
    r->validation.passed = true;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (c->kernel_mask & (1u << k)) {
            struct kernel_result *x = &r->results[r->n_results++];
            x->kernel = (enum kernel_id)k;
            x->stores = c->kernel_stores[k] = STORES_NT;
            x->best_rate_mbps = 1000.0 + k;
        }
}

/* The row's member of c, changed to another valid value. */
static void change(const struct profile_field *f, struct run_config *c)
{
    void *m = (char *)c + f->at;
    switch (f->kind) {
    case PROFILE_UINT: *(unsigned *)m += 1; break;
    case PROFILE_INT: *(int *)m += 1; break;
    case PROFILE_U64: *(uint64_t *)m += 1; break;
    case PROFILE_SIZE: *(size_t *)m += 1; break;
    case PROFILE_BOOL: *(bool *)m = !*(bool *)m; break;
    case PROFILE_TEXT: *(const char **)m = "normal"; break;
    case PROFILE_CHARS: snprintf(m, 8, "compact"); break;
    case PROFILE_TYPE: *(enum elem_type *)m = TYPE_FLOAT; break;
    case PROFILE_ISA: *(enum isa *)m = ISA_SSE2; break;
    case PROFILE_DOMAIN: *(enum domain_kind *)m = DOMAIN_LLC; break;
    case PROFILE_KERNELS: *(unsigned *)m |= 1u << KERNEL_ADD; break;
    case PROFILE_CALLER: break;
    }
}

static struct topology_facts topo = {.cores = 2, .pus = 2, .packages = 1, .numa_nodes = 1};
static struct sys_info sys;
static struct provenance prov;

static struct stream_result stream;

static struct report report_of(struct run_result *r)
{
    struct report rep;
    memset(&rep, 0, sizeof(rep));
    rep.version = "0.0.0-test";
    rep.topo = topo;
    stream = (struct stream_result){.runs = r, .n_runs = 1};
    rep.parts[rep.n_parts++] = (struct measured_part){&stream_measurement, &stream};
    return rep;
}

static char *written(int (*writer)(FILE *, const struct report *), struct run_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct report rep = report_of(r);
    assert_int_equal(writer(f, &rep), 0);
    fclose(f);
    return text;
}

static json_t *config_of(struct run_result *r)
{
    char *text = written(report_write_json, r);
    json_t *root = json_loads(text, 0, NULL);
    free(text);
    assert_non_null(root);
    json_t *config = json_object_get(json_array_get(json_object_get(root, "runs"), 0), "config");
    json_incref(config);
    json_decref(root);
    return config;
}

/* The JSON config holds the rows in table order, and a row's key changes with its member. */
static void every_row_is_in_the_json_config(void **state)
{
    (void)state;
    struct run_result base, other;
    fill(&base);
    json_t *config = config_of(&base);
    const char *key;
    json_t *value;
    size_t i = 0;
    json_object_foreach(config, key, value)
    {
        while (i < run_profile_rows && !run_profile[i].json)
            i++;
        if (i == run_profile_rows) break; /* the report's own keys follow */
        assert_string_equal(key, run_profile[i++].key);
    }
    for (i = 0; i < run_profile_rows; i++) {
        const struct profile_field *f = &run_profile[i];
        if (!f->json) continue;
        fill(&other);
        change(f, &other.config);
        json_t *changed = config_of(&other);
        json_object_foreach(config, key, value)
        {
            bool differs = !json_equal(value, json_object_get(changed, key));
            if (differs != (strcmp(key, f->key) == 0)) fail_msg("row %s changed %s", f->key, key);
        }
        json_decref(changed);
    }
    json_decref(config);
}

/* The n-th (from 1) comma-separated field of line (no quoted fields here), as a new string. */
static char *field(const char *line, int n)
{
    for (int i = 1; i < n && line; i++) {
        line = strchr(line, ',');
        if (line) line++;
    }
    assert_non_null(line);
    size_t len = strcspn(line, ",\n");
    char *out = malloc(len + 1);
    memcpy(out, line, len);
    out[len] = 0;
    return out;
}

/* A row with a CSV column is named in the header, and its field alone changes with it. */
static void every_csv_row_is_its_column(void **state)
{
    (void)state;
    struct run_result base, other;
    fill(&base);
    char *csv = written(report_write_csv, &base);
    int columns = 1;
    for (const char *p = csv; *p != '\n'; p++)
        columns += *p == ',';
    for (size_t i = 0; i < run_profile_rows; i++) {
        const struct profile_field *f = &run_profile[i];
        if (!f->csv) continue;
        int at = 0;
        for (int col = 1; col <= columns && !at; col++) {
            char *name = field(csv, col);
            if (strcmp(name, f->key) == 0) at = col;
            free(name);
        }
        if (!at) fail_msg("the CSV header has no column %s", f->key);
        fill(&other);
        change(f, &other.config);
        char *changed = written(report_write_csv, &other);
        for (int col = 1; col <= columns; col++) {
            char *a = field(strchr(csv, '\n') + 1, col), *b = field(strchr(changed, '\n') + 1, col);
            if ((strcmp(a, b) != 0) != (col == at))
                fail_msg("row %s changed column %d", f->key, col);
            free(a);
            free(b);
        }
        free(changed);
    }
    free(csv);
}

static void write_reference(struct run_result *r, const char *path)
{
    snprintf(topo.source, sizeof(topo.source), "this machine");
    snprintf(topo.cpu_model, sizeof(topo.cpu_model), "Test CPU");
    const struct node_facts node = {"0.0.0-test", &prov, &topo, &sys, NULL, NULL, 0};
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(reference_write(f, &node, r, NULL), 0);
    fclose(f);
}

/* A reference's profile holds the rows with a place, in that order; each reads back as
 * written; and each checked row, recorded otherwise, fails its check. */
static void every_reference_row_is_written_read_and_checked(void **state)
{
    (void)state;
    char path[] = "/tmp/membench-test-profile-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct run_result run;
    fill(&run);
    write_reference(&run, path);
    json_t *root = json_load_file(path, 0, NULL);
    assert_non_null(root);
    const char *key;
    json_t *value;
    int pos = 1;
    json_object_foreach(json_object_get(root, "profile"), key, value)
    {
        const struct profile_field *f = run_profile_ref_at(pos++);
        assert_non_null(f);
        assert_string_equal(key, f->key);
        assert_false(json_is_null(value));
    }
    assert_null(run_profile_ref_at(pos));
    json_decref(root);
    struct expectations e;
    memset(&e, 0, sizeof(e));
    char why[400];
    assert_int_equal(reference_load(path, &e, why, sizeof(why)), 0);
    unlink(path);
    const struct node_facts node = {"0.0.0-test", &prov, &topo, &sys, NULL, NULL, 0};
    struct acceptance_result out;
    const struct profile_field *f;
    for (pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++) {
        if (!f->ref_size) continue;
        char *recorded = (char *)&e.profile + f->ref_at;
        struct profile_value v;
        profile_value_of(f, &run.config, &v);
        if (profile_field_is_number(f))
            assert_int_equal(*(long long *)recorded, v.number);
        else
            assert_string_equal(recorded, f->kind == PROFILE_CALLER ? topo.source : v.text);
        if (!f->check) continue;
        struct expectations changed = e;
        recorded = (char *)&changed.profile + f->ref_at;
        if (profile_field_is_number(f))
            *(long long *)recorded += 1;
        else
            snprintf(recorded, f->ref_size, "other");
        acceptance_evaluate(&node, &run, &changed, 5.0, &out);
        bool found = false;
        for (int i = 0; i < out.n_checks; i++) {
            bool this_one = strcmp(out.checks[i].name, f->check) == 0;
            found |= this_one;
            if (!out.checks[i].rate_check && out.checks[i].passed == this_one &&
                strcmp(out.checks[i].name, "page size") != 0)
                fail_msg("row %s: check %s %s", f->key, out.checks[i].name,
                         out.checks[i].passed ? "passed" : "failed");
        }
        assert_true(found);
    }
}

/* Two runs pair for the page comparison unless a .paired row differs. */
static void paired_rows_split_a_pair(void **state)
{
    (void)state;
    struct run_result a, b;
    fill(&a);
    for (size_t i = 0; i < run_profile_rows; i++) {
        const struct profile_field *f = &run_profile[i];
        if (f->kind == PROFILE_CALLER) continue;
        fill(&b);
        change(f, &b.config);
        if (run_profile_paired(&a.config, &b.config) == f->paired)
            fail_msg("row %s: %s", f->key, f->paired ? "paired though it differs" : "split a pair");
    }
}

/* Whether text holds word with no letter, digit or '_' on either side. */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool left = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool right = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (left && right) return true;
    }
    return false;
}

/* The contract names every row's key (docs/design.md: the config, the CSV, the reference). */
static void every_row_is_documented(void **state)
{
    (void)state;
    FILE *f = fopen(TESTS_DIR "/../docs/design.md", "r");
    assert_non_null(f);
    static char doc[1 << 20];
    size_t len = fread(doc, 1, sizeof(doc) - 1, f);
    fclose(f);
    doc[len] = 0;
    for (size_t i = 0; i < run_profile_rows; i++)
#ifdef EXTRA_PROFILE_KEY
        if (strcmp(run_profile[i].key, EXTRA_PROFILE_KEY) != 0)
#endif
            if (!has_word(doc, run_profile[i].key))
                fail_msg("docs/design.md does not name the run profile's %s", run_profile[i].key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_is_in_the_json_config),
        cmocka_unit_test(every_csv_row_is_its_column),
        cmocka_unit_test(every_reference_row_is_written_read_and_checked),
        cmocka_unit_test(paired_rows_split_a_pair),
        cmocka_unit_test(every_row_is_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
