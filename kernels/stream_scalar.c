/* STREAM and extra kernels in plain C, for every architecture: the template with one element
 * per "vector" (the compiler may still vectorise the loops). Its "nt" variants store normally:
 * portable C has no non-temporal store (isa_has_nt). */
#include <stdint.h>

#include "kernels/kernel_table.h"

#define SCALAR_OPS(T, suffix)                                                                      \
    static inline T scalar_loadu_##suffix(const T *p)                                              \
    {                                                                                              \
        return *p;                                                                                 \
    }                                                                                              \
    static inline void scalar_storeu_##suffix(T *p, T v)                                           \
    {                                                                                              \
        *p = v;                                                                                    \
    }                                                                                              \
    static inline T scalar_set1_##suffix(T v)                                                      \
    {                                                                                              \
        return v;                                                                                  \
    }                                                                                              \
    static inline T scalar_add_##suffix(T x, T y)                                                  \
    {                                                                                              \
        return x + y;                                                                              \
    }                                                                                              \
    static inline T scalar_mul_##suffix(T x, T y)                                                  \
    {                                                                                              \
        return x * y;                                                                              \
    }                                                                                              \
    static inline T scalar_setzero_##suffix(void)                                                  \
    {                                                                                              \
        return 0;                                                                                  \
    }
SCALAR_OPS(double, pd)
SCALAR_OPS(float, ps)
#define scalar_stream_pd scalar_storeu_pd
#define scalar_stream_ps scalar_storeu_ps

#define ISA scalar
#define OP(name, suffix) scalar_##name##_##suffix
#define VEC_D double
#define VEC_F float
#define W_D 1
#define W_F 1
#define HSUM_D(v) (v)
#define HSUM_F(v) (double)(v)
#define FENCE() ((void)0)
#include "kernels/simd_instances.h"
