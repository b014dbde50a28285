/* STREAM and extra kernels compiled for avx512; chosen at run time by kernels/dispatch.c. */
#pragma GCC target("avx512f")
#include <immintrin.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

#define ISA avx512

#define SUF double
#define T double
#define V __m512d
#define W 8
#define LOADU _mm512_loadu_pd
#define STOREU _mm512_storeu_pd
#define STREAM _mm512_stream_pd
#define SET1 _mm512_set1_pd
#define ADD _mm512_add_pd
#define MUL _mm512_mul_pd
#define ZERO _mm512_setzero_pd
#define HSUM(v) _mm512_reduce_add_pd(v)
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
#define V __m512
#define W 16
#define LOADU _mm512_loadu_ps
#define STOREU _mm512_storeu_ps
#define STREAM _mm512_stream_ps
#define SET1 _mm512_set1_ps
#define ADD _mm512_add_ps
#define MUL _mm512_mul_ps
#define ZERO _mm512_setzero_ps
#define HSUM(v) (double)_mm512_reduce_add_ps(v)
#include "kernels/simd_template.h"

kernel_fn kernel_lookup_avx512(enum kernel_id k, enum store_kind stores, enum elem_type type)
{
    return type == TYPE_FLOAT ? table_all_float_avx512[k][stores]
                              : table_all_double_avx512[k][stores];
}
