/* Both element types of one ISA's kernels, and the ISA's lookup function. The including file
 * defines ISA (avx512|avx2|sse2|scalar|neon|sve), OP(name, suffix) naming its operations
 * (_mm512_##name##_##suffix, or wrappers), VEC_D and VEC_F (its vector types), W_D and W_F
 * (elements per vector, a constant or, for SVE, a run-time value), HSUM_D(v), HSUM_F(v)
 * (horizontal sums as double) and FENCE() (see kernels/simd_template.h). */

#define SUF double
#define T double
#define V VEC_D
#define W W_D
#define LOADU OP(loadu, pd)
#define STOREU OP(storeu, pd)
#define STREAM OP(stream, pd)
#define SET1 OP(set1, pd)
#define VADD OP(add, pd)
#define VMUL OP(mul, pd)
#define ZERO OP(setzero, pd)
#define HSUM(v) HSUM_D(v)
#include "kernels/simd_template.h"
#undef SUF
#undef T
#undef V
#undef W
#undef LOADU
#undef STOREU
#undef STREAM
#undef SET1
#undef VADD
#undef VMUL
#undef ZERO
#undef HSUM

#define SUF float
#define T float
#define V VEC_F
#define W W_F
#define LOADU OP(loadu, ps)
#define STOREU OP(storeu, ps)
#define STREAM OP(stream, ps)
#define SET1 OP(set1, ps)
#define VADD OP(add, ps)
#define VMUL OP(mul, ps)
#define ZERO OP(setzero, ps)
#define HSUM(v) HSUM_F(v)
#include "kernels/simd_template.h"

#define LOOKUP_NAME_(isa) kernel_lookup_##isa
#define LOOKUP_NAME(isa) LOOKUP_NAME_(isa)
#define TABLE_(suf, isa) table_all_##suf##_##isa
#define TABLE(suf, isa) TABLE_(suf, isa)

kernel_fn LOOKUP_NAME(ISA)(enum kernel_id k, enum store_kind stores, enum elem_type type)
{
    return type == TYPE_FLOAT ? TABLE(float, ISA)[k][stores] : TABLE(double, ISA)[k][stores];
}
