/* Every kernel row of one ISA (named as the arguments; none: every ISA this CPU has), double
 * and float, normal and nt stores, on odd lengths (the vector loop's tail), misaligned starts
 * (the nt peel) and ranges split like 1 to 3 threads, equals the scalar reference element for
 * element. Prints what it checked and the vector length the ISA really has, so a CI log run
 * under qemu-aarch64 -cpu max,sve-default-vector-length=N shows which length was tested;
 * MEMBENCH_TEST_VECTOR_BYTES=N makes a different length a failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_table.h"
#include "kernels/validate.h"

enum { MAX_N = 4099, OFFSETS = 4 };
static const size_t sizes[] = {1, 2, 3, 7, 8, 15, 17, 31, 33, 64, 65, 257, 1003, MAX_N};

static void fill(void *x, size_t n, enum elem_type type, double seed)
{
    for (size_t j = 0; j < n; j++) {
        double v = seed + 0.001 * (double)(j % 1000) + 0.25 * (double)(j % 7);
        if (type == TYPE_FLOAT)
            ((float *)x)[j] = (float)v;
        else
            ((double *)x)[j] = v;
    }
}

/* One kernel variant at one length, offset and thread count; 0 when it matches. */
static int check_one(kernel_fn fn, enum kernel_id k, enum elem_type type, size_t n, size_t offset,
                     int threads, void *got[3], void *want[3])
{
    size_t es = elem_size(type);
    char *g[3], *w[3];
    for (int i = 0; i < 3; i++) {
        g[i] = (char *)got[i] + (size_t)(i + 1) * offset * es; /* each array misaligned apart */
        w[i] = (char *)want[i] + (size_t)(i + 1) * offset * es;
        fill(g[i], n, type, 1.0 + i);
        fill(w[i], n, type, 1.0 + i);
    }
    double sum = 0.0, ref = 0.0;
    for (int t = 0; t < threads; t++) {
        size_t lo = stream_chunk_begin(n, threads, t, type);
        size_t hi = t + 1 < threads ? stream_chunk_begin(n, threads, t + 1, type) : n;
        sum += fn(g[0], g[1], g[2], lo, hi, STREAM_SCALAR);
        ref += kernel_reference(k, type)(w[0], w[1], w[2], lo, hi, STREAM_SCALAR);
    }
    for (int i = 0; i < 3; i++)
        if (memcmp(g[i], w[i], n * es) != 0) return 'a' + i;
    return fabs(sum - ref) > 1e-5 * fabs(ref) ? 's' : 0;
}

/* Every row x stores x type x length x offset of one ISA; the number of failures. */
static int check_isa(enum isa isa, void *got[3], void *want[3])
{
    int failed = 0, checked = 0;
    for (int stores = STORES_NORMAL; stores <= STORES_NT; stores++)
        for (int type = TYPE_DOUBLE; type <= TYPE_FLOAT; type++)
            for (int k = 0; k < KERNEL_COUNT; k++) {
                kernel_fn fn = kernel_function((enum kernel_id)k, isa, stores, type);
                for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
                    for (size_t off = 0; off < OFFSETS; off++, checked++) {
                        int threads = (int)(1 + (si + off) % 3);
                        int bad = check_one(fn, k, type, sizes[si], off, threads, got, want);
                        if (!bad) continue;
                        failed++;
                        printf(
                            "FAIL %s %s %s, %s stores: n %zu offset %zu threads %d: %s differs\n",
                            isa_name(isa), kernel_table[k].name, elem_type_name(type),
                            stores ? "nt" : "normal", sizes[si], off, threads,
                            bad == 's'   ? "the sum"
                            : bad == 'a' ? "a"
                            : bad == 'b' ? "b"
                                         : "c");
                    }
            }
    printf("%s: %d variants checked, %d failed\n", isa_name(isa), checked, failed);
    return failed;
}

static void print_rows(enum isa isa)
{
    size_t bytes = isa_vector_bytes(isa);
    printf("%s (vector register %zu bits):", isa_name(isa), bytes * 8);
    for (int k = 0; k < KERNEL_COUNT; k++)
        printf(" %s", kernel_table[k].name);
    printf("; double, float; normal, nt stores; n = 1..%d, offsets 0..%d elements\n", MAX_N,
           OFFSETS - 1);
}

/* 0 when the ISA is this CPU's, with the vector length MEMBENCH_TEST_VECTOR_BYTES asks. */
static int check_present(enum isa isa)
{
    if (!isa_supported(isa)) {
        printf("FAIL %s: not %s on this CPU (this %s build has %s)\n", isa_name(isa),
               isa_compiled(isa) ? "available" : "compiled", isa_build_arch(), isa_build_list());
        return 1;
    }
    const char *want = getenv("MEMBENCH_TEST_VECTOR_BYTES");
    if (want && *want && strtoul(want, NULL, 10) != isa_vector_bytes(isa)) {
        printf("FAIL %s: vector register %zu bytes, expected %s\n", isa_name(isa),
               isa_vector_bytes(isa), want);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    size_t bytes = ((MAX_N + (OFFSETS + 1) * 3) * sizeof(double) + 63) / 64 * 64;
    void *got[3], *want[3];
    for (int i = 0; i < 3; i++) {
        got[i] = aligned_alloc(64, bytes);
        want[i] = aligned_alloc(64, bytes);
        if (!got[i] || !want[i]) return 1;
    }
    int failed = 0;
    for (int i = argc > 1 ? 1 : 0; i < (argc > 1 ? argc : ISA_COUNT); i++) {
        enum isa isa = (enum isa)i;
        if (argc > 1 && isa_parse(argv[i], &isa) != 0) {
            printf("FAIL %s: not an ISA name\n", argv[i]);
            failed++;
            continue;
        }
        if (argc == 1 && !isa_supported(isa)) continue;
        if (check_present(isa)) {
            failed++;
            continue;
        }
        print_rows(isa);
        failed += check_isa(isa, got, want);
    }
    for (int i = 0; i < 3; i++) {
        free(got[i]);
        free(want[i]);
    }
    return failed ? 1 : 0;
}
