/* STREAM and extra kernels compiled for avx2; chosen at run time by kernels/x86/dispatch_x86.c. */
#pragma GCC target("avx2")
#include <immintrin.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

static inline double hsum_256d(__m256d v)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

static inline double hsum_256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return (double)_mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}

#define ISA avx2
#define OP(name, suffix) _mm256_##name##_##suffix
#define VEC_D __m256d
#define VEC_F __m256
#define W_D 4
#define W_F 8
#define HSUM_D(v) hsum_256d(v)
#define HSUM_F(v) hsum_256(v)
#define FENCE() _mm_sfence()
#include "kernels/simd_instances.h"
