/* A plain pointer chase, the reference for membench --latency (bench/latency_ab.sh).
 * No membench code: a random cyclic permutation of the buffer's 64-byte lines (Sattolo's
 * algorithm: one cycle through every line), each line holding the next one's address, on
 * THP (madvise), hugetlb 2 MiB or 4 KiB pages, pinned to one CPU; 11 timed repetitions of N
 * dependent loads after a warm-up, the median printed.
 *   gcc -O3 -o build/chase_ref bench/reference/chase_ref.c
 *   build/chase_ref BYTES thp|2m|4k CPU   ->  "chase_ref ns=92.41 min=... max=... hops=..." */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64
#define REPS 11
#define HUGE (2ul << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void *chase(void *p, uint64_t hops)
{
    void **q = p;
    while (hops--)
        q = (void **)*q;
    return q;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: chase_ref BYTES thp|2m|4k CPU\n");
        return 2;
    }
    size_t bytes = strtoull(argv[1], NULL, 10) / HUGE * HUGE;
    const char *pages = argv[2];
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[3]), &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        perror("chase_ref: sched_setaffinity");
        return 3;
    }
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (strcmp(pages, "2m") == 0 ? MAP_HUGETLB : 0);
    char *raw = mmap(NULL, bytes + HUGE, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (raw == MAP_FAILED) {
        perror("chase_ref: mmap");
        return 3;
    }
    char *base = (char *)(((uintptr_t)raw + HUGE - 1) / HUGE * HUGE);
    madvise(base, bytes, strcmp(pages, "4k") == 0 ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
    memset(base, 0, bytes);
    size_t n = bytes / LINE;
    uint32_t *perm = malloc(n * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) { /* Sattolo: j < i, so the result is one n-cycle */
        size_t j = next() % i;
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++) /* line i points at line perm[i] */
        *(void **)(base + (size_t)i * LINE) = base + (size_t)perm[i] * LINE;
    free(perm);
    void *p = base;
    uint64_t hops = 1 << 12;
    for (;;) { /* a repetition of >= 20 ms, as membench */
        double t0 = now();
        p = chase(p, hops);
        if (now() - t0 >= 0.005) break;
        hops *= 2;
    }
    hops *= 4;
    p = chase(p, hops);
    double ns[REPS];
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        p = chase(p, hops);
        ns[r] = (now() - t0) * 1e9 / (double)hops;
    }
    qsort(ns, REPS, sizeof(double), cmp);
    printf("chase_ref ns=%.2f min=%.2f max=%.2f hops=%llu bytes=%zu pages=%s end=%p\n",
           ns[REPS / 2], ns[0], ns[REPS - 1], (unsigned long long)hops, bytes, pages, p);
    return 0;
}
