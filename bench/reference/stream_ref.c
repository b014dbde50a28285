/* A plain STREAM reference for bench/compare.sh: the four loops as STREAM writes them, heap
 * arrays first-touched in parallel, compiled by gcc -O3 -fopenmp with no tuning at all.
 * Usage: stream_ref ELEMENTS [NTIMES]   (threads and binding from OMP_* variables)
 * Prints "Copy: <best MB/s>" lines like STREAM's table. Written for membench, not STREAM's
 * code. */
#include <float.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s ELEMENTS [NTIMES]\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    int ntimes = argc > 2 ? atoi(argv[2]) : 10;
    if (n <= 0 || ntimes < 2) return 2;
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
           *c = malloc(n * sizeof(double));
    if (!a || !b || !c) return 3;
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }
    const double q = 3.0;
    const char *names[4] = {"Copy", "Scale", "Add", "Triad"};
    const double words[4] = {2, 2, 3, 3};
    double best[4] = {DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX};
    for (int k = 0; k < ntimes; k++) {
        double t[4];
        t[0] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long j = 0; j < n; j++) c[j] = a[j];
        t[0] = omp_get_wtime() - t[0];
        t[1] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long j = 0; j < n; j++) b[j] = q * c[j];
        t[1] = omp_get_wtime() - t[1];
        t[2] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long j = 0; j < n; j++) c[j] = a[j] + b[j];
        t[2] = omp_get_wtime() - t[2];
        t[3] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long j = 0; j < n; j++) a[j] = b[j] + q * c[j];
        t[3] = omp_get_wtime() - t[3];
        for (int i = 0; k > 0 && i < 4; i++)
            if (t[i] < best[i]) best[i] = t[i];
    }
    for (int i = 0; i < 4; i++)
        printf("%s: %.1f\n", names[i], 1e-6 * words[i] * 8.0 * (double)n / best[i]);
    double check = a[n / 2] + b[n / 3] + c[n - 1]; /* keeps every loop's result alive */
    fprintf(stderr, "checksum %g\n", check);
    free(a);
    free(b);
    free(c);
    return 0;
}
