/* The four STREAM loops, once per element type. restrict lets the compiler vectorise; the
 * static schedule must match stream_init_arrays so each thread works on the pages it touched. */
#include "kernels/kernel_table.h"

// clang-format off
#define DEFINE_STREAM_KERNELS(T, SUFFIX)                                                        \
    void stream_copy_##SUFFIX(void *va, void *vb, void *vc, size_t n, double q)                 \
    {                                                                                           \
        (void)vb;                                                                               \
        (void)q;                                                                                \
        const T *restrict a = va;                                                               \
        T *restrict c = vc;                                                                     \
        _Pragma("omp parallel for schedule(static)") for (size_t j = 0; j < n; j++) c[j] =     \
            a[j];                                                                               \
    }                                                                                           \
    void stream_scale_##SUFFIX(void *va, void *vb, void *vc, size_t n, double q)                \
    {                                                                                           \
        (void)va;                                                                               \
        const T s = (T)q;                                                                       \
        T *restrict b = vb;                                                                     \
        const T *restrict c = vc;                                                               \
        _Pragma("omp parallel for schedule(static)") for (size_t j = 0; j < n; j++) b[j] =     \
            s * c[j];                                                                           \
    }                                                                                           \
    void stream_add_##SUFFIX(void *va, void *vb, void *vc, size_t n, double q)                  \
    {                                                                                           \
        (void)q;                                                                                \
        const T *restrict a = va;                                                               \
        const T *restrict b = vb;                                                               \
        T *restrict c = vc;                                                                     \
        _Pragma("omp parallel for schedule(static)") for (size_t j = 0; j < n; j++) c[j] =     \
            a[j] + b[j];                                                                        \
    }                                                                                           \
    void stream_triad_##SUFFIX(void *va, void *vb, void *vc, size_t n, double q)                \
    {                                                                                           \
        const T s = (T)q;                                                                       \
        T *restrict a = va;                                                                     \
        const T *restrict b = vb;                                                               \
        const T *restrict c = vc;                                                               \
        _Pragma("omp parallel for schedule(static)") for (size_t j = 0; j < n; j++) a[j] =     \
            b[j] + s * c[j];                                                                    \
    }                                                                                           \
    static void init_##SUFFIX(T *restrict a, T *restrict b, T *restrict c, size_t n)            \
    {                                                                                           \
        _Pragma("omp parallel for schedule(static)") for (size_t j = 0; j < n; j++)            \
        {                                                                                       \
            a[j] = (T)2.0;                                                                      \
            b[j] = (T)0.5;                                                                      \
            c[j] = (T)1.0;                                                                      \
        }                                                                                       \
    }                                                                                           \
    static void scale_##SUFFIX(T *restrict a, T *restrict b, T *restrict c, size_t n, T f)      \
    {                                                                                           \
        _Pragma("omp parallel for schedule(static)") for (size_t j = 0; j < n; j++)            \
        {                                                                                       \
            a[j] *= f;                                                                          \
            b[j] *= f;                                                                          \
            c[j] *= f;                                                                          \
        }                                                                                       \
    }

// clang-format on

void stream_copy_double(void *, void *, void *, size_t, double);
void stream_scale_double(void *, void *, void *, size_t, double);
void stream_add_double(void *, void *, void *, size_t, double);
void stream_triad_double(void *, void *, void *, size_t, double);
void stream_copy_float(void *, void *, void *, size_t, double);
void stream_scale_float(void *, void *, void *, size_t, double);
void stream_add_float(void *, void *, void *, size_t, double);
void stream_triad_float(void *, void *, void *, size_t, double);

DEFINE_STREAM_KERNELS(double, double)
DEFINE_STREAM_KERNELS(float, float)

void stream_init_arrays(void *a, void *b, void *c, size_t n, enum elem_type type)
{
    if (type == TYPE_FLOAT)
        init_float(a, b, c, n);
    else
        init_double(a, b, c, n);
}

void stream_scale_arrays(void *a, void *b, void *c, size_t n, enum elem_type type, int exponent)
{
    double factor = 1.0;
    for (int i = 0; i < (exponent < 0 ? -exponent : exponent); i++)
        factor *= 2.0;
    if (exponent < 0) factor = 1.0 / factor;
    if (type == TYPE_FLOAT)
        scale_float(a, b, c, n, (float)factor);
    else
        scale_double(a, b, c, n, factor);
}
