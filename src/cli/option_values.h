#ifndef MEMBENCH_OPTION_VALUES_H
#define MEMBENCH_OPTION_VALUES_H

#include "src/cli/cli.h"

/* Every option's value after parsing, one "--name value" line per row of option_table in its
 * order ("--name" for a flag that is set, "no --name" for one that is not or a value not
 * given), generated from the rows: a new option is in it without an edit here. Rows marked
 * OPTF_LOCAL (-o, --quiet) are left out. Returns a malloc'd string, or NULL when out of
 * memory. */
char *options_describe(const struct options *o);

#endif
