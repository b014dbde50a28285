#ifndef MEMBENCH_STATS_H
#define MEMBENCH_STATS_H

#include <stddef.h>

/* qsort comparator for doubles, ascending. */
int compare_doubles(const void *x, const void *y);

/* Sorts v[0..n) ascending and returns its median (the mean of the middle two for even n);
 * n must be at least 1. */
double median_sorting(double *v, size_t n);

#endif
