#ifndef MEMBENCH_OPTION_TABLE_H
#define MEMBENCH_OPTION_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "src/cli/cli.h"
#include "src/measure/option_row.h"

/* The option table: src/cli's rows and every measurement's (their descriptors' .options), in
 * --help order, each row's .field, .count and .block an offset in struct options and its
 * .applies bits of option_measures(). option_table_build() assembles it; cli_parse,
 * cli_print_help and options_describe call it first. */
/* src/cli's own rows, each span in --help order: the usage, the heading of the measurements'
 * rows after the kernels', the "Options" heading and the node's options. */
struct option_span {
    const struct option_row *rows;
    size_t n;
};
extern const struct option_span cli_usage, cli_probes_heading, cli_options_heading, cli_node_rows;

extern struct option_row option_table[];
extern size_t option_table_rows;
void option_table_build(void);

/* Every measurement's options block in o (zeroed) given its defaults. */
void options_init_blocks(struct options *o);

/* How many values an ARG_LIST row holds in o: its count is a size_t or an int. */
size_t option_count(const struct options *o, const struct option_row *r);

/* An ARG_LIST row given arg (as option): 0, or 1 after a usage error. */
int option_list_add(struct options *o, const struct option_row *r, const char *option,
                    const char *arg);

/* The items of an ARG_LIST row as they would be given; false when none. */
bool option_list_show(const struct options *o, const struct option_row *r, char *buf, size_t len);

/* The bits of what o asks to measure: one per ask of each measurement, in --help order. */
unsigned option_measures(const struct options *o);

/* "the kernels, --tlb and --latency": the asks of mask, in --help order. */
void option_measures_text(unsigned mask, char *buf, size_t len);

/* How to ask for what mask names: the one ask's .add or name, else "one of them". */
void option_measures_add(unsigned mask, char *buf, size_t len);

#endif
