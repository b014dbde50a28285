#include "src/verdict/reference.h"

#include "src/verdict/reference_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/base/parse.h"
#include "src/base/utf8_text.h"
#include "src/stream/results.h"
#include "src/sys/provenance.h"
#include "src/sys/sysinfo.h"

#define REFERENCE_SCHEMA 1
#define MAX_TOPOLOGY_COUNT (1ll << 22) /* cores, PUs: far beyond any node */
#define MAX_RATE_MBPS 1e9              /* as --expect */
/* A reference is a few KiB; a bigger file is not one, and parsing it costs seconds. */
#define REFERENCE_MAX_BYTES (1 << 20)

static int copy_string(json_t *obj, const char *key, char *dst, size_t len)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return 0;
    if (!json_is_string(v)) return -1;
    snprintf(dst, len, "%s", json_string_value(v));
    utf8_trim_partial(dst);
    return 0;
}

/* obj.key as a whole number in [min, max]; *out = absent when the key is not there. */
static int read_integer(json_t *obj, const char *section, const char *key, long long min,
                        long long max, long long absent, long long *out, char *why, size_t why_len)
{
    json_t *v = json_object_get(obj, key);
    *out = absent;
    if (!v) return 0;
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        snprintf(why, why_len, "'%s.%s' must be a whole number from %lld to %lld", section, key,
                 min, max);
        return -1;
    }
    *out = (long long)json_integer_value(v);
    return 0;
}

static int read_system(json_t *sys, struct expectations *e, char *why, size_t why_len)
{
    if (!json_is_object(sys)) {
        snprintf(why, why_len, "'system' is not an object");
        return -1;
    }
    json_t *model = json_object_get(sys, "cpu_model");
    if (!json_is_string(model) || !json_object_get(sys, "cores")) {
        snprintf(why, why_len, "'system' needs 'cpu_model' (string) and 'cores' (integer)");
        return -1;
    }
    /* what membench writes: counts of 1 and up, 0 bytes and -1 pages for "unknown" */
    long long cores, pus, packages, numa_nodes, mem, pool;
    if (read_integer(sys, "system", "cores", 1, MAX_TOPOLOGY_COUNT, 0, &cores, why, why_len) ||
        read_integer(sys, "system", "pus", 1, MAX_TOPOLOGY_COUNT, 0, &pus, why, why_len) ||
        read_integer(sys, "system", "packages", 1, MAX_TOPOLOGY_COUNT, 0, &packages, why,
                     why_len) ||
        read_integer(sys, "system", "numa_nodes", 0, MAX_TOPOLOGY_COUNT, 0, &numa_nodes, why,
                     why_len) ||
        read_integer(sys, "system", "mem_total_bytes", 0, INT64_MAX, 0, &mem, why, why_len) ||
        read_integer(sys, "system", "hugepages_2m_total", -1, INT64_MAX, -1, &pool, why, why_len))
        return -1;
    e->have_system = true;
    snprintf(e->cpu_model, sizeof(e->cpu_model), "%s", json_string_value(model));
    utf8_trim_partial(e->cpu_model);
    text_squeeze_blanks(e->cpu_model); /* saved before membench squeezed it */
    e->cores = (int)cores;
    e->pus = (int)pus;
    e->mem_total_bytes = (unsigned long long)mem;
    e->hugepages_2m = pool;
    if (copy_string(sys, "thp_enabled", e->thp_enabled, sizeof(e->thp_enabled)) ||
        copy_string(sys, "governor", e->governor, sizeof(e->governor))) {
        snprintf(why, why_len, "'thp_enabled' and 'governor' must be strings");
        return -1;
    }
    return 0;
}

/* Each member of map, an object from kernel names to values, handed to take with its kernel:
 * -1 when map is no object, a name no kernel's, or take refuses a value. */
static int each_kernel(json_t *map, int (*take)(int k, json_t *value, void *ctx), void *ctx)
{
    const char *key;
    json_t *value;
    if (!json_is_object(map)) return -1;
    json_object_foreach(map, key, value)
    {
        int k = kernel_find(key);
        if (k < 0 || take(k, value, ctx) != 0) return -1;
    }
    return 0;
}

static int take_kernel_stores(int k, json_t *value, void *ctx)
{
    struct reference_profile *p = ctx;
    const char *kind = json_string_value(value);
    if (!kind || (strcmp(kind, "nt") && strcmp(kind, "normal"))) return -1;
    p->kernel_stores[k] = strcmp(kind, "nt") == 0 ? STORES_NT : STORES_NORMAL;
    p->has_kernel_stores = true;
    return 0;
}

/* "kernel_stores": {"Copy": "normal", "Triad": "nt"}, optional (references before it had one
 * kind per run, in "stores"). */
