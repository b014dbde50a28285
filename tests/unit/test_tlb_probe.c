/* The TLB probe's memory layout and chains: one element per page with staggered lines, the
 * control's packing, a single cycle through every element, the inc loop's visiting order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/tlb_probe.h"
#include "src/base/page_sizes.h"

static void spread_offsets(void **state)
{
    (void)state;
    for (size_t i = 0; i < 300; i++) {
        size_t off = tlb_element_offset(TLB_LAYOUT_SPREAD, i, 300, 4096, true);
        assert_int_equal(off / 4096, i);             /* its own page */
        assert_int_equal((off % 4096) / 64, i % 64); /* line i mod 64 */
        assert_int_equal(tlb_element_offset(TLB_LAYOUT_SPREAD, i, 300, 4096, false), i * 4096);
        size_t huge = tlb_element_offset(TLB_LAYOUT_SPREAD, i, 300, 2u << 20, true);
        assert_int_equal(huge / (2u << 20), i);
        assert_int_equal((huge % (2u << 20)) / 64, i); /* 32768 lines per 2 MB page */
    }
    assert_int_equal(tlb_layout_bytes(TLB_LAYOUT_SPREAD, 10, 4096), 40960);
}

/* The control at base page B (L = B/64 lines a page): n lines in ceil(n/L) pages, every line used
 * once, element i on line i mod L like the sweep (so the same count per cache set and page
 * offset), consecutive elements in different pages except where the line wraps around. */
static void dense_offsets_at(size_t B)
{
    const size_t L = B / 64;
    page_sizes_inject(B, NULL, NULL);
    static const size_t sizes[] = {1, 7, 64, 65, 100, 768, 1000, 4096, 5000, 70000};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s], pages = (n + L - 1) / L;
        assert_int_equal(tlb_layout_bytes(TLB_LAYOUT_DENSE, n, B), pages * B);
        char *seen = calloc(pages * L, 1);
        size_t *per_set = calloc(L, sizeof(size_t)), same_page = 0;
        for (size_t i = 0; i < n; i++) {
            size_t off = tlb_element_offset(TLB_LAYOUT_DENSE, i, n, B, true);
            assert_int_equal(off % 64, 0);
            assert_true(off < pages * B);
            assert_int_equal(seen[off / 64], 0);
            seen[off / 64] = 1;
            per_set[(off / 64) % L]++;
            assert_int_equal((off % B) / 64, i % L);
            if (i > 0 && pages > 1)
                same_page += off / B == tlb_element_offset(TLB_LAYOUT_DENSE, i - 1, n, B, true) / B;
        }
        size_t lo = n, hi = 0;
        for (size_t k = 0; k < L; k++) {
            lo = per_set[k] < lo ? per_set[k] : lo;
            hi = per_set[k] > hi ? per_set[k] : hi;
        }
        assert_true(hi - lo <= 1 || n < L);
        assert_true(same_page <= n / L + 1); /* only where the line wraps around */
        free(seen);
        free(per_set);
    }
    page_sizes_inject(4096, NULL, NULL);
}

static void dense_offsets(void **state)
{
    (void)state;
    dense_offsets_at(4096);
}

static void dense_offsets_16k(void **state)
{
    (void)state;
    dense_offsets_at(16384);
}

static void dense_offsets_64k(void **state)
{
    (void)state;
    dense_offsets_at(65536);
}

/* The sweep at a 64 KB base page: one element per 64 KB page, staggered over its 1024 lines. */
static void spread_offsets_64k(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2000; i++) {
        size_t off = tlb_element_offset(TLB_LAYOUT_SPREAD, i, 2000, 65536, true);
        assert_int_equal(off / 65536, i);
        assert_int_equal((off % 65536) / 64, i % 1024);
    }
    assert_int_equal(tlb_layout_bytes(TLB_LAYOUT_SPREAD, 10, 65536), 655360);
}

/* The page-walk loads stride by the base page: at 16 KB, page i's word is at i * 16 KB. */
static void walk_loads_16k(void **state)
{
    (void)state;
    enum { N = 16, B = 16384 };
    page_sizes_inject(B, NULL, NULL);
    char *mem = aligned_alloc(B, N * B);
    memset(mem, 0, N * B);
    for (size_t i = 0; i < N; i++)
        *(uint32_t *)(mem + i * B + (i % 64) * 64) = (uint32_t)i + 1;
    uint32_t order[N];
    tlb_shuffle(order, N, 3);
    size_t pos = 0;
    assert_int_equal(tlb_walk_loads(mem, order, N, &pos, N), N * (N + 1) / 2);
    free(mem);
    page_sizes_inject(4096, NULL, NULL);
}

static void shuffle_is_permutation(void **state)
{
    (void)state;
    uint32_t a[1000], b[1000];
    tlb_shuffle(a, 1000, 42);
    tlb_shuffle(b, 1000, 42);
    assert_memory_equal(a, b, sizeof(a)); /* deterministic */
    char seen[1000] = {0};
    int moved = 0;
    for (int i = 0; i < 1000; i++) {
        assert_true(a[i] < 1000);
        assert_int_equal(seen[a[i]], 0);
        seen[a[i]] = 1;
        moved += a[i] != (uint32_t)i;
    }
    assert_true(moved > 900);
    tlb_shuffle(b, 1000, 43);
    assert_memory_not_equal(a, b, sizeof(a));
}

