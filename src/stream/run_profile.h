#ifndef MEMBENCH_RUN_PROFILE_H
#define MEMBENCH_RUN_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "src/stream/plan.h"

/* The run profile, declared once: every parameter of a STREAM run that a report, a reference
 * or a comparison names is one row of run_profile[] (run_profile.c), in the order of the JSON
 * report's "config" object. The JSON config, the CSV's profile columns, a reference's
 * "profile" (written and read back), the acceptance checks of a reference's profile and the
 * page comparison's pairing are all generated from the rows. */

/* What a reference's rates were measured with, as read back from its "profile"; absent fields
 * (-1, "") are not compared. The rows with a .ref key are read into it (.ref_at). */
struct reference_profile {
    bool present; /* false for a reference without "profile": its rates are checked alone */
    long long threads, elements, offset;
    char bind[72], type[16], stores[16], pages[16], isa[16];
    char topology[200];              /* the topology source it was measured on ("this machine") */
    bool has_kernel_stores;          /* "kernel_stores": each kernel's store kind */
    int kernel_stores[KERNEL_COUNT]; /* enum store_kind; -1 = the kernel is not listed */
};

/* How a row's member of struct run_config reads. */
enum profile_kind {
    PROFILE_UINT,    /* unsigned */
    PROFILE_INT,     /* int */
    PROFILE_U64,     /* uint64_t */
    PROFILE_SIZE,    /* size_t */
    PROFILE_BOOL,    /* bool: true/false */
    PROFILE_TEXT,    /* const char * */
    PROFILE_CHARS,   /* char[] */
    PROFILE_TYPE,    /* enum elem_type: its name */
    PROFILE_ISA,     /* enum isa: its name */
    PROFILE_DOMAIN,  /* enum domain_kind: its name */
    PROFILE_KERNELS, /* unsigned kernel mask: the kernels' names, in table order */
    PROFILE_CALLER,  /* not in run_config: the writer's caller fills it in */
};

/* When a value is null (JSON null, an empty CSV field) instead of the member. */
enum profile_null {
    NULL_NEVER,
    NULL_IF_ZERO,     /* 0 means unknown */
    NULL_UNLESS_CELL, /* only a --matrix cell has it */
};

struct profile_field {
    const char *key;   /* in the JSON config, the CSV header and a reference's "profile" */
    bool json;         /* in the JSON report's "config" (at this row's place) */
    bool csv;          /* a CSV column: where the CSV's layout names it, else appended */
    int ref;           /* its place in a reference's "profile", from 1; 0: not recorded */
    const char *check; /* the acceptance check that compares it with a reference's; NULL none */
    bool paired;       /* page A/B comparison: runs pair only when it is equal */
    enum profile_kind kind;
    size_t at; /* the member of struct run_config */
    enum profile_null null;
    const char *absent;      /* PROFILE_TEXT: the text when the member is NULL */
    size_t fallback_at;      /* PROFILE_TEXT: when NULL, the text member at fallback_at */
    size_t ref_at, ref_size; /* read back into struct reference_profile (ref_size 0: not) */
    long long ref_max;       /* numbers read back: the largest a reference may record */
};

extern const struct profile_field run_profile[];
extern const size_t run_profile_rows;

/* A row's value for one run. */
struct profile_value {
    enum { VALUE_NULL, VALUE_NUMBER, VALUE_TEXT, VALUE_BOOL, VALUE_KERNELS } kind;
    long long number; /* VALUE_NUMBER; VALUE_BOOL 0/1; VALUE_KERNELS the mask */
    const char *text; /* VALUE_TEXT, NULL when the run has none */
};

void profile_value_of(const struct profile_field *f, const struct run_config *c,
                      struct profile_value *v);

/* Whether a row's value is a number (read back as one) rather than a text. */
bool profile_field_is_number(const struct profile_field *f);

/* The row of key (its first len bytes), or at place pos of a reference's profile; NULL when
 * none. */
const struct profile_field *run_profile_find(const char *key, size_t len);
const struct profile_field *run_profile_ref_at(int pos);

/* The value as JSON (a new reference): numbers, strings, booleans, the kernels as an array
 * of names; NULL when it has no JSON form (a text member that is NULL: the key is left out). */
json_t *profile_value_json(const struct profile_value *v);

/* The JSON report's "config" object of one run. */
json_t *run_profile_json(const struct run_config *c);

/* A reference's "profile" object of one run; the PROFILE_CALLER rows hold null, in their
 * place, for the caller to set. */
json_t *run_profile_reference_json(const struct run_config *c);

/* Whether two runs differ only in what the page comparison varies (the rows not .paired). */
bool run_profile_paired(const struct run_config *a, const struct run_config *b);

#endif