static int read_kernel_stores(json_t *kinds, struct reference_profile *p, char *why, size_t why_len)
{
    for (int k = 0; k < KERNEL_COUNT; k++)
        p->kernel_stores[k] = -1;
    if (!kinds || each_kernel(kinds, take_kernel_stores, p) == 0) return 0;
    snprintf(why, why_len, "'profile.kernel_stores' must map kernel names to \"normal\" or \"nt\"");
    return -1;
}

static long long *recorded_number(struct reference_profile *p, const struct profile_field *f)
{
    return (long long *)((char *)p + f->ref_at);
}

/* "'profile.bind', 'type', ... and 'topology' must be strings": the text rows read back. */
static void texts_must_be_strings(char *why, size_t why_len)
{
    const struct profile_field *f;
    int n = 0, last = 0;
    for (int pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++)
        if (f->ref_size && !profile_field_is_number(f)) last = pos;
    why[0] = '\0';
    for (int pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++) {
        if (!f->ref_size || profile_field_is_number(f)) continue;
        size_t used = strlen(why);
        snprintf(why + used, why_len - used, "%s'%s%s'",
                 n == 0        ? ""
                 : pos == last ? " and "
                               : ", ",
                 n == 0 ? "profile." : "", f->key);
        n++;
    }
    size_t used = strlen(why);
    snprintf(why + used, why_len - used, " must be strings");
}

/* The profile the rates were measured with (the run profile's rows with a place in a
 * reference); a reference without one (written by hand) is checked for its rates and system
 * alone. */
static int read_profile(json_t *profile, struct reference_profile *p, char *why, size_t why_len)
{
    memset(p, 0, sizeof(*p));
    const struct profile_field *f;
    for (int pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++)
        if (f->ref_size && profile_field_is_number(f)) *recorded_number(p, f) = -1;
    if (!profile) return 0;
    if (!json_is_object(profile)) {
        snprintf(why, why_len, "'profile' is not an object");
        return -1;
    }
    p->present = true;
    for (int pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++)
        if (f->ref_size && profile_field_is_number(f) &&
            read_integer(profile, "profile", f->key, 0, f->ref_max, -1, recorded_number(p, f), why,
                         why_len))
            return -1;
    for (int pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++)
        if (f->ref_size && !profile_field_is_number(f) &&
            copy_string(profile, f->key, (char *)p + f->ref_at, f->ref_size)) {
            texts_must_be_strings(why, why_len);
            return -1;
        }
    return read_kernel_stores(json_object_get(profile, "kernel_stores"), p, why, why_len);
}

static int read_rates(json_t *rates, struct expectations *e, char *why, size_t why_len)
{
    if (!json_is_object(rates) || json_object_size(rates) == 0) {
        snprintf(why, why_len, "'rates_mbps' is missing or empty; it maps kernels to MB/s");
        return -1;
    }
    const char *key;
    json_t *value;
    json_object_foreach(rates, key, value)
    {
        int k = kernel_find(key);
        if (k < 0) {
            snprintf(why, why_len, "'rates_mbps' has an unknown kernel '%.40s'", key);
            return -1;
        }
        if (!json_is_number(value) || !(json_number_value(value) > 0.0) ||
            json_number_value(value) > MAX_RATE_MBPS) {
            snprintf(why, why_len, "'rates_mbps.%s' is not a positive rate up to %.0e MB/s", key,
                     MAX_RATE_MBPS);
            return -1;
        }
        e->reference_kernels |= 1u << k;
        if (e->rate_mbps[k] == 0.0) { /* --expect wins over the reference */
            e->rate_mbps[k] = json_number_value(value);
            e->rated_by_reference |= 1u << k;
        }
    }
    return 0;
}

static int take_run_spread(int k, json_t *value, void *ctx)
{
    struct expectations *e = ctx;
    if (!(e->reference_kernels & (1u << k)) || !json_is_number(value) ||
        !(json_number_value(value) >= 0.0) || json_number_value(value) > 100.0)
        return -1;
    e->reference_spread_pct[k] = json_number_value(value);
    e->spread_kernels |= 1u << k;
    return 0;
}

/* A reference from K runs: "reference_runs" and "run_spread_pct" (kernel to the run-to-run
 * spread of its best rates, percent), both optional: older references have neither. */
static int read_runs(json_t *root, struct expectations *e, char *why, size_t why_len)
{
    long long runs;
    if (read_integer(root, "reference", "reference_runs", 1, REFERENCE_RUNS_MAX, 0, &runs, why,
                     why_len))
        return -1;
    e->reference_runs = (int)runs;
    json_t *spread = json_object_get(root, "run_spread_pct");
    if (!spread || each_kernel(spread, take_run_spread, e) == 0) return 0;
    snprintf(why, why_len,
             "'run_spread_pct' must map kernels of 'rates_mbps' to percentages from 0 to 100");
    return -1;
}

