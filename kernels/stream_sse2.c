/* STREAM and extra kernels compiled for sse2; chosen at run time by kernels/dispatch.c. */

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

#define SUF double
#define T double
#define V __m128d
#define W 2
#define LOADU _mm_loadu_pd
#define STOREU _mm_storeu_pd
#define STREAM _mm_stream_pd
#define SET1 _mm_set1_pd
#define ADD _mm_add_pd
#define MUL _mm_mul_pd
#define ZERO _mm_setzero_pd
#define HSUM(v) hsum_128d(v)
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
#define V __m128
#define W 4
#define LOADU _mm_loadu_ps
#define STOREU _mm_storeu_ps
#define STREAM _mm_stream_ps
#define SET1 _mm_set1_ps
#define ADD _mm_add_ps
#define MUL _mm_mul_ps
#define ZERO _mm_setzero_ps
#define HSUM(v) hsum_128(v)
#include "kernels/simd_template.h"

kernel_fn kernel_lookup_sse2(enum kernel_id k, enum store_kind stores, enum elem_type type)
{
    return type == TYPE_FLOAT ? table_all_float_sse2[k][stores] : table_all_double_sse2[k][stores];
}
