#include "src/stream/run_profile.h"

#include <stdint.h>
#include <string.h>

#define RUN(member) .at = offsetof(struct run_config, member)
#define REF(member, max)                                                                           \
    .ref_at = offsetof(struct reference_profile, member),                                          \
    .ref_size = sizeof(((struct reference_profile *)0)->member), .ref_max = (max)

/* A header that defines RUN_PROFILE_EXTRA as more rows: the build of the test that a run
 * parameter's outputs are one row (tests/unit/extra_profile_row.h) names one. */
#ifdef MEMBENCH_EXTRA_PROFILE_ROW
#include MEMBENCH_EXTRA_PROFILE_ROW
#else
#define RUN_PROFILE_EXTRA
#endif

/* In the JSON config's order; a new reference key goes after the last one. */
const struct profile_field run_profile[] = {
    {.key = "threads",
     .json = true,
     .csv = true,
     .ref = 1,
     .check = "threads",
     .paired = true,
     .kind = PROFILE_UINT,
     RUN(threads),
     REF(threads, 1 << 20)},
    {.key = "threads_from", .json = true, .kind = PROFILE_TEXT, RUN(threads_from)},
    {.key = "bind",
     .json = true,
     .csv = true,
     .ref = 2,
     .check = "binding",
     .paired = true,
     .kind = PROFILE_CHARS,
     RUN(bind),
     REF(bind, 0)},
    {.key = "pages",
     .json = true,
     .csv = true,
     .ref = 7,
     .check = "pages",
     .kind = PROFILE_TEXT,
     RUN(pages),
     REF(pages, 0)},
    {.key = "array_elements",
     .json = true,
     .csv = true,
     .ref = 3,
     .check = "array size",
     .paired = true,
     .kind = PROFILE_U64,
     RUN(elements),
     REF(elements, 1ll << 60)},
    {.key = "array_bytes", .json = true, .csv = true, .kind = PROFILE_U64, RUN(array_bytes)},
    {.key = "total_bytes", .json = true, .kind = PROFILE_U64, RUN(total_bytes)},
    {.key = "size_rule", .json = true, .kind = PROFILE_CHARS, RUN(size_label)},
    {.key = "ntimes", .json = true, .csv = true, .paired = true, .kind = PROFILE_UINT, RUN(ntimes)},
    {.key = "stores",
     .json = true,
     .ref = 5,
     .check = "stores",
     .kind = PROFILE_TEXT,
     RUN(stores),
     REF(stores, 0)},
    {.key = "type",
     .json = true,
     .csv = true,
     .ref = 4,
     .check = "type",
     .paired = true,
     .kind = PROFILE_TYPE,
     RUN(type),
     REF(type, 0)},
    {.key = "offset",
     .json = true,
     .csv = true,
     .ref = 8,
     .check = "offset",
     .paired = true,
     .kind = PROFILE_SIZE,
     RUN(offset),
     REF(offset, 1ll << 40)},
    {.key = "kernels",
     .json = true,
     .ref = 10,
     .paired = true,
     .kind = PROFILE_KERNELS,
     RUN(kernel_mask)},
    {.key = "llc_count_used",
     .json = true,
     .kind = PROFILE_INT,
     RUN(llc_count),
     .null = NULL_IF_ZERO},
    {.key = "llc_bytes_used",
     .json = true,
     .kind = PROFILE_U64,
     RUN(llc_bytes),
     .null = NULL_IF_ZERO},
    {.key = "pages_from", .json = true, .kind = PROFILE_TEXT, RUN(pages_from), .absent = "default"},
    {.key = "per_domain", .json = true, .kind = PROFILE_DOMAIN, RUN(per_domain)},
    {.key = "below_stream_rule",
     .json = true,
     .csv = true,
     .kind = PROFILE_BOOL,
     RUN(below_stream_rule)},
    {.key = "memcache_bytes_used",
     .json = true,
     .kind = PROFILE_U64,
     RUN(memcache.bytes),
     .null = NULL_IF_ZERO},
    {.key = "in_memory_side_cache", .json = true, .kind = PROFILE_BOOL, RUN(in_memcache)},
    /* with --stores auto each run uses the kind it measured: runs pair by what was asked */
    {.key = "stores_requested",
     .json = true,
     .paired = true,
     .kind = PROFILE_TEXT,
     RUN(stores_requested),
     .fallback_at = offsetof(struct run_config, stores)},
    {.key = "tuned", .json = true, .csv = true, .kind = PROFILE_BOOL, RUN(tuned)},
    {.key = "isa",
     .json = true,
     .csv = true,
     .ref = 9,
     .check = "isa",
     .kind = PROFILE_ISA,
     RUN(isa),
     REF(isa, 0)},
    {.key = "cpu_node",
     .json = true,
     .csv = true,
     .kind = PROFILE_INT,
     RUN(cpu_node),
     .null = NULL_UNLESS_CELL},
    {.key = "mem_node",
     .json = true,
     .csv = true,
     .kind = PROFILE_INT,
     RUN(mem_node),
     .null = NULL_UNLESS_CELL},
    {.key = "firmware_mbps",
     .json = true,
     .csv = true,
     .kind = PROFILE_U64,
     RUN(firmware_mbps),
     .null = NULL_IF_ZERO},
    /* a reference's: each kernel's store kind, and the topology it was measured on */
    {.key = "kernel_stores", .ref = 6, .kind = PROFILE_CALLER, .at = 0},
    {.key = "topology",
     .ref = 11,
     .check = "topology",
     .kind = PROFILE_CALLER,
     .at = 0,
     REF(topology, 0)},
    RUN_PROFILE_EXTRA};
