/* A plain TLB pointer chase to check membench --tlb against: one load per 4 KB page over N
 * pages, the pages visited in one random cycle, each page's pointer on line (p mod 64) so the
 * loads spread over the cache sets. No control, no knee detection: it prints ns per load for
 * N = 16 .. 65536 (doubling, with x1.25 x1.5 x1.75 points between) and leaves the reading to
 * the user. Usage: tlb_chase_ref [MAX_PAGES] [SECONDS_PER_POINT]   (pin it with taskset).
 * Build: gcc -O2 -o tlb_chase_ref bench/reference/tlb_chase_ref.c
 * Written for membench; not derived from any other program's code. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096u
#define LINE 64u

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ns per load over n pages: the best of 5 timings of >= seconds/5 each */
static double chase(char *buf, size_t n, double seconds, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* a random single cycle (Sattolo) */
        size_t j = (size_t)(next_random() % i);
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        size_t from = order[i], to = order[(i + 1) % n];
        *(void **)(buf + from * PAGE + (from % 64) * LINE) = buf + to * PAGE + (to % 64) * LINE;
    }
    void **p = (void **)(buf + order[0] * PAGE + (order[0] % 64) * LINE);
    for (size_t i = 0; i < 4 * n; i++) /* warm up */
        p = (void **)*p;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        uint64_t loads = 0;
        double t0 = now(), t1;
        do {
            for (int k = 0; k < 4096; k++) {
                p = (void **)*p;
                p = (void **)*p;
                p = (void **)*p;
                p = (void **)*p;
            }
            loads += 4 * 4096;
            t1 = now();
        } while (t1 - t0 < seconds / 5);
        double ns = 1e9 * (t1 - t0) / (double)loads;
        if (ns < best) best = ns;
    }
    if (p == NULL) puts("");
    return best;
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoul(argv[1], NULL, 10) : 65536;
    double seconds = argc > 2 ? atof(argv[2]) : 0.2;
    if (max < 16 || !(seconds > 0)) {
        fprintf(stderr, "usage: %s [MAX_PAGES >= 16] [SECONDS_PER_POINT > 0]\n", argv[0]);
        return 2;
    }
    char *buf = mmap(NULL, max * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t *order = malloc(max * sizeof(size_t));
    if (buf == MAP_FAILED || !order) return 3;
    madvise(buf, max * PAGE, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < max; i++)
        buf[i * PAGE] = 1;
    printf("pages,ns_per_load\n");
    for (size_t base = 16; base <= max; base *= 2)
        for (int q = 4; q < 8; q++) {
            size_t n = base * (size_t)q / 4;
            if (n > max) break;
            printf("%zu,%.3f\n", n, chase(buf, n, seconds, order));
            fflush(stdout);
        }
    return 0;
}
