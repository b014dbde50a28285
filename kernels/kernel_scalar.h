/* Element j of every kernel in one element type, from the rows' expressions (kernels/
 * kernel_list.h) in their scalar meaning: static inline T <Name>_element_<SUF>(a, b, c, j, s)
 * with s the scalar in T. The including file defines T and SUF; included once per type by the
 * SIMD template (its peel and tail loops) and by the validation model, which thereby round
 * alike. No include guard: each inclusion generates one type's functions. */

#define KERNEL_SCALAR_(name, suf) name##_element_##suf
#define KERNEL_SCALAR(name, suf) KERNEL_SCALAR_(name, suf)

#define ADD(x, y) ((x) + (y))
#define MUL(x, y) ((x) * (y))
#define A a[j]
#define B b[j]
#define C c[j]
#define Q s
// clang-format off
#define KERNEL_SCALAR_ELEMENT(ID, NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS, SHAPE, \
                              DST, EXPR)                                                        \
    static inline T KERNEL_SCALAR(NAME, SUF)(const T *a, const T *b, const T *c, size_t j, T s) \
    {                                                                                           \
        (void)a; (void)b; (void)c; (void)j; (void)s;                                            \
        return EXPR;                                                                            \
    }
// clang-format on
KERNEL_LIST(KERNEL_SCALAR_ELEMENT)
#undef KERNEL_SCALAR_ELEMENT
#undef ADD
#undef MUL
#undef A
#undef B
#undef C
#undef Q
