/* STREAM and extra kernels compiled for avx2; chosen at run time by kernels/dispatch.c. */
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

#define SUF double
#define T double
#define V __m256d
#define W 4
#define LOADU _mm256_loadu_pd
#define STOREU _mm256_storeu_pd
#define STREAM _mm256_stream_pd
#define SET1 _mm256_set1_pd
#define ADD _mm256_add_pd
#define MUL _mm256_mul_pd
#define ZERO _mm256_setzero_pd
#define HSUM(v) hsum_256d(v)
#include "kernels/simd_template.h"
#undef SUF
#undef T
#undef V
#undef W
#undef LOADU
#undef STOREU
#undef STREAM
#undef SET1
#undef ADD
#undef MUL
#undef ZERO
#undef HSUM

#define SUF float
#define T float
#define V __m256
#define W 8
#define LOADU _mm256_loadu_ps
#define STOREU _mm256_storeu_ps
#define STREAM _mm256_stream_ps
#define SET1 _mm256_set1_ps
#define ADD _mm256_add_ps
#define MUL _mm256_mul_ps
#define ZERO _mm256_setzero_ps
#define HSUM(v) hsum_256(v)
#include "kernels/simd_template.h"

kernel_fn kernel_lookup_avx2(enum kernel_id k, enum store_kind stores, enum elem_type type)
{
    return type == TYPE_FLOAT ? table_all_float_avx2[k][stores] : table_all_double_avx2[k][stores];
}
