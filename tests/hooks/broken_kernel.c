/* Deliberately wrong kernels, to prove that validation catches a kernel that computes wrongly.
 * Each computes its formula (the scalar reference of its row) over the thread's share
 * [begin, end) but gets the share's last element wrong, as a buggy tail loop would: a storing
 * kernel writes it a relative 2^-16 too large (triad: a = b + q*c + tiny), far above the
 * validation tolerance; a reduction leaves it out of its sum. */
#include "tests/hooks/broken_kernel.h"

#include <strings.h>

#include "kernels/validate.h"

static int broken = -1;

#define TINY(v) ((v) + (v)*0x1p-16)

static double broken_pass(enum kernel_id k, enum elem_type type, void *a, void *b, void *c,
                          size_t begin, size_t end, double q)
{
    const struct kernel_desc *d = &kernel_table[k];
    if (begin >= end) return 0.0;
    if (d->reduction) return kernel_reference(k, type)(a, b, c, begin, end - 1, q);
    kernel_reference(k, type)(a, b, c, begin, end, q);
    void *arrays[3] = {a, b, c};
    if (type == TYPE_FLOAT) {
        float *x = arrays[d->dst];
        x[end - 1] = (float)TINY(x[end - 1]);
    } else {
        double *x = arrays[d->dst];
        x[end - 1] = TINY(x[end - 1]);
    }
    return 0.0;
}

// clang-format off
#define BROKEN(ID, ...)                                                                         \
    static double broken_##ID##_double(void *a, void *b, void *c, size_t begin, size_t end,     \
                                       double q)                                                \
    {                                                                                           \
        return broken_pass(KERNEL_##ID, TYPE_DOUBLE, a, b, c, begin, end, q);                   \
    }                                                                                           \
    static double broken_##ID##_float(void *a, void *b, void *c, size_t begin, size_t end,      \
                                      double q)                                                 \
    {                                                                                           \
        return broken_pass(KERNEL_##ID, TYPE_FLOAT, a, b, c, begin, end, q);                    \
    }
#define BROKEN_ENTRY(ID, ...) [KERNEL_##ID] = {broken_##ID##_double, broken_##ID##_float},
// clang-format on
KERNEL_LIST(BROKEN)
static const kernel_fn broken_fns[KERNEL_COUNT][2] = {KERNEL_LIST(BROKEN_ENTRY)}; /* [k][type] */

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
    return broken_fns[k][type];
}
