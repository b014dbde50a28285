#ifndef MEMBENCH_OPTION_ROW_H
#define MEMBENCH_OPTION_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every command-line option is one row: a measurement declares its own rows (struct
 * measure_options, its descriptor's .options) and src/cli the node's, from which src/cli
 * assembles its option table in --help order: getopt_long's table, the short-option string,
 * the parsing, --help and the option rule are all generated from the rows. */

enum arg_kind {
    ARG_TEXT,    /* not an option: .help is printed as it is, between the options */
    ARG_KERNELS, /* one flag per kernel_table row whose bit is in .bits: sets it at .field */
    ARG_SET,     /* flag: the bool at .field becomes true */
    ARG_CLEAR,   /* flag: the bool at .field becomes false */
    ARG_BITS,    /* flag: .bits are set in the unsigned at .field */
    ARG_HELP,
    ARG_VERSION,
    /* the kinds below take a value */
    ARG_UINT,   /* a whole number in [.min, .max] */
    ARG_REAL,   /* a number in [.min, .max] */
    ARG_CHOICE, /* one of the choices: its index + .min goes to the enum at .field */
    ARG_LIST,   /* a comma list: .list parses each item into the array at .field */
    ARG_NAME,   /* a non-empty file or directory name */
    ARG_CUSTOM, /* .set() parses and stores it in its block */
};

enum option_flag {
    OPTF_PROFILE = 1u << 0, /* chooses what is measured: --acceptance refuses it */
    OPTF_ONCE = 1u << 2,    /* list_numbers: a number listed twice is kept once */
    OPTF_LOCAL = 1u << 3,   /* this process's own (-o, -q): ranks of a cluster run may differ */
    /* a measurement's row whose value goes to the shared options (its .field an offset in
     * struct shared_options, src/measure/shared_options.h), not to its own block */
    OPTF_SHARED = 1u << 4,
};

struct option_row;
struct measure_shared;

/* The array an ARG_LIST item goes to: .n items there, .full when no more fit. */
struct list_items {
    void *at;
    size_t n;
    bool full;
};

enum list_added { LIST_ADDED, LIST_SKIPPED, LIST_FULL, LIST_ERROR /* after a usage error */ };

/* How an ARG_LIST row reads and shows its items. */
struct list_kind {
    size_t item_size;
    /* the item at .at[.n]: 0, or -1 with why (reported as "--option: why") */
    int (*parse)(const char *item, void *out, char *why, size_t why_len);
    /* instead of .parse: the whole check, item and list */
    enum list_added (*add)(const struct option_row *r, const char *option, const char *item,
                           const struct list_items *to);
    void (*show)(const void *item, char *buf, size_t len);
    const char *separator;            /* between the items shown */
    int (*one_item)(const char *arg); /* NULL, or whether the whole value is one item */
};

/* The list kinds: the row's choices, whole numbers in [.min, .max], sizes, bind policies. */
extern const struct list_kind list_words, list_numbers, list_sizes, list_binds;

struct option_row {
    const char *name; /* "threads" */
    char short_name;  /* 't', or 0 */
    enum arg_kind kind;
    const char *arg;  /* the value in --help ("N[,N...]"); NULL: the choices joined by '|' */
    const char *help; /* after the name; each '\n' but the last starts a line at .col */
    /* where the value goes: offsets in the options block of the rows (a measurement's own
     * struct, or struct shared_options with OPTF_SHARED; src/cli's table: in struct options,
     * .block where the rows' block starts) */
    size_t field, field_size, count, count_size, block;
    uint64_t min, max;
    unsigned bits;
    const char *hint; /* ARG_UINT: why the bounds, ARG_REAL: what to give, ARG_NAME: what */
    const char *const *choices;         /* NULL-terminated */
    const char *(*choice_at)(size_t i); /* instead of choices: the i-th, NULL after the last */
    const struct list_kind *list;       /* ARG_LIST */
    int (*set)(void *block, const char *arg); /* ARG_CUSTOM: 0, or 1 after the error */
    /* ARG_CUSTOM: the value set, as it would be given ("" when not given) */
    void (*show)(const void *block, char *buf, size_t len);
    /* what it changes: a measurement's row, bits of its .asks (1u: the first); src/cli's, the
     * APPLIES_ kinds; in src/cli's table, the bits of option_measures() */
    unsigned applies;
    unsigned flags;
    int col;       /* --help column of the text; 0: that of the row above */
    int first_col; /* a wider column for the first line only; 0: .col */
};

/* A measurement's row with one ask applies to it: APPLIES_OWN. A src/cli row's .applies:
 * every measurement, or the judged one (.judged: the kernels). */
enum { APPLIES_OWN = 1u << 0, APPLIES_ALL = 1u << 29, APPLIES_CORE = 1u << 30 };

/* One thing a measurement may be asked for: a bit of the option rule. An option given to a
 * run none of whose asked things it applies to is refused, so that no option is accepted and
 * ignored. */
struct option_ask {
    const char *name; /* "--tlb", "the kernels": in the rule's messages */
    const char *add;  /* how to ask for it, when not by its name: "a kernel (e.g. --triad)" */
    bool (*asked)(const void *block);
};

/* A measurement's command line: its rows write into its options block (block_size bytes that
 * src/cli holds, one per row of its table of measurements), and request turns that block into
 * the measurement's request. */
struct measure_options {
    size_t block_size;
    void (*init)(void *block); /* the defaults of the zeroed block; or NULL */
    /* fills the measurement's request (its .request_size bytes, zeroed) from its block and
     * what it may read of the node's options; the request may point into both */
    void (*request)(const void *block, const struct measure_shared *shared, void *request);
    unsigned rank; /* its place among the measurements' in --help and in the rule's lists */
    /* --help's first part: what asks for it and its own options; then its rows of the
     * "Options" part, shared with the other measurements */
    const struct option_row *asking, *common;
    size_t n_asking, n_common;
    const struct option_ask *asks;
    size_t n_asks;
    const char *const *uses; /* NULL-terminated: another measurement's rows it reads too */
};

#define OPTION_AT(type, member)                                                                    \
    .field = offsetof(type, member), .field_size = sizeof(((type *)0)->member)
#define OPTION_COUNT(type, member)                                                                 \
    .count = offsetof(type, member), .count_size = sizeof(((type *)0)->member)
#define OPTION_SHARED_AT(member) OPTION_AT(struct shared_options, member)
#define OPTION_SHARED_COUNT(member) OPTION_COUNT(struct shared_options, member)
#define OPTION_TEXT(text)                                                                          \
    {                                                                                              \
        .kind = ARG_TEXT, .help = text                                                             \
    }
#define OPTION_N(rows) (sizeof(rows) / sizeof((rows)[0]))

/* The i-th accepted value of a row (.choices or .choice_at), NULL past the last. */
const char *option_choice(const struct option_row *r, size_t i);

/* "text|csv|json": the row's choices joined by sep. */
void option_join_choices(const struct option_row *r, const char *sep, char *buf, size_t len);

/* One usage error on stderr, "; see membench --help" appended; returns 1. */
int option_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Calls each(item, ctx) for every item of a comma list; a malformed list is reported for
 * option. Returns 0, or 1 after a usage error. */
int option_list(const char *option, const char *list, int (*each)(const char *, void *), void *ctx);

#endif
