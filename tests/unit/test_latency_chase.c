/* The --latency chase: its order is one cycle over every cache line, no hop stays in a page or
 * a 4 KiB line slot, the linked chain ends where the order predicts, and the checker catches
 * an order that is not one cycle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/latency_chase.h"

#define PAGE_LINES_4K 64
#define PAGE_LINES_2M 32768

/* Follows the ring from order[0] and counts the lines until it comes back. */
static size_t cycle_length(const uint32_t *order, size_t n)
{
    uint32_t *next = malloc(n * sizeof(uint32_t));
    assert_non_null(next);
    for (size_t k = 0; k < n; k++)
        next[order[k]] = order[(k + 1) % n];
    size_t len = 0;
    uint32_t at = order[0];
    do {
        at = next[at];
        len++;
    } while (at != order[0] && len <= n);
    free(next);
    return len;
}

static void check_order(size_t n, size_t page_lines, uint64_t seed)
{
    uint32_t *order = malloc(n * sizeof(uint32_t));
    assert_non_null(order);
    assert_int_equal(latency_order_build(order, n, page_lines, seed, NULL), 0);
    char why[200] = "";
    assert_true(latency_order_check(order, n, page_lines, why, sizeof(why)));
    assert_int_equal(cycle_length(order, n), n); /* a single cycle through every line */
    for (size_t k = 0; k < n; k++) {
        uint32_t a = order[k], b = order[(k + 1) % n];
        assert_int_not_equal(a / page_lines, b / page_lines); /* another page */
        assert_int_not_equal(a % 64, b % 64);                 /* another line slot */
    }
    free(order);
}

static void single_cycle_across_pages(void **state)
{
    (void)state;
    check_order(4096, PAGE_LINES_4K, 1);              /* 64 pages of 4 KiB */
    check_order(3 * PAGE_LINES_2M, PAGE_LINES_2M, 7); /* 3 pages of 2 MiB */
    check_order(2 * PAGE_LINES_2M, PAGE_LINES_2M, 3); /* two pages: every hop alternates */
    check_order(1000, PAGE_LINES_4K, 11);             /* a partial last page */
}

static void random_not_sequential(void **state)
{
    (void)state;
    size_t n = 1 << 16;
    uint32_t *a = malloc(n * sizeof(uint32_t)), *b = malloc(n * sizeof(uint32_t));
    assert_int_equal(latency_order_build(a, n, PAGE_LINES_4K, 1, NULL), 0);
    assert_int_equal(latency_order_build(b, n, PAGE_LINES_4K, 2, NULL), 0);
    size_t same = 0, ascending = 0;
    for (size_t k = 0; k < n; k++) {
        same += a[k] == b[k];
        ascending += a[(k + 1) % n] == a[k] + 1;
    }
    assert_true(same < n / 100);    /* the seed decides the order */
    assert_int_equal(ascending, 0); /* never the next line */
    free(a);
    free(b);
}

static void impossible_orders_refused(void **state)
{
    (void)state;
    uint32_t order[64];
    assert_int_equal(latency_order_build(order, 64, PAGE_LINES_4K, 1, NULL), -1); /* one page */
    assert_int_equal(latency_order_build(order, 2, 1, 1, NULL), -1);
}

static void checker_catches_two_cycles(void **state)
{
    (void)state;
    size_t n = 256;
    uint32_t order[256];
    assert_int_equal(latency_order_build(order, n, PAGE_LINES_4K, 5, NULL), 0);
    char why[200] = "";
    order[10] = order[200]; /* a line twice, another never: the ring is not one cycle */
    assert_false(latency_order_check(order, n, PAGE_LINES_4K, why, sizeof(why)));
    assert_non_null(strstr(why, "visited twice"));
    assert_int_equal(latency_order_build(order, n, PAGE_LINES_4K, 5, NULL), 0);
    uint32_t t = order[1]; /* put two lines of one page next to each other */
    for (size_t k = 2; k < n; k++)
        if (order[k] / PAGE_LINES_4K == order[0] / PAGE_LINES_4K) {
            order[1] = order[k];
            order[k] = t;
            break;
        }
    assert_false(latency_order_check(order, n, PAGE_LINES_4K, why, sizeof(why)));
    assert_non_null(strstr(why, "one page"));
}

static void chase_ends_where_predicted(void **state)
{
    (void)state;
    size_t n = 8192;
    char *base = aligned_alloc(4096, n * LATENCY_LINE_BYTES);
    uint32_t *order = malloc(n * sizeof(uint32_t));
    assert_non_null(base);
    assert_int_equal(latency_order_build(order, n, PAGE_LINES_4K, 9, NULL), 0);
    latency_chain_link(base, order, n, NULL);
    void *start = base + (size_t)order[0] * LATENCY_LINE_BYTES;
    for (uint64_t hops = 0; hops < 3 * n; hops += 997)
        assert_ptr_equal(latency_chase(start, hops),
                         base + (size_t)order[hops % n] * LATENCY_LINE_BYTES);
    assert_ptr_equal(latency_chase(start, n), start); /* back after n hops */
    free(order);
    free(base);
}

static int stop_calls, stop_after;

static int counting_stop(void)
{
    return ++stop_calls > stop_after;
}

/* Building and linking a big chain asks its stop function every LATENCY_STOP_CHECK lines or
 * more often, and ends as soon as it answers (a 2 GiB buffer must answer a signal at once). */
static void long_loops_ask_to_stop(void **state)
{
    (void)state;
    size_t n = (size_t)1 << 20; /* 64 MiB of lines */
    uint32_t *order = malloc(n * sizeof(uint32_t));
    char *base = aligned_alloc(4096, n * LATENCY_LINE_BYTES);
    assert_non_null(order);
    assert_non_null(base);
    stop_calls = 0;
    stop_after = 1 << 30;
    assert_int_equal(latency_order_build(order, n, PAGE_LINES_4K, 3, counting_stop), 0);
    assert_true((size_t)stop_calls >= n / LATENCY_STOP_CHECK);
    stop_calls = 0;
    assert_int_equal(latency_chain_link(base, order, n, counting_stop), 0);
    assert_true((size_t)stop_calls >= n / LATENCY_STOP_CHECK);
    for (int after = 0; after < 3; after++) {
        stop_calls = 0;
        stop_after = after;
        assert_int_equal(latency_order_build(order, n, PAGE_LINES_4K, 3, counting_stop),
                         LATENCY_STOPPED);
        assert_int_equal(stop_calls, after + 1);
        stop_calls = 0;
        assert_int_equal(latency_chain_link(base, order, n, counting_stop), LATENCY_STOPPED);
        assert_int_equal(stop_calls, after + 1);
    }
    free(base);
    free(order);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_cycle_across_pages),  cmocka_unit_test(random_not_sequential),
        cmocka_unit_test(impossible_orders_refused),  cmocka_unit_test(checker_catches_two_cycles),
        cmocka_unit_test(chase_ends_where_predicted), cmocka_unit_test(long_loops_ask_to_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
