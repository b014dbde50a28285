/* The four STREAM loops, once per element type, over one thread's range [begin, end).
 * No OpenMP here: the runner owns the parallel region, the chunking and the timing. restrict
 * lets the compiler vectorise. */
#include "kernels/kernel_table.h"

// clang-format off
#define DEFINE_STREAM_KERNELS(T, SUFFIX)                                                        \
    void stream_copy_##SUFFIX(void *va, void *vb, void *vc, size_t begin, size_t end, double q) \
    {                                                                                           \
        (void)vb; (void)q;                                                                      \
        const T *restrict a = va;                                                               \
        T *restrict c = vc;                                                                     \
        for (size_t j = begin; j < end; j++)                                                    \
            c[j] = a[j];                                                                        \
    }                                                                                           \
    void stream_scale_##SUFFIX(void *va, void *vb, void *vc, size_t begin, size_t end, double q)\
    {                                                                                           \
        (void)va;                                                                               \
        const T s = (T)q;                                                                       \
        T *restrict b = vb;                                                                     \
        const T *restrict c = vc;                                                               \
        for (size_t j = begin; j < end; j++)                                                    \
            b[j] = s * c[j];                                                                    \
    }                                                                                           \
    void stream_add_##SUFFIX(void *va, void *vb, void *vc, size_t begin, size_t end, double q)  \
    {                                                                                           \
        (void)q;                                                                                \
        const T *restrict a = va;                                                               \
        const T *restrict b = vb;                                                               \
        T *restrict c = vc;                                                                     \
        for (size_t j = begin; j < end; j++)                                                    \
            c[j] = a[j] + b[j];                                                                 \
    }                                                                                           \
    void stream_triad_##SUFFIX(void *va, void *vb, void *vc, size_t begin, size_t end, double q)\
    {                                                                                           \
        const T s = (T)q;                                                                       \
        T *restrict a = va;                                                                     \
        const T *restrict b = vb;                                                               \
        const T *restrict c = vc;                                                               \
        for (size_t j = begin; j < end; j++)                                                    \
            a[j] = b[j] + s * c[j];                                                             \
    }                                                                                           \
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

void stream_copy_double(void *, void *, void *, size_t, size_t, double);
void stream_scale_double(void *, void *, void *, size_t, size_t, double);
void stream_add_double(void *, void *, void *, size_t, size_t, double);
void stream_triad_double(void *, void *, void *, size_t, size_t, double);
void stream_copy_float(void *, void *, void *, size_t, size_t, double);
void stream_scale_float(void *, void *, void *, size_t, size_t, double);
void stream_add_float(void *, void *, void *, size_t, size_t, double);
void stream_triad_float(void *, void *, void *, size_t, size_t, double);

DEFINE_STREAM_KERNELS(double, double)
DEFINE_STREAM_KERNELS(float, float)

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
    double factor = 1.0;
    for (int i = 0; i < (exponent < 0 ? -exponent : exponent); i++)
        factor *= 2.0;
    if (exponent < 0) factor = 1.0 / factor;
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