static int by_name_ignoring_case(const void *a, const void *b)
{
    return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/* Keys are matched ignoring case ("triad" is Triad), so two keys of one object that differ
 * only in case would let the first one win unseen: -1 naming them. Every object, nested ones
 * too; where names the object. */
static int check_case_duplicates(json_t *v, const char *where, char *why, size_t why_len)
{
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            if (check_case_duplicates(json_array_get(v, i), where, why, why_len)) return -1;
        return 0;
    }
    if (!json_is_object(v)) return 0;
    size_t n = json_object_size(v), i = 0;
    const char **keys = malloc((n ? n : 1) * sizeof(*keys));
    if (!keys) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    const char *key;
    json_t *value;
    int rc = 0;
    json_object_foreach(v, key, value)
    {
        keys[i++] = key;
        if (rc == 0) rc = check_case_duplicates(value, key, why, why_len);
    }
    qsort(keys, n, sizeof(*keys), by_name_ignoring_case);
    for (i = 1; i < n && rc == 0; i++) {
        if (strcasecmp(keys[i - 1], keys[i]) != 0) continue;
        bool ordered = strcmp(keys[i - 1], keys[i]) < 0;
        snprintf(why, why_len,
                 "%s%.40s%s has the keys '%.40s' and '%.40s', which differ only in case and "
                 "mean the same; keep one",
                 where ? "'" : "", where ? where : "the top level", where ? "'" : "",
                 keys[ordered ? i - 1 : i], keys[ordered ? i : i - 1]);
        rc = -1;
    }
    free(keys);
    return rc;
}

/* The file's text, read whole when it is no bigger than REFERENCE_MAX_BYTES; NULL after
 * filling why. */
static char *read_text(int fd, const char *path, const struct stat *st, size_t *len, char *why,
                       size_t why_len)
{
    static const char *const fix = "give the JSON file --save-reference wrote";
    char *buf = st->st_size <= REFERENCE_MAX_BYTES ? malloc(REFERENCE_MAX_BYTES + 1) : NULL;
    size_t n = 0;
    while (buf && n <= REFERENCE_MAX_BYTES) {
        ssize_t got = read(fd, buf + n, REFERENCE_MAX_BYTES + 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(why, why_len, "--reference %s: %s; %s", path, strerror(errno), fix);
            free(buf);
            return NULL;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    if (buf && n <= REFERENCE_MAX_BYTES) {
        *len = n;
        return buf;
    }
    free(buf);
    if (st->st_size > REFERENCE_MAX_BYTES || n > REFERENCE_MAX_BYTES)
        snprintf(why, why_len,
                 "--reference %s is larger than %d KiB, the most a reference may be (one is a "
                 "few KiB); %s",
                 path, REFERENCE_MAX_BYTES >> 10, fix);
    else
        snprintf(why, why_len, "--reference %s: out of memory", path);
    return NULL;
}

int reference_load(const char *path, struct expectations *e, char *why, size_t why_len)
{
    /* non-blocking: a FIFO (or a terminal) given as the file must not wait forever */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, why_len, "--reference %s: %s; give the JSON file --save-reference wrote",
                 path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "--reference %s: %s; give the JSON file --save-reference wrote",
                 path, S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
        close(fd);
        return -1;
    }
    size_t len;
    char *text = read_text(fd, path, &st, &len, why, why_len);
    close(fd);
    if (!text) return -1;
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!root) {
        if (err.line <= 0)
            snprintf(why, why_len, "--reference %s: %s", path, err.text);
        else
            snprintf(why, why_len, "--reference %s: line %d, column %d: %s", path, err.line,
                     err.column, err.text);
        return -1;
    }
    char inner[400] = "";
    json_t *schema = json_object_get(root, "membench_reference");
    int rc = -1;
    if (check_case_duplicates(root, NULL, inner, sizeof(inner)) != 0)
        ; /* inner says which */
    else if (!json_is_object(root) || !json_is_integer(schema))
        snprintf(inner, sizeof(inner), "not a membench reference (no 'membench_reference' key)");
    else if (json_integer_value(schema) != REFERENCE_SCHEMA)
        snprintf(inner, sizeof(inner), "reference schema %lld, this membench reads %d",
                 (long long)json_integer_value(schema), REFERENCE_SCHEMA);
    else if (read_rates(json_object_get(root, "rates_mbps"), e, inner, sizeof(inner)) == 0 &&
             read_runs(root, e, inner, sizeof(inner)) == 0 &&
             read_system(json_object_get(root, "system"), e, inner, sizeof(inner)) == 0 &&
             read_profile(json_object_get(root, "profile"), &e->profile, inner, sizeof(inner)) ==
                 0 &&
             reference_memory_read(json_object_get(root, "memory"), &e->memory, inner,
                                   sizeof(inner)) == 0 &&
             reference_tier_rates_read(json_object_get(root, "tier_rates"), e, inner,
                                       sizeof(inner)) == 0)
        rc = 0;
    if (rc != 0) snprintf(why, why_len, "--reference %s: %s", path, inner);
    json_decref(root);
    return rc;
}

