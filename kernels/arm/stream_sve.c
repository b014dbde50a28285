/* STREAM and extra kernels compiled for SVE (this file alone is built with +sve); chosen at
 * run time by kernels/arm/dispatch_arm.c. Vector-length agnostic: W is svcntd()/svcntw(),
 * whatever the CPU's length (128 to 2048 bits). Non-temporal stores are STNT1 (a hint, no
 * alignment needed: the peel only keeps vectors on cache lines); FENCE() as for NEON. */
#include <arm_sve.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

#define SVE_OPS(T, V, suffix, q, all)                                                              \
    static inline V sve_loadu_##suffix(const T *p)                                                 \
    {                                                                                              \
        return svld1_##q(all(), p);                                                                \
    }                                                                                              \
    static inline void sve_storeu_##suffix(T *p, V v)                                              \
    {                                                                                              \
        svst1_##q(all(), p, v);                                                                    \
    }                                                                                              \
    static inline void sve_stream_##suffix(T *p, V v)                                              \
    {                                                                                              \
        svstnt1_##q(all(), p, v);                                                                  \
    }                                                                                              \
    static inline V sve_set1_##suffix(T s)                                                         \
    {                                                                                              \
        return svdup_n_##q(s);                                                                     \
    }                                                                                              \
    static inline V sve_add_##suffix(V x, V y)                                                     \
    {                                                                                              \
        return svadd_##q##_x(all(), x, y);                                                         \
    }                                                                                              \
    static inline V sve_mul_##suffix(V x, V y)                                                     \
    {                                                                                              \
        return svmul_##q##_x(all(), x, y);                                                         \
    }                                                                                              \
    static inline V sve_setzero_##suffix(void)                                                     \
    {                                                                                              \
        return svdup_n_##q(0);                                                                     \
    }                                                                                              \
    static inline double sve_hsum_##suffix(V v)                                                    \
    {                                                                                              \
        return (double)svaddv_##q(all(), v);                                                       \
    }
SVE_OPS(double, svfloat64_t, pd, f64, svptrue_b64)
SVE_OPS(float, svfloat32_t, ps, f32, svptrue_b32)

#define ISA sve
#define OP(name, suffix) sve_##name##_##suffix
#define VEC_D svfloat64_t
#define VEC_F svfloat32_t
#define W_D svcntd()
#define W_F svcntw()
#define NT_ALIGN_BYTES 64
#define HSUM_D(v) sve_hsum_pd(v)
#define HSUM_F(v) sve_hsum_ps(v)
#define FENCE() __asm__ volatile("dsb ish" ::: "memory")
#include "kernels/simd_instances.h"

size_t sve_vector_bytes(void)
{
    return svcntb();
}
