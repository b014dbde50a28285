#ifndef MEMBENCH_NODE_H
#define MEMBENCH_NODE_H

#include <stddef.h>

#include "src/cli/cli.h"

/* The node benchmark: plans, measures, judges and writes the report of this machine. With
 * json not NULL (a cluster run), the report is also written as JSON into *json (malloc'd,
 * *json_len bytes). Returns the exit status. */
int node_main(struct options *opts, char **json, size_t *json_len);

#endif