/* Following the links from the start visits every element exactly once and returns. */
static void chase_is_one_cycle(void **state)
{
    (void)state;
    enum { N = 300 };
    static const enum tlb_order orders[] = {TLB_ORDER_RANDOM, TLB_ORDER_SEQ};
    static const enum tlb_layout layouts[] = {TLB_LAYOUT_SPREAD, TLB_LAYOUT_DENSE};
    char *mem = aligned_alloc(4096, N * 4096);
    uint32_t order[N];
    size_t offsets[N];
    for (int o = 0; o < 2; o++)
        for (int l = 0; l < 2; l++) {
            memset(mem, 0, N * 4096);
            struct tlb_chain c;
            tlb_chain_build(&c, TLB_MODE_CHASE, mem, N, layouts[l], 4096, true, orders[o], 7, order,
                            offsets);
            void **start = c.cursor, **p = start;
            char seen[N * 64] = {0};
            for (int k = 0; k < N; k++) {
                size_t line = (size_t)((char *)p - mem) / 64;
                assert_true(line < N * 64);
                assert_int_equal(seen[line], 0);
                seen[line] = 1;
                p = (void **)*p;
            }
            assert_ptr_equal(p, start);
            tlb_chain_run(&c, 8 * N); /* a multiple of N: back at the start */
            assert_ptr_equal(c.cursor, start);
            assert_int_not_equal(c.sink, 0);
        }
    free(mem);
}

/* The reuse chase: every word of every line the layout places is visited exactly once per
 * traversal, in one cycle, and each page keeps the sweep's (or the control's) single line. */
static void reuse_chain_visits_every_slot(void **state)
{
    (void)state;
    enum { N = 200, SLOTS = 8 };
    static const enum tlb_layout layouts[] = {TLB_LAYOUT_SPREAD, TLB_LAYOUT_DENSE};
    char *mem = aligned_alloc(4096, N * 4096);
    uint32_t order[N * SLOTS];
    size_t offsets[N * SLOTS];
    for (int l = 0; l < 2; l++) {
        memset(mem, 0, N * 4096);
        struct tlb_chain c;
        tlb_chain_build_reuse(&c, mem, N, SLOTS, layouts[l], 4096, 11, order, offsets);
        assert_int_equal(c.n, N * SLOTS);
        static char seen[N * 4096 / 8];
        memset(seen, 0, sizeof(seen));
        void **start = c.cursor, **p = start;
        for (int k = 0; k < N * SLOTS; k++) {
            size_t off = (size_t)((char *)p - mem);
            assert_int_equal(off % sizeof(void *), 0);
            assert_int_equal(seen[off / 8], 0);
            seen[off / 8] = 1;
            size_t line_start = off / 64 * 64, line_index = 0;
            for (; line_index < N; line_index++) /* its line is one of the layout's */
                if (tlb_element_offset(layouts[l], line_index, N, 4096, true) == line_start) break;
            assert_true(line_index < N);
            p = (void **)*p;
        }
        assert_ptr_equal(p, start);
    }
    free(mem);
}

/* inc: each run adds one to every element it visits, in the visiting order. */
static void inc_visits_every_element(void **state)
{
    (void)state;
    enum { N = 64 };
    char *mem = aligned_alloc(4096, N * 4096);
    memset(mem, 0, N * 4096);
    uint32_t order[N];
    size_t offsets[N];
    struct tlb_chain c;
    tlb_chain_build(&c, TLB_MODE_INC, mem, N, TLB_LAYOUT_SPREAD, 4096, true, TLB_ORDER_RANDOM, 3,
                    order, offsets);
    tlb_chain_run(&c, 3 * N);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(*(int *)(mem + tlb_element_offset(TLB_LAYOUT_SPREAD, i, N, 4096, true)),
                         3);
    assert_int_equal(c.pos, 0);
    free(mem);
}

static void samples_and_loads(void **state)
{
    (void)state;
    page_sizes_inject(4096, NULL, NULL);
    enum { N = 32 };
    char *mem = aligned_alloc(4096, N * 4096);
    memset(mem, 0, N * 4096);
    uint32_t order[N];
    size_t offsets[N];
    struct tlb_chain c;
    tlb_chain_build(&c, TLB_MODE_CHASE, mem, N, TLB_LAYOUT_SPREAD, 4096, true, TLB_ORDER_RANDOM, 1,
                    order, offsets);
    uint64_t chunk = tlb_calibrate(&c, 0.0002, NULL);
    assert_true(chunk >= N && chunk % 8 == 0);
    struct tlb_sample s;
    assert_true(tlb_sample_run(&c, chunk, 5, NULL, &s));
    assert_int_equal(s.chunks, 5);
    assert_int_equal(s.accesses, 5 * chunk);
    assert_true(s.ns_per_access > 0 && s.best_chunk_ns <= s.ns_per_access);
    assert_true(s.seconds > 0);
    for (size_t i = 0; i < N; i++)
        *(uint32_t *)(mem + i * 4096 + (i % 64) * 64) = 1;
    tlb_shuffle(order, N, 5);
    size_t pos = 0;
    assert_int_equal(tlb_walk_loads(mem, order, N, &pos, 3 * N + 5), 3 * N + 5);
    assert_int_equal(pos, 5);
    free(mem);
}

/* The tests write 4 KB where they mean the base page, whatever the machine's is. */
int main(void)
{
    page_sizes_inject(4096, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spread_offsets),
        cmocka_unit_test(dense_offsets),
        cmocka_unit_test(dense_offsets_16k),
        cmocka_unit_test(dense_offsets_64k),
        cmocka_unit_test(spread_offsets_64k),
        cmocka_unit_test(walk_loads_16k),
        cmocka_unit_test(shuffle_is_permutation),
        cmocka_unit_test(chase_is_one_cycle),
        cmocka_unit_test(inc_visits_every_element),
        cmocka_unit_test(samples_and_loads),
        cmocka_unit_test(reuse_chain_visits_every_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
