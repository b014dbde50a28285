/* One function per row of kernels/kernel_list.h: static inline ELEMENT_TYPE ELEMENT_FN(Name)
 * (a, b, c, j, s), the row's expression at element j with s the scalar. The including file
 * defines T (the element type), ELEMENT_TYPE, ELEMENT_FN(name) and the rows' vocabulary in one
 * meaning: A, B, C (element j of each array), Q (s), ADD(x, y), MUL(x, y). This file undefines
 * all but T. No include guard: each inclusion generates one meaning's functions. */

// clang-format off
#define KERNEL_ELEMENT(ID, NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS, SHAPE, DST,    \
                       EXPR)                                                                    \
    static inline ELEMENT_TYPE ELEMENT_FN(NAME)(const T *a, const T *b, const T *c, size_t j,   \
                                                ELEMENT_TYPE s)                                 \
    {                                                                                           \
        (void)a; (void)b; (void)c; (void)j; (void)s;                                            \
        return EXPR;                                                                            \
    }
// clang-format on
KERNEL_LIST(KERNEL_ELEMENT)
#undef KERNEL_ELEMENT
#undef ELEMENT_TYPE
#undef ELEMENT_FN
#undef ADD
#undef MUL
#undef A
#undef B
#undef C
#undef Q
