/* First touch, exact rescaling and chunking of the arrays; the kernels themselves are in
 * stream_<isa>.c. No OpenMP here: the runner owns the parallel region. */
#include <math.h>

#include "kernels/kernel_table.h"

// clang-format off
#define DEFINE_HELPERS(T, SUFFIX)                                                               \
    static void init_##SUFFIX(T *restrict a, T *restrict b, T *restrict c, size_t begin,        \
                              size_t end)                                                       \
    {                                                                                           \
        for (size_t j = begin; j < end; j++) {                                                  \
            a[j] = (T)2.0;                                                                      \
            b[j] = (T)0.5;                                                                      \
            c[j] = (T)1.0;                                                                      \
        }                                                                                       \
    }                                                                                           \
    static void scale_##SUFFIX(T *restrict a, T *restrict b, T *restrict c, size_t begin,       \
                               size_t end, T f)                                                 \
    {                                                                                           \
        for (size_t j = begin; j < end; j++) {                                                  \
            a[j] *= f;                                                                          \
            b[j] *= f;                                                                          \
            c[j] *= f;                                                                          \
        }                                                                                       \
    }
// clang-format on

DEFINE_HELPERS(double, double)
DEFINE_HELPERS(float, float)

void stream_init_arrays(void *a, void *b, void *c, size_t begin, size_t end, enum elem_type type)
{
    if (type == TYPE_FLOAT)
        init_float(a, b, c, begin, end);
    else
        init_double(a, b, c, begin, end);
}

void stream_scale_arrays(void *a, void *b, void *c, size_t begin, size_t end, enum elem_type type,
                         int exponent)
{
    double factor = ldexp(1.0, exponent);
    if (type == TYPE_FLOAT)
        scale_float(a, b, c, begin, end, (float)factor);
    else
        scale_double(a, b, c, begin, end, factor);
}

size_t stream_chunk_begin(size_t n, int nthreads, int thread, enum elem_type type)
{
    /* Boundaries on 64-byte multiples so no cache line is written by two threads. */
    size_t line = 64 / elem_size(type);
    size_t lines = (n + line - 1) / line;
    size_t begin =
        (size_t)((unsigned __int128)lines * (unsigned)thread / (unsigned)nthreads) * line;
    return begin < n ? begin : n;
}
