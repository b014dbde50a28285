/* Kernel bodies for one ISA and one element type, written once for every row of kernels/
 * kernel_list.h. The including file defines:
 *   ISA, SUF (double|float), T, V (vector type), W (elements per vector; may be a run-time
 *   value), LOADU, STOREU, STREAM (aligned non-temporal store), SET1, VADD, VMUL, ZERO, HSUM
 *   (to double) and FENCE() (orders the non-temporal stores before what follows); and
 *   NT_ALIGN_BYTES when sizeof(V) is not the alignment to peel to (SVE's sizeless vectors).
 * Every kernel works on one thread's range [begin, end) of the arrays; non-temporal variants
 * peel scalar elements until the destination is vector-aligned and end with FENCE() so the
 * stores are globally visible before the caller stops the timer. */

#define MB_NAME_(name, kind, suf, isa) name##_##kind##_##suf##_##isa
#define MB_NAME(name, kind, suf, isa) MB_NAME_(name, kind, suf, isa)
#define FN(name, kind) MB_NAME(name, kind, SUF, ISA)

/* Reductions add vectors for a block, then fold the block into a double: float sums stay
 * accurate for any n, and the work stays vectorised. */
#define REDUCE_BLOCK 1024

#ifdef NT_ALIGN_BYTES
#define MISALIGNED(p) (((uintptr_t)(p)) & (NT_ALIGN_BYTES - 1))
#else
#define MISALIGNED(p) (((uintptr_t)(p)) & (sizeof(V) - 1))
#endif

#include "kernels/kernel_scalar.h"
#define SCALAR(name) KERNEL_SCALAR(name, SUF)

/* Elements j to j + W - 1 of every kernel as one vector: the rows' vocabulary, vector meaning. */
#define ELEMENT_TYPE V
#define ELEMENT_FN(name) FN(name, vector)
#define ADD(x, y) VADD(x, y)
#define MUL(x, y) VMUL(x, y)
#define A LOADU(a + j)
#define B LOADU(b + j)
#define C LOADU(c + j)
#define Q s
#include "kernels/kernel_elements.h"

// clang-format off
#define KERNEL_ARGS void *va, void *vb, void *vc, size_t begin, size_t end, double q
#define KERNEL_LOCALS                                                                           \
    T *restrict a = va, *restrict b = vb, *restrict c = vc;                                     \
    const T s = (T)q;                                                                           \
    const V vs = SET1(s);                                                                       \
    size_t j = begin

/* The one storing kernel: element by element into DST, STORE for the vectors. */
#define STORING(NAME, DST, KIND, STORE, NT)                                                     \
    static double FN(NAME, KIND)(KERNEL_ARGS)                                                   \
    {                                                                                           \
        KERNEL_LOCALS;                                                                          \
        if (NT) for (; j < end && MISALIGNED(DST + j); j++) DST[j] = SCALAR(NAME)(a, b, c, j, s);\
        _Pragma("GCC unroll 4")                                                                 \
        for (; j + W <= end; j += W) STORE(DST + j, FN(NAME, vector)(a, b, c, j, vs));          \
        for (; j < end; j++) DST[j] = SCALAR(NAME)(a, b, c, j, s);                              \
        if (NT) FENCE();                                                                        \
        return 0.0;                                                                             \
    }
#define GEN_store(NAME, DST)                                                                    \
    STORING(NAME, DST, normal, STOREU, 0)                                                       \
    STORING(NAME, DST, nt, STREAM, 1)

/* The one reduction: the sum of the elements, whatever the store kind. */
#define GEN_sum(NAME, DST)                                                                      \
    static double FN(NAME, any)(KERNEL_ARGS)                                                    \
    {                                                                                           \
        KERNEL_LOCALS;                                                                          \
        double total = 0.0;                                                                     \
        while (j + W <= end) {                                                                  \
            size_t stop = end - j > REDUCE_BLOCK ? j + REDUCE_BLOCK : end;                      \
            V acc = ZERO();                                                                     \
            for (; j + W <= stop; j += W) acc = VADD(acc, FN(NAME, vector)(a, b, c, j, vs));    \
            total += HSUM(acc);                                                                 \
        }                                                                                       \
        for (; j < end; j++) total += (double)SCALAR(NAME)(a, b, c, j, s);                      \
        return total;                                                                           \
    }

#define KERNEL_BODIES(ID, NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS, SHAPE, DST,     \
                      EXPR)                                                                     \
    GEN_##SHAPE(NAME, DST)
KERNEL_LIST(KERNEL_BODIES)

/* [kernel][stores] in enum kernel_id / enum store_kind order. */
#define VARIANTS_store(NAME) {FN(NAME, normal), FN(NAME, nt)}
#define VARIANTS_sum(NAME) {FN(NAME, any), FN(NAME, any)}
#define KERNEL_VARIANTS(ID, NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS, SHAPE, DST,   \
                        EXPR)                                                                   \
    [KERNEL_##ID] = VARIANTS_##SHAPE(NAME),
static const kernel_fn MB_NAME(table, all, SUF, ISA)[KERNEL_COUNT][2] = {
    KERNEL_LIST(KERNEL_VARIANTS)
};
// clang-format on

#undef KERNEL_VARIANTS
#undef VARIANTS_store
#undef VARIANTS_sum
#undef KERNEL_BODIES
#undef GEN_sum
#undef GEN_store
#undef STORING
#undef KERNEL_LOCALS
#undef KERNEL_ARGS
#undef SCALAR
#undef KERNEL_SCALAR
#undef KERNEL_SCALAR_
#undef MISALIGNED
#undef REDUCE_BLOCK
#undef FN
