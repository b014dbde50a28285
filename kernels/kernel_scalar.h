/* Element j of every kernel in one element type, from the rows' expressions (kernels/
 * kernel_list.h) in their scalar meaning: static inline T <Name>_element_<SUF>(a, b, c, j, s)
 * with s the scalar in T. The including file defines T and SUF; included once per type by the
 * SIMD template (its peel and tail loops) and by the validation model, which thereby round
 * alike. No include guard: each inclusion generates one type's functions. */

#define KERNEL_SCALAR_(name, suf) name##_element_##suf
#define KERNEL_SCALAR(name, suf) KERNEL_SCALAR_(name, suf)

#define ELEMENT_TYPE T
#define ELEMENT_FN(name) KERNEL_SCALAR(name, SUF)
#define ADD(x, y) ((x) + (y))
#define MUL(x, y) ((x) * (y))
#define A a[j]
#define B b[j]
#define C c[j]
#define Q s
#include "kernels/kernel_elements.h"
