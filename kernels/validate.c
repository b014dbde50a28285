#include "kernels/validate.h"

#include <float.h>
#include <math.h>

void expected_init(struct expected_values *e)
{
    e->a = 2.0;
    e->b = 0.5;
    e->c = 1.0;
}

#define REFERENCE_NAME_(name, suf) name##_reference_##suf
#define REFERENCE_NAME(name, suf) REFERENCE_NAME_(name, suf)
// clang-format off
/* The scalar reference of every kernel: the rows' expressions element by element, in the
 * element type, with no vectors, peeling or fences. */
#define REFERENCE_store(NAME, DST)                                                              \
    for (; j < end; j++) DST[j] = KERNEL_SCALAR(NAME, SUF)(a, b, c, j, s);                      \
    return 0.0;
#define REFERENCE_sum(NAME, DST)                                                                \
    double total = 0.0;                                                                         \
    for (; j < end; j++) total += (double)KERNEL_SCALAR(NAME, SUF)(a, b, c, j, s);              \
    return total;
#define REFERENCE(ID, NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS, SHAPE, DST, EXPR)   \
    static double REFERENCE_NAME(NAME, SUF)(void *va, void *vb, void *vc, size_t begin,         \
                                            size_t end, double q)                               \
    {                                                                                           \
        T *a = va, *b = vb, *c = vc;                                                            \
        const T s = (T)q;                                                                       \
        size_t j = begin;                                                                       \
        REFERENCE_##SHAPE(NAME, DST)                                                            \
    }