const size_t run_profile_rows = sizeof(run_profile) / sizeof(run_profile[0]);

static const void *member(const struct run_config *c, size_t at)
{
    return (const char *)c + at;
}

static long long number_of(const struct profile_field *f, const struct run_config *c)
{
    const void *m = member(c, f->at);
    switch (f->kind) {
    case PROFILE_UINT: return *(const unsigned *)m;
    case PROFILE_INT: return *(const int *)m;
    case PROFILE_U64: return (long long)*(const uint64_t *)m;
    case PROFILE_SIZE: return (long long)*(const size_t *)m;
    case PROFILE_BOOL: return *(const bool *)m;
    case PROFILE_KERNELS: return *(const unsigned *)m;
    default: return 0;
    }
}

static const char *text_of(const struct profile_field *f, const struct run_config *c)
{
    const void *m = member(c, f->at);
    const char *text;
    switch (f->kind) {
    case PROFILE_CHARS: return (const char *)m;
    case PROFILE_TYPE: return elem_type_name(*(const enum elem_type *)m);
    case PROFILE_ISA: return isa_name(*(const enum isa *)m);
    case PROFILE_DOMAIN: return domain_kind_name(*(const enum domain_kind *)m);
    case PROFILE_TEXT:
        text = *(const char *const *)m;
        if (!text && f->fallback_at) text = *(const char *const *)member(c, f->fallback_at);
        return text ? text : f->absent;
    default: return NULL;
    }
}

bool profile_field_is_number(const struct profile_field *f)
{
    return f->kind == PROFILE_UINT || f->kind == PROFILE_INT || f->kind == PROFILE_U64 ||
           f->kind == PROFILE_SIZE;
}

void profile_value_of(const struct profile_field *f, const struct run_config *c,
                      struct profile_value *v)
{
    memset(v, 0, sizeof(*v));
    if (f->kind == PROFILE_CALLER) return;
    if ((f->null == NULL_IF_ZERO && number_of(f, c) == 0) ||
        (f->null == NULL_UNLESS_CELL && !c->numa_cell))
        return;
    v->number = number_of(f, c);
    if (profile_field_is_number(f))
        v->kind = VALUE_NUMBER;
    else if (f->kind == PROFILE_BOOL)
        v->kind = VALUE_BOOL;
    else if (f->kind == PROFILE_KERNELS)
        v->kind = VALUE_KERNELS;
    else {
        v->kind = VALUE_TEXT;
        v->text = text_of(f, c);
    }
}

const struct profile_field *run_profile_find(const char *key, size_t len)
{
    for (size_t i = 0; i < run_profile_rows; i++)
        if (strlen(run_profile[i].key) == len && strncmp(run_profile[i].key, key, len) == 0)
            return &run_profile[i];
    return NULL;
}

const struct profile_field *run_profile_ref_at(int pos)
{
    for (size_t i = 0; i < run_profile_rows; i++)
        if (run_profile[i].ref == pos) return &run_profile[i];
    return NULL;
}

json_t *profile_value_json(const struct profile_value *v)
{
    switch (v->kind) {
    case VALUE_NUMBER: return json_integer((json_int_t)v->number);
    case VALUE_BOOL: return json_boolean(v->number);
    case VALUE_TEXT: return json_string(v->text);
    case VALUE_KERNELS: {
        json_t *names = json_array();
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (v->number & (1ll << k))
                json_array_append_new(names, json_string(kernel_table[k].name));
        return names;
    }
    default: return json_null();
    }
}

json_t *run_profile_json(const struct run_config *c)
{
    json_t *o = json_object();
    for (size_t i = 0; i < run_profile_rows; i++) {
        if (!run_profile[i].json) continue;
        struct profile_value v;
        profile_value_of(&run_profile[i], c, &v);
        json_object_set_new(o, run_profile[i].key, profile_value_json(&v));
    }
    return o;
}

json_t *run_profile_reference_json(const struct run_config *c)
{
    json_t *o = json_object();
    const struct profile_field *f;
    for (int pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++) {
        struct profile_value v;
        profile_value_of(f, c, &v);
        json_object_set_new(o, f->key, profile_value_json(&v));
    }
    return o;
}

static bool same_value(const struct profile_value *a, const struct profile_value *b)
{
    if (a->kind != b->kind) return false;
    if (a->kind != VALUE_TEXT) return a->number == b->number;
    return a->text && b->text ? strcmp(a->text, b->text) == 0 : a->text == b->text;
}

bool run_profile_paired(const struct run_config *a, const struct run_config *b)
{
    for (size_t i = 0; i < run_profile_rows; i++) {
        if (!run_profile[i].paired) continue;
        struct profile_value va, vb;
        profile_value_of(&run_profile[i], a, &va);
        profile_value_of(&run_profile[i], b, &vb);
        if (!same_value(&va, &vb)) return false;
    }
    return true;
}
