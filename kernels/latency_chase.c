#include "kernels/latency_chase.h"
#include "kernels/stop_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state; /* xorshift64* */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static bool clash(uint32_t a, uint32_t b, size_t page_lines)
{
    return a / page_lines == b / page_lines || a % LATENCY_LINES_PER_4K == b % LATENCY_LINES_PER_4K;
}

/* Whether position k and the next one (in the ring) clash. */
static bool clash_at(const uint32_t *order, size_t n, size_t k, size_t page_lines)
{
    return clash(order[k % n], order[(k + 1) % n], page_lines);
}

static bool clash_around(const uint32_t *order, size_t n, size_t k, size_t page_lines)
{
    return clash_at(order, n, k + n - 1, page_lines) || clash_at(order, n, k, page_lines);
}

static void shuffle(uint32_t *v, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)(next_random(state) % i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Rounds over the pages: each round visits every page that has lines left once, in a random
 * order that does not start on the page the last round ended on; within a page the lines come
 * in a random order. Only the last page can be short, so it runs out first and two pages are
 * left until the end. */
static int interleave_pages(uint32_t *order, size_t n, size_t page_lines, uint64_t *state,
                            int (*stop)(void))
{
    size_t pages = (n + page_lines - 1) / page_lines;
    uint32_t *lines = malloc(n * sizeof(uint32_t));
    uint32_t *active = malloc(pages * sizeof(uint32_t));
    if (!lines || !active) {
        free(lines);
        free(active);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        lines[i] = (uint32_t)i;
    int rc = 0;
    for (size_t p = 0; p < pages && !rc; p++) {
        if (p % (LATENCY_STOP_CHECK / page_lines + 1) == 0 && stop_asked(stop))
            rc = LATENCY_STOPPED;
        active[p] = (uint32_t)p;
        size_t first = p * page_lines, len = n - first < page_lines ? n - first : page_lines;
        shuffle(lines + first, len, state);
    }
    size_t n_active = pages, k = 0, round = 0;
    uint32_t last = UINT32_MAX;
    while (n_active > 0 && !rc) {
        if (stop_asked(stop)) {
            rc = LATENCY_STOPPED;
            break;
        }
        shuffle(active, n_active, state);
        if (active[0] == last && n_active > 1) {
            size_t j = 1 + (size_t)(next_random(state) % (n_active - 1));
            uint32_t t = active[0];
            active[0] = active[j];
            active[j] = t;
        }
        for (size_t i = 0; i < n_active; i++)
            order[k++] = lines[(size_t)active[i] * page_lines + round];
        last = active[n_active - 1];
        round++;
        size_t kept = 0;
        for (size_t i = 0; i < n_active; i++)
            if ((size_t)active[i] * page_lines + round < n && round < page_lines)
                active[kept++] = active[i];
        n_active = kept;
    }
    free(lines);
    free(active);
    return rc;
}

int latency_order_build(uint32_t *order, size_t n, size_t page_lines, uint64_t seed,
                        int (*stop)(void))
{
    if (n < 3 || n > LATENCY_MAX_LINES || page_lines == 0 || n <= page_lines) return -1;
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    int rc = interleave_pages(order, n, page_lines, &state, stop);
    if (rc != 0) return rc;
    /* Any arrangement of the ring is one cycle, so swapping two positions keeps it one:
     * a successor in the same 4 KiB line slot (or, at the end, the same page) is swapped with a
     * random position where neither then clashes with its neighbours. */
    for (int pass = 0; pass < 8; pass++) {
        bool clean = true;
        for (size_t k = 0; k < n; k++) {
            if (k % LATENCY_STOP_CHECK == 0 && stop_asked(stop)) return LATENCY_STOPPED;
            if (!clash_at(order, n, k, page_lines)) continue;
            size_t s = (k + 1) % n;
            bool fixed = false;
            for (int tries = 0; tries < 256 && !fixed; tries++) {
                size_t j = (size_t)(next_random(&state) % n);
                if (j == s) continue;
                uint32_t t = order[s];
                order[s] = order[j];
                order[j] = t;
                fixed = !clash_around(order, n, s, page_lines) &&
                        !clash_around(order, n, j, page_lines);
                if (!fixed) {
                    order[j] = order[s];
                    order[s] = t;
                }
            }
            clean = clean && fixed;
        }
        if (clean) return 0;
    }
    return -1;
}

bool latency_order_check(const uint32_t *order, size_t n, size_t page_lines, char *why,
                         size_t why_len)
{
    uint8_t *seen = calloc((n + 7) / 8, 1);
    if (!seen) {
        snprintf(why, why_len, "out of memory checking the chase order");
        return false;
    }
    bool ok = true;
    for (size_t k = 0; k < n && ok; k++) {
        uint32_t v = order[k];
        if (v >= n || (seen[v / 8] >> (v % 8) & 1)) {
            snprintf(why, why_len, "position %zu holds line %u: %s", k, v,
                     v >= n ? "out of range" : "visited twice, so the ring is not one cycle");
            ok = false;
        } else {
            seen[v / 8] |= (uint8_t)(1u << (v % 8));
        }
    }
    for (size_t k = 0; k < n && ok; k++)
        if (clash_at(order, n, k, page_lines)) {
            snprintf(why, why_len, "lines %u and %u follow each other in one page or line slot",
                     order[k], order[(k + 1) % n]);
            ok = false;
        }
    free(seen);
    return ok;
}

int latency_chain_link(char *base, const uint32_t *order, size_t n, int (*stop)(void))
{
    for (size_t k = 0; k < n; k++) {
        if (k % LATENCY_STOP_CHECK == 0 && stop_asked(stop)) return LATENCY_STOPPED;
        *(void **)(base + (size_t)order[k] * LATENCY_LINE_BYTES) =
            base + (size_t)order[(k + 1) % n] * LATENCY_LINE_BYTES;
    }
    return 0;
}

__attribute__((noinline)) void *latency_chase(void *p, uint64_t hops)
{
    void **q = p;
    for (uint64_t i = hops / 8; i > 0; i--) {
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
        q = (void **)*q;
    }
    for (uint64_t i = hops % 8; i > 0; i--)
        q = (void **)*q;
    return q;
}

__attribute__((noinline)) void latency_load_chunk(double *restrict b, const double *restrict a,
                                                  size_t n, double s)
{
    for (size_t i = 0; i < n; i++)
        b[i] = s * a[i];
}

void latency_spin(uint64_t iterations)
{
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ volatile("" ::: "memory");
}
