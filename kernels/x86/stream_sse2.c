/* STREAM and extra kernels compiled for sse2; chosen at run time by kernels/x86/dispatch_x86.c. */
#include <immintrin.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

static inline double hsum_128d(__m128d v)
{
    return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v)));
}

static inline double hsum_128(__m128 v)
{
    __m128 s = _mm_add_ps(v, _mm_movehl_ps(v, v));
    return (double)_mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}

#define ISA sse2
#define OP(name, suffix) _mm_##name##_##suffix
#define VEC_D __m128d
#define VEC_F __m128
#define W_D 2
#define W_F 4
#define HSUM_D(v) hsum_128d(v)
#define HSUM_F(v) hsum_128(v)
#define FENCE() _mm_sfence()
#include "kernels/simd_instances.h"
