/* MEMBENCH_TEST_SLOW_STORES=KIND: the kernels with that store kind are 4x slower, so that
 * --stores auto has a clear winner to find on any machine. */
#include "tests/hooks/slow_stores.h"

#include <string.h>
#include <time.h>

static int slow_kind = -1;
static kernel_fn original[KERNEL_COUNT];

int slow_stores_select(const char *kind)
{
    if (strcmp(kind, "normal") == 0)
        slow_kind = STORES_NORMAL;
    else if (strcmp(kind, "nt") == 0)
        slow_kind = STORES_NT;
    else
        return -1;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double slowly(enum kernel_id k, void *a, void *b, void *c, size_t begin, size_t end,
                     double q)
{
    double start = now_s();
    double sum = original[k](a, b, c, begin, end, q);
    double until = start + 4.0 * (now_s() - start);
    while (now_s() < until)
        ;
    return sum;
}

#define SLOW(K)                                                                                    \
    static double slow_##K(void *a, void *b, void *c, size_t begin, size_t end, double q)          \
    {                                                                                              \
        return slowly(K, a, b, c, begin, end, q);                                                  \
    }
SLOW(KERNEL_COPY)
SLOW(KERNEL_SCALE)
SLOW(KERNEL_ADD)
SLOW(KERNEL_TRIAD)
SLOW(KERNEL_DOT)
SLOW(KERNEL_READ)
SLOW(KERNEL_WRITE)
SLOW(KERNEL_NSTREAM)

static const kernel_fn slow[KERNEL_COUNT] = {
    [KERNEL_COPY] = slow_KERNEL_COPY,   [KERNEL_SCALE] = slow_KERNEL_SCALE,
    [KERNEL_ADD] = slow_KERNEL_ADD,     [KERNEL_TRIAD] = slow_KERNEL_TRIAD,
    [KERNEL_DOT] = slow_KERNEL_DOT,     [KERNEL_READ] = slow_KERNEL_READ,
    [KERNEL_WRITE] = slow_KERNEL_WRITE, [KERNEL_NSTREAM] = slow_KERNEL_NSTREAM,
};

kernel_fn slow_stores_substitute(enum kernel_id k, enum store_kind kind, kernel_fn chosen)
{
    if ((int)kind != slow_kind) return chosen;
    original[k] = chosen;
    return slow[k];
}
