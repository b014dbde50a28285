/* Kernel bodies for one ISA and one element type, written once. The including file defines:
 *   ISA (avx512|avx2|sse2), SUF (double|float), T, V (vector type), W (elements per vector),
 *   LOADU, STOREU, STREAM (aligned non-temporal store), SET1, ADD, MUL, ZERO, HSUM (to double).
 * Every kernel works on one thread's range [begin, end) of the arrays; non-temporal variants
 * peel scalar elements until the destination is vector-aligned and end with an sfence so the
 * stores are globally visible before the caller stops the timer. */

#define MB_NAME_(name, kind, suf, isa) name##_##kind##_##suf##_##isa
#define MB_NAME(name, kind, suf, isa) MB_NAME_(name, kind, suf, isa)
#define FN(name, kind) MB_NAME(name, kind, SUF, ISA)

/* Reductions add vectors for a block, then fold the block into a double: float sums stay
 * accurate for any n, and the work stays vectorised. */
#define REDUCE_BLOCK 1024

#define MISALIGNED(p) (((uintptr_t)(p)) & (sizeof(V) - 1))

// clang-format off
#define GEN_STORING_KERNELS(KIND, STORE, NT)                                                    \
    static double FN(copy, KIND)(void *va, void *vb, void *vc, size_t begin, size_t end,        \
                                 double q)                                                      \
    {                                                                                           \
        (void)vb; (void)q;                                                                      \
        const T *restrict a = va;                                                               \
        T *restrict c = vc;                                                                     \
        size_t j = begin;                                                                       \
        if (NT) for (; j < end && MISALIGNED(c + j); j++) c[j] = a[j];                          \
        _Pragma("GCC unroll 4")                                                                 \
        for (; j + W <= end; j += W) STORE(c + j, LOADU(a + j));                                \
        for (; j < end; j++) c[j] = a[j];                                                       \
        if (NT) _mm_sfence();                                                                   \
        return 0.0;                                                                             \
    }                                                                                           \
    static double FN(scale, KIND)(void *va, void *vb, void *vc, size_t begin, size_t end,       \
                                  double q)                                                     \
    {                                                                                           \
        (void)va;                                                                               \
        const T s = (T)q;                                                                       \
        const V vs = SET1(s);                                                                   \
        T *restrict b = vb;                                                                     \
        const T *restrict c = vc;                                                               \
        size_t j = begin;                                                                       \
        if (NT) for (; j < end && MISALIGNED(b + j); j++) b[j] = s * c[j];                      \
        _Pragma("GCC unroll 4")                                                                 \
        for (; j + W <= end; j += W) STORE(b + j, MUL(vs, LOADU(c + j)));                       \
        for (; j < end; j++) b[j] = s * c[j];                                                   \
        if (NT) _mm_sfence();                                                                   \
        return 0.0;                                                                             \
    }                                                                                           \
    static double FN(add, KIND)(void *va, void *vb, void *vc, size_t begin, size_t end,         \
                                double q)                                                       \
    {                                                                                           \
        (void)q;                                                                                \
        const T *restrict a = va;                                                               \
        const T *restrict b = vb;                                                               \
        T *restrict c = vc;                                                                     \
        size_t j = begin;                                                                       \
        if (NT) for (; j < end && MISALIGNED(c + j); j++) c[j] = a[j] + b[j];                   \
        _Pragma("GCC unroll 4")                                                                 \
        for (; j + W <= end; j += W) STORE(c + j, ADD(LOADU(a + j), LOADU(b + j)));             \
        for (; j < end; j++) c[j] = a[j] + b[j];                                                \
        if (NT) _mm_sfence();                                                                   \
        return 0.0;                                                                             \
    }                                                                                           \
    static double FN(triad, KIND)(void *va, void *vb, void *vc, size_t begin, size_t end,       \
                                  double q)                                                     \
    {                                                                                           \
        const T s = (T)q;                                                                       \
        const V vs = SET1(s);                                                                   \
        T *restrict a = va;                                                                     \
        const T *restrict b = vb;                                                               \
        const T *restrict c = vc;                                                               \
        size_t j = begin;                                                                       \
        if (NT) for (; j < end && MISALIGNED(a + j); j++) a[j] = b[j] + s * c[j];               \
        _Pragma("GCC unroll 4")                                                                 \
        for (; j + W <= end; j += W)                                                            \
            STORE(a + j, ADD(LOADU(b + j), MUL(vs, LOADU(c + j))));                             \
        for (; j < end; j++) a[j] = b[j] + s * c[j];                                            \
        if (NT) _mm_sfence();                                                                   \
        return 0.0;                                                                             \
    }                                                                                           \
    static double FN(write, KIND)(void *va, void *vb, void *vc, size_t begin, size_t end,       \
                                  double q)                                                     \
    {                                                                                           \
        (void)va; (void)vb;                                                                     \
        const T s = (T)q;                                                                       \
        const V vs = SET1(s);                                                                   \
        T *restrict c = vc;                                                                     \
        size_t j = begin;                                                                       \
        if (NT) for (; j < end && MISALIGNED(c + j); j++) c[j] = s;                             \
        _Pragma("GCC unroll 4")                                                                 \
        for (; j + W <= end; j += W) STORE(c + j, vs);                                          \
        for (; j < end; j++) c[j] = s;                                                          \
        if (NT) _mm_sfence();                                                                   \
        return 0.0;                                                                             \
    }                                                                                           \
    static double FN(nstream, KIND)(void *va, void *vb, void *vc, size_t begin, size_t end,     \
                                    double q)                                                   \
    {                                                                                           \
        const T s = (T)q;                                                                       \
        const V vs = SET1(s);                                                                   \
        T *restrict a = va;                                                                     \
        const T *restrict b = vb;                                                               \
        const T *restrict c = vc;                                                               \
        size_t j = begin;                                                                       \
        if (NT) for (; j < end && MISALIGNED(a + j); j++) a[j] = a[j] + (b[j] + s * c[j]);      \
        _Pragma("GCC unroll 4")                                                                 \
        for (; j + W <= end; j += W)                                                            \
            STORE(a + j, ADD(LOADU(a + j), ADD(LOADU(b + j), MUL(vs, LOADU(c + j)))));          \
        for (; j < end; j++) a[j] = a[j] + (b[j] + s * c[j]);                                   \
        if (NT) _mm_sfence();                                                                   \
        return 0.0;                                                                             \
    }

