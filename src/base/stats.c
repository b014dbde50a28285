#include "src/base/stats.h"

#include <stdlib.h>

int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double median_sorting(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
