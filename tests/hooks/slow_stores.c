/* MEMBENCH_TEST_SLOW_STORES=KIND: the kernels with that store kind are 4x slower, so that
 * --stores auto has a clear winner to find on any machine; KERNEL:KIND,... slows that kind of
 * the kernels named only (e.g. Copy:nt,Triad:normal: each kernel has its own winner). */
#include "tests/hooks/slow_stores.h"

#include <string.h>
#include <strings.h>

#include "src/base/clock.h"

static int slow_kind[KERNEL_COUNT]; /* the slowed kind + 1; 0 = none */
static kernel_fn original[KERNEL_COUNT];

static int kind_of(const char *word, size_t len)
{
    if (len == 6 && strncmp(word, "normal", 6) == 0) return STORES_NORMAL;
    if (len == 2 && strncmp(word, "nt", 2) == 0) return STORES_NT;
    return -1;
}

int slow_stores_select(const char *spec)
{
    int all = kind_of(spec, strlen(spec));
    if (all >= 0) {
        for (int k = 0; k < KERNEL_COUNT; k++)
            slow_kind[k] = all + 1;
        return 0;
    }
    for (const char *at = spec; *at;) {
        const char *colon = strchr(at, ':'), *end = strchr(at, ',');
        if (!end) end = at + strlen(at);
        if (!colon || colon > end) return -1;
        int k;
        for (k = 0; k < KERNEL_COUNT && (strlen(kernel_table[k].name) != (size_t)(colon - at) ||
                                         strncasecmp(kernel_table[k].name, at, colon - at));
             k++)
            ;
        int kind = kind_of(colon + 1, (size_t)(end - colon - 1));
        if (k == KERNEL_COUNT || kind < 0) return -1;
        slow_kind[k] = kind + 1;
        at = *end ? end + 1 : end;
    }
    return 0;
}

/* Sleeps, not spins, the extra time: a spinning thread would hold a CPU that another thread
 * of the run needs where threads outnumber CPUs (taskset -c 0 with -t 2), and the slowdown
 * would shrink to whatever the scheduler left of it. */
static double slowly(enum kernel_id k, void *a, void *b, void *c, size_t begin, size_t end,
                     double q)
{
    double start = timer_now();
    double sum = original[k](a, b, c, begin, end, q);
    double until = start + 4.0 * (timer_now() - start);
    while (timer_now() < until)
        sleep_until(until);
    return sum;
}

#define SLOW(ID, ...)                                                                              \
    static double slow_##ID(void *a, void *b, void *c, size_t begin, size_t end, double q)         \
    {                                                                                              \
        return slowly(KERNEL_##ID, a, b, c, begin, end, q);                                        \
    }
#define SLOW_ENTRY(ID, ...) [KERNEL_##ID] = slow_##ID,
KERNEL_LIST(SLOW)
static const kernel_fn slow[KERNEL_COUNT] = {KERNEL_LIST(SLOW_ENTRY)};

kernel_fn slow_stores_substitute(enum kernel_id k, enum store_kind kind, kernel_fn chosen)
{
    if ((int)kind + 1 != slow_kind[k]) return chosen;
    original[k] = chosen;
    return slow[k];
}
