/* STREAM and extra kernels compiled for avx512; chosen at run time by
 * kernels/x86/dispatch_x86.c. */
#pragma GCC target("avx512f")
#include <immintrin.h>
#include <stdint.h>

#include "kernels/kernel_table.h"

#define ISA avx512
#define OP(name, suffix) _mm512_##name##_##suffix
#define VEC_D __m512d
#define VEC_F __m512
#define W_D 8
#define W_F 16
#define HSUM_D(v) _mm512_reduce_add_pd(v)
#define HSUM_F(v) (double)_mm512_reduce_add_ps(v)
#define FENCE() _mm_sfence()
#include "kernels/simd_instances.h"