static double FN(dot, any)(void *va, void *vb, void *vc, size_t begin, size_t end, double q)
{
    (void)vc; (void)q;
    const T *restrict a = va;
    const T *restrict b = vb;
    double total = 0.0;
    size_t j = begin;
    while (j + W <= end) {
        size_t stop = end - j > REDUCE_BLOCK ? j + REDUCE_BLOCK : end;
        V acc = ZERO();
        for (; j + W <= stop; j += W) acc = ADD(acc, MUL(LOADU(a + j), LOADU(b + j)));
        total += HSUM(acc);
    }
    for (; j < end; j++) total += (double)(a[j] * b[j]);
    return total;
}

static double FN(read, any)(void *va, void *vb, void *vc, size_t begin, size_t end, double q)
{
    (void)vb; (void)vc; (void)q;
    const T *restrict a = va;
    double total = 0.0;
    size_t j = begin;
    while (j + W <= end) {
        size_t stop = end - j > REDUCE_BLOCK ? j + REDUCE_BLOCK : end;
        V acc = ZERO();
        for (; j + W <= stop; j += W) acc = ADD(acc, LOADU(a + j));
        total += HSUM(acc);
    }
    for (; j < end; j++) total += (double)a[j];
    return total;
}
// clang-format on

GEN_STORING_KERNELS(normal, STOREU, 0)
GEN_STORING_KERNELS(nt, STREAM, 1)

/* [kernel][stores] in enum kernel_id / enum store_kind order. */
static const kernel_fn MB_NAME(table, all, SUF, ISA)[KERNEL_COUNT][2] = {
    {FN(copy, normal), FN(copy, nt)},   {FN(scale, normal), FN(scale, nt)},
    {FN(add, normal), FN(add, nt)},     {FN(triad, normal), FN(triad, nt)},
    {FN(dot, any), FN(dot, any)},       {FN(read, any), FN(read, any)},
    {FN(write, normal), FN(write, nt)}, {FN(nstream, normal), FN(nstream, nt)},
};

#undef GEN_STORING_KERNELS
#undef MISALIGNED
#undef REDUCE_BLOCK
#undef FN
