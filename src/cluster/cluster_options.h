#ifndef MEMBENCH_CLUSTER_OPTIONS_H
#define MEMBENCH_CLUSTER_OPTIONS_H

#include <stddef.h>

#include "src/cli/cli.h"

/* The options that change what a node measures or how it is judged, one "--name value" line
 * each in a fixed order ("no --name" when not given): every rank of a cluster run must have
 * the same text. -o, --quiet and --format's target are rank 0's own and not in it. Returns a
 * malloc'd string, or NULL when out of memory. */
char *options_fingerprint(const struct options *o);

/* 0 when the two texts are equal; else 1 with the first line that differs from each. */
int options_difference(const char *mine, const char *theirs, char *my_line, size_t my_len,
                       char *their_line, size_t their_len);

/* What a cluster run cannot do with these options (a sweep, --save-reference): EXIT_USAGE
 * with the reason and the remedy in why, else 0. */
int cluster_refusal(const struct options *o, char *why, size_t why_len);

#endif
