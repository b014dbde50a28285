#ifndef MEMBENCH_WARNINGS_H
#define MEMBENCH_WARNINGS_H

#include <stddef.h>

/* Appends one formatted line to a table of `max` lines of `width` bytes each (`lines` is its
 * first line), cut at width - 1 bytes; *n counts the lines. A line past `max` is dropped. */
void warnings_add(char *lines, size_t width, int max, int *n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* For a result struct with `char warnings[MAX][WIDTH]` and `int n_warnings`. */
#define WARNINGS_ADD(result, ...)                                                                  \
    warnings_add((result)->warnings[0], sizeof((result)->warnings[0]),                             \
                 (int)(sizeof((result)->warnings) / sizeof((result)->warnings[0])),                \
                 &(result)->n_warnings, __VA_ARGS__)

#endif
