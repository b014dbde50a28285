#ifndef MEMBENCH_OPTION_TABLE_H
#define MEMBENCH_OPTION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/cli/cli.h"

/* Every command-line option is one row of option_table, in --help order: getopt_long's table,
 * the short-option string, the parsing and --help are all generated from the rows. */

enum arg_kind {
    ARG_TEXT,    /* not an option: .help is printed as it is, between the options */
    ARG_KERNELS, /* one flag per kernel_table row whose bit is in .bits: sets it in kernel_mask */
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
    ARG_CUSTOM, /* .set() parses and stores it */
};

/* The measurements a run can make. Each row says which of them it changes (.applies): an
 * option given to a run none of whose measurements it applies to is refused, so that no
 * option is accepted and ignored. */
enum measure_bit {
    MEASURE_STREAM = 1u << 0, /* the kernels: STREAM's four, the extra ones, --matrix's cells */
    MEASURE_TLB = 1u << 1,
    MEASURE_LATENCY = 1u << 2,
    MEASURE_FAULTS = 1u << 3,
    MEASURE_SHOOTDOWN = 1u << 4,
    MEASURE_TIMER = 1u << 5,
    MEASURE_ALL = (1u << 6) - 1, /* what reports, places or bounds the run, whatever it measures */
};

enum option_flag {
    OPTF_PROFILE = 1u << 0, /* chooses what is measured: --acceptance refuses it */
    OPTF_ONCE = 1u << 2,    /* list_numbers: a number listed twice is kept once */
    OPTF_LOCAL = 1u << 3,   /* this process's own (-o, -q): ranks of a cluster run may differ */
};

struct option_row;

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
    size_t field, field_size, count, count_size; /* where the value goes in struct options */
    uint64_t min, max;
    unsigned bits;
    const char *hint; /* ARG_UINT: why the bounds, ARG_REAL: what to give, ARG_NAME: what */
    const char *const *choices;         /* NULL-terminated */
    const char *(*choice_at)(size_t i); /* instead of choices: the i-th, NULL after the last */
    const struct list_kind *list;       /* ARG_LIST */
    int (*set)(struct options *o, const char *arg); /* ARG_CUSTOM: 0, or 1 after the error */
    /* ARG_CUSTOM: the value set, as it would be given ("" when not given) */
    void (*show)(const struct options *o, char *buf, size_t len);
    unsigned applies; /* the enum measure_bit measurements it changes */
    unsigned flags;
    int col;       /* --help column of the text; 0: that of the row above */
    int first_col; /* a wider column for the first line only; 0: .col */
};

extern const struct option_row option_table[];
extern const size_t option_table_rows;

/* The i-th accepted value of a row (.choices or .choice_at), NULL past the last. */
const char *option_choice(const struct option_row *r, size_t i);

/* How many values an ARG_LIST row holds in o: its count is a size_t or an int. */
size_t option_count(const struct options *o, const struct option_row *r);

/* The measurements o asks for (enum measure_bit). */
unsigned option_measures(const struct options *o);

/* "the STREAM kernels, --tlb and --latency": the measurements of mask, in table order. */
void option_measures_text(unsigned mask, char *buf, size_t len);

/* One usage error on stderr, "; see membench --help" appended; returns 1. */
int option_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Calls each(item, ctx) for every item of a comma list; a malformed list is reported for
 * option. Returns 0, or 1 after a usage error. */
int option_list(const char *option, const char *list, int (*each)(const char *, void *), void *ctx);

/* An ARG_LIST row given arg (as option): 0, or 1 after a usage error. */
int option_list_add(struct options *o, const struct option_row *r, const char *option,
                    const char *arg);

/* The items of an ARG_LIST row as they would be given; false when none. */
bool option_list_show(const struct options *o, const struct option_row *r, char *buf, size_t len);

/* "text|csv|json": the row's choices joined by sep. */
void option_join_choices(const struct option_row *r, const char *sep, char *buf, size_t len);

/* --isa, or MEMBENCH_ISA (source names which): 0, or 1 after a usage error. */
int option_force_isa(struct options *o, const char *source, const char *arg);

/* The setters of the probe options (cli_probes.c), and what they set. */
int set_faults_size(struct options *o, const char *arg);
int set_faults_backing(struct options *o, const char *arg);
void show_faults_size(const struct options *o, char *buf, size_t len);
void show_faults_backing(const struct options *o, char *buf, size_t len);
int set_latency_size(struct options *o, const char *arg);
void show_latency_size(const struct options *o, char *buf, size_t len);

#endif
