/* Deliberately wrong kernels, to prove that validation catches a kernel that computes wrongly.
 * Each computes its formula over the thread's share [begin, end) but gets the share's last
 * element wrong, as a buggy tail loop would: a storing kernel writes it a relative 2^-16 too
 * large (triad: a = b + q*c + tiny), far above the validation tolerance; a reduction leaves
 * it out of its sum. */
#include "tests/hooks/broken_kernel.h"

#include <strings.h>

static int broken = -1;

// clang-format off
#define TINY(v) ((v) + (v) * 0x1p-16)

#define DEFINE_STORING(NAME, T, DST, EXPR)                                                      \
    static double NAME(void *va, void *vb, void *vc, size_t begin, size_t end, double q)        \
    {                                                                                           \
        T *restrict a = va, *restrict b = vb, *restrict c = vc;                                 \
        const T s = (T)q;                                                                       \
        (void)a; (void)b; (void)c; (void)s;                                                     \
        for (size_t j = begin; j < end; j++) {                                                  \
            T v = EXPR;                                                                         \
            DST[j] = j + 1 < end ? v : (T)TINY(v);                                              \
        }                                                                                       \
        return 0.0;                                                                             \
    }

#define DEFINE_REDUCTION(NAME, T, TERM)                                                         \
    static double NAME(void *va, void *vb, void *vc, size_t begin, size_t end, double q)        \
    {                                                                                           \
        const T *restrict a = va, *restrict b = vb;                                             \
        (void)b; (void)vc; (void)q;                                                             \
        double total = 0.0;                                                                     \
        for (size_t j = begin; j + 1 < end; j++) total += (double)(TERM);                       \
        return total;                                                                           \
    }

#define DEFINE_ALL(T)                                                                           \
    DEFINE_STORING(copy_##T, T, c, a[j])                                                        \
    DEFINE_STORING(scale_##T, T, b, s * c[j])                                                   \
    DEFINE_STORING(add_##T, T, c, a[j] + b[j])                                                  \
    DEFINE_STORING(triad_##T, T, a, b[j] + s * c[j])                                            \
    DEFINE_STORING(write_##T, T, c, s)                                                          \
    DEFINE_STORING(nstream_##T, T, a, a[j] + (b[j] + s * c[j]))                                 \
    DEFINE_REDUCTION(dot_##T, T, a[j] * b[j])                                                   \
    DEFINE_REDUCTION(read_##T, T, a[j])                                                         \
    static const kernel_fn broken_##T[KERNEL_COUNT] = {                                         \
        [KERNEL_COPY] = copy_##T,   [KERNEL_SCALE] = scale_##T, [KERNEL_ADD] = add_##T,         \
        [KERNEL_TRIAD] = triad_##T, [KERNEL_DOT] = dot_##T,     [KERNEL_READ] = read_##T,       \
        [KERNEL_WRITE] = write_##T, [KERNEL_NSTREAM] = nstream_##T,                             \
    };
// clang-format on

DEFINE_ALL(double)
DEFINE_ALL(float)

int broken_kernel_select(const char *name)
{
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (strcasecmp(name, kernel_table[k].name) == 0) {
            broken = k;
            return 0;
        }
    return -1;
}

kernel_fn broken_kernel_substitute(enum kernel_id k, enum elem_type type, kernel_fn chosen)
{
    if ((int)k != broken) return chosen;
    return type == TYPE_FLOAT ? broken_float[k] : broken_double[k];
}
