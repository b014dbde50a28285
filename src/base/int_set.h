#ifndef MEMBENCH_INT_SET_H
#define MEMBENCH_INT_SET_H

#include <string.h>

/* A set of ints kept sorted in set[0..n): adds v (room for one more) unless it is there, and
 * returns the new count. */
static inline int int_set_add(int *set, int n, int v)
{
    int at = 0;
    while (at < n && set[at] < v)
        at++;
    if (at < n && set[at] == v) return n;
    memmove(set + at + 1, set + at, (size_t)(n - at) * sizeof(int));
    set[at] = v;
    return n + 1;
}

#endif
