#ifndef MEMBENCH_CLUSTER_OPTIONS_H
#define MEMBENCH_CLUSTER_OPTIONS_H

#include <stddef.h>

#include "src/cli/cli.h"

/* Every rank of a cluster run must have the same options_describe() text (src/cli). */

/* 0 when the two texts are equal; else 1 with the first line that differs from each. */
int options_difference(const char *mine, const char *theirs, char *my_line, size_t my_len,
                       char *their_line, size_t their_len);

/* What a cluster run cannot do with these options (a sweep, --save-reference): EXIT_USAGE
 * with the reason and the remedy in why, else 0. */
int cluster_refusal(const struct options *o, char *why, size_t why_len);

#endif
