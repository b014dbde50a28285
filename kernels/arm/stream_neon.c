/* STREAM and extra kernels compiled for NEON (ASIMD, in every aarch64 CPU); chosen at run time
 * by kernels/arm/dispatch_arm.c. A "vector" is a pair of Q registers, so that a non-temporal
 * store is one STNP of the pair: a hint to keep the lines out of the caches, with no ordering
 * of its own; FENCE()'s DSB ISH waits until they are visible to the other cores. */
#include <arm_neon.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

#define NEON_OPS(T, V, Q, suffix, q)                                                               \
    static inline V neon_loadu_##suffix(const T *p)                                                \
    {                                                                                              \
        return (V){{vld1q_##q(p), vld1q_##q(p + sizeof(Q) / sizeof(T))}};                          \
    }                                                                                              \
    static inline void neon_storeu_##suffix(T *p, V v)                                             \
    {                                                                                              \
        vst1q_##q(p, v.val[0]);                                                                    \
        vst1q_##q(p + sizeof(Q) / sizeof(T), v.val[1]);                                            \
    }                                                                                              \
    static inline void neon_stream_##suffix(T *p, V v)                                             \
    {                                                                                              \
        __asm__ volatile("stnp %q1, %q2, %0"                                                       \
                         : "=Q"(*(T(*)[2 * sizeof(Q) / sizeof(T)]) p)                              \
                         : "w"(v.val[0]), "w"(v.val[1]));                                          \
    }                                                                                              \
    static inline V neon_set1_##suffix(T s)                                                        \
    {                                                                                              \
        return (V){{vdupq_n_##q(s), vdupq_n_##q(s)}};                                              \
    }                                                                                              \
    static inline V neon_add_##suffix(V x, V y)                                                    \
    {                                                                                              \
        return (V){{vaddq_##q(x.val[0], y.val[0]), vaddq_##q(x.val[1], y.val[1])}};                \
    }                                                                                              \
    static inline V neon_mul_##suffix(V x, V y)                                                    \
    {                                                                                              \
        return (V){{vmulq_##q(x.val[0], y.val[0]), vmulq_##q(x.val[1], y.val[1])}};                \
    }                                                                                              \
    static inline V neon_setzero_##suffix(void)                                                    \
    {                                                                                              \
        return neon_set1_##suffix(0);                                                              \
    }                                                                                              \
    static inline double neon_hsum_##suffix(V v)                                                   \
    {                                                                                              \
        return (double)vaddvq_##q(vaddq_##q(v.val[0], v.val[1]));                                  \
    }
NEON_OPS(double, float64x2x2_t, float64x2_t, pd, f64)
NEON_OPS(float, float32x4x2_t, float32x4_t, ps, f32)

#define ISA neon
#define OP(name, suffix) neon_##name##_##suffix
#define VEC_D float64x2x2_t
#define VEC_F float32x4x2_t
#define W_D 4
#define W_F 8
#define HSUM_D(v) neon_hsum_pd(v)
#define HSUM_F(v) neon_hsum_ps(v)
#define FENCE() __asm__ volatile("dsb ish" ::: "memory")
#include "kernels/simd_instances.h"