int reference_check_kernels(const char *path, const struct expectations *e, unsigned run_mask,
                            bool acceptance, char *why, size_t why_len)
{
    unsigned missing = e->reference_kernels & ~run_mask;
    if (!missing) return 0;
    char names[128] = "", flags[128] = "";
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (missing & (1u << k)) {
            snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                     names[0] ? ", " : "", kernel_table[k].name);
            snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags), "%s%s",
                     flags[0] ? " " : "", kernel_table[k].flag);
        }
    if (acceptance)
        snprintf(why, why_len,
                 "--reference %s holds rates for %s, which the acceptance profile does not "
                 "measure; use a reference saved with --acceptance",
                 path, names);
    else
        snprintf(why, why_len,
                 "--reference %s holds rates for %s, which this run does not measure; add %s "
                 "(every kernel of the reference must run)",
                 path, names, flags);
    return -1;
}

/* A reference from K > 1 runs: K, each kernel's run-to-run spread and its runs' best rates. */
static void add_runs(json_t *root, const struct run_result *run, const struct reference_runs *k)
{
    json_object_set_new(root, "reference_runs", json_integer(k ? k->runs : 1));
    if (!k || k->runs < 2) return;
    json_t *spread = json_object(), *each = json_object();
    for (int i = 0; i < run->n_results; i++) {
        enum kernel_id id = run->results[i].kernel;
        json_object_set_new(spread, kernel_table[id].name, json_real(100.0 * k->spread[id]));
        json_t *list = json_array();
        for (int j = 0; j < k->runs; j++)
            json_array_append_new(list, json_real(k->best_mbps[id][j]));
        json_object_set_new(each, kernel_table[id].name, list);
    }
    json_object_set_new(root, "run_spread_pct", spread);
    json_object_set_new(root, "run_rates_mbps", each);
    json_object_set_new(root, "run_interval_s", json_real(k->interval_s));
    json_object_set_new(root, "run_span_s", json_real(k->span_s));
}

int reference_write(FILE *out, const struct node_facts *node, const struct run_result *run,
                    const struct reference_runs *runs)
{
    json_t *rates = json_object(), *kinds = json_object();
    for (int i = 0; i < run->n_results; i++) {
        const struct kernel_result *r = &run->results[i];
        json_object_set_new(kinds, kernel_table[r->kernel].name,
                            json_string(r->stores == STORES_NT ? "nt" : "normal"));
        json_object_set_new(rates, kernel_table[r->kernel].name,
                            json_real(runs ? runs->median_mbps[r->kernel] : r->best_rate_mbps));
    }
    json_t *profile = run_profile_reference_json(&run->config);
    json_object_set_new(profile, "kernel_stores", kinds);
    json_object_set_new(profile, "topology", json_string(node->topo->source));
    long long pool = hugepage_pool_total(node->sys, PAGE_2M);
    json_t *root = json_pack(
        "{s:i,s:s,s:s,s:o,"
        "s:{s:s,s:s,s:i,s:i,s:i,s:i,s:I,s:s,s:s,s:I},"
        "s:o}",
        "membench_reference", REFERENCE_SCHEMA, "membench_version", node->version, "created",
        node->prov->start_iso, "profile", profile, "system", "hostname", node->sys->hostname,
        "cpu_model", node->topo->cpu_model, "cores", node->topo->cores, "pus", node->topo->pus,
        "packages", node->topo->packages, "numa_nodes", node->topo->numa_nodes, "mem_total_bytes",
        (json_int_t)node->prov->mem_total_bytes, "thp_enabled", node->sys->thp_enabled, "governor",
        node->prov->governor, "hugepages_2m_total", (json_int_t)pool, "rates_mbps", rates);
    if (root) add_runs(root, run, runs);
    if (root && node->memory)
        json_object_set_new(root, "memory", reference_memory_json(node->memory));
    json_t *tiers = root ? reference_tier_rates_json(node) : NULL;
    if (tiers) json_object_set_new(root, "tier_rates", tiers);
    int rc = root ? json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
    fputc('\n', out);
    json_decref(root);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