#define REFERENCE_ENTRY(ID, NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS, SHAPE, DST,   \
                        EXPR)                                                                   \
    [KERNEL_##ID] = REFERENCE_NAME(NAME, SUF),
// clang-format on

#define T double
#define SUF double
#include "kernels/kernel_scalar.h"
KERNEL_LIST(REFERENCE)
static const kernel_fn reference_double[KERNEL_COUNT] = {KERNEL_LIST(REFERENCE_ENTRY)};
#undef T
#undef SUF

#define T float
#define SUF float
#include "kernels/kernel_scalar.h"
KERNEL_LIST(REFERENCE)
static const kernel_fn reference_float[KERNEL_COUNT] = {KERNEL_LIST(REFERENCE_ENTRY)};
#undef T
#undef SUF

kernel_fn kernel_reference(enum kernel_id k, enum elem_type type)
{
    return type == TYPE_FLOAT ? reference_float[k] : reference_double[k];
}

/* The reference kernel k over one element per array holding the expected values, in the
 * element type: what every element of the real arrays holds after the pass. Its sum. */
static double model_pass(struct expected_values *e, enum kernel_id k, enum elem_type type, double q)
{
    double d[3] = {e->a, e->b, e->c};
    float f[3] = {(float)e->a, (float)e->b, (float)e->c};
    bool single = type == TYPE_FLOAT;
    void *x[3];
    for (int i = 0; i < 3; i++)
        x[i] = single ? (void *)&f[i] : (void *)&d[i];
    double sum = kernel_reference(k, type)(x[0], x[1], x[2], 0, 1, q);
    e->a = single ? f[0] : d[0];
    e->b = single ? f[1] : d[1];
    e->c = single ? f[2] : d[2];
    return sum;
}

void expected_step(struct expected_values *e, enum kernel_id k, enum elem_type type, double q)
{
    model_pass(e, k, type, q);
}

double expected_reduction(const struct expected_values *e, enum kernel_id k, enum elem_type type,
                          uint64_t n)
{
    struct expected_values now = *e;
    return model_pass(&now, k, type, STREAM_SCALAR) * (double)n;
}

double reduction_tolerance(enum elem_type type)
{
    /* Blocks of 1024 elements summed in the element type, then in double. */
    return type == TYPE_FLOAT ? 1e-5 : 1e-10;
}

int expected_rescale_exponent(const struct expected_values *e)
{
    double largest = fmax(fabs(e->a), fmax(fabs(e->b), fabs(e->c)));
    if (largest == 0.0) return 0;
    int exponent;
    frexp(largest, &exponent);
    if (exponent > 32 || exponent < -32) return -exponent;
    return 0;
}

void expected_rescale(struct expected_values *e, int exponent)
{
    e->a = ldexp(e->a, exponent);
    e->b = ldexp(e->b, exponent);
    e->c = ldexp(e->c, exponent);
}

double stream_epsilon(enum elem_type type)
{
    return type == TYPE_FLOAT ? 1e-6 : 1e-13;
}

double validation_tolerance(enum elem_type type, unsigned ntimes)
{
    double stream_eps = stream_epsilon(type);
    double unit = type == TYPE_FLOAT ? FLT_EPSILON : DBL_EPSILON;
    double drift = 4.0 * unit * (double)(ntimes + 1);
    return drift > stream_eps ? drift : stream_eps;
}

static double rel_error(double got, double want)
{
    if (isnan(got)) return INFINITY;
    double diff = fabs(got - want);
    return want == 0.0 ? diff : diff / fabs(want);
}

// clang-format off
/* Largest relative error of one array, its mean absolute error, the number of elements beyond
 * tolerance and the first of them (n if none). */
#define DEFINE_CHECK(T, SUFFIX)                                                                    \
    static double check_##SUFFIX(const T *x, size_t n, double want, double tol,                  \
                                 unsigned threads, size_t *bad, struct array_errors *errs)         \
    {                                                                                              \
        double worst = 0.0, sum = 0.0;                                                             \
        size_t first = n, n_bad = 0;                                                               \
        _Pragma("omp parallel for num_threads(threads) schedule(static)                           \
                 reduction(max : worst) reduction(min : first) reduction(+ : sum, n_bad)")         \
        for (size_t j = 0; j < n; j++) {                                                           \
            double err = rel_error((double)x[j], want);                                            \
            double diff = fabs((double)x[j] - want);                                               \
            sum += isnan(diff) ? INFINITY : diff;                                                  \
            if (err > worst)                                                                       \
                worst = err;                                                                       \
            if (!(err <= tol)) {                                                                   \
                n_bad++;                                                                           \
                if (j < first)                                                                     \
                    first = j;                                                                     \
            }                                                                                      \
        }                                                                                          \
        *bad = first;                                                                              \
        errs->expected = want;                                                                     \
        errs->avg_abs_error = n ? sum / (double)n : 0.0;                                           \
        errs->avg_rel_error =                                                                      \
            want == 0.0 ? errs->avg_abs_error : errs->avg_abs_error / fabs(want);                  \
        errs->n_bad = n_bad;                                                                       \
        return worst;                                                                              \
    }

// clang-format on

DEFINE_CHECK(double, double)
DEFINE_CHECK(float, float)

void validate_arrays(const void *a, const void *b, const void *c, size_t n, enum elem_type type,
                     const struct expected_values *e, double tolerance, unsigned threads,
                     struct validation_result *out)
{
    const void *arrays[3] = {a, b, c};
    const double wants[3] = {e->a, e->b, e->c};
    out->passed = true;
    out->max_rel_error = 0.0;
    out->tolerance = tolerance;
    out->stream_epsilon = stream_epsilon(type);
    out->failed_array = 0;
    out->first_bad_index = 0;
    out->first_bad_value = out->first_bad_expected = 0.0;
    out->failed_reduction = -1;
    for (int i = 0; i < 3; i++) {
        size_t bad;
        double worst =
            type == TYPE_FLOAT
                ? check_float(arrays[i], n, wants[i], tolerance, threads, &bad, &out->arrays[i])
                : check_double(arrays[i], n, wants[i], tolerance, threads, &bad, &out->arrays[i]);
        if (worst > out->max_rel_error) out->max_rel_error = worst;
        if (bad < n && out->passed) {
            out->passed = false;
            out->failed_array = (char)('a' + i);
            out->first_bad_index = bad;
            out->first_bad_value = type == TYPE_FLOAT ? (double)((const float *)arrays[i])[bad]
                                                      : ((const double *)arrays[i])[bad];
            out->first_bad_expected = wants[i];
        }
    }
}
