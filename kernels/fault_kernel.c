#include "kernels/fault_kernel.h"

#include <time.h>

#include "src/base/page_sizes.h"

struct fault_counts fault_counts_delta(const struct rusage *before, const struct rusage *after)
{
    struct fault_counts d = {0, 0};
    if (after->ru_minflt > before->ru_minflt)
        d.minor = (uint64_t)(after->ru_minflt - before->ru_minflt);
    if (after->ru_majflt > before->ru_majflt)
        d.major = (uint64_t)(after->ru_majflt - before->ru_majflt);
    return d;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The touching loops are what is measured: not instrumented, because a sanitizer's checks
 * read and write shadow memory of their own (1/8 of the region for ASan, more for TSan), and
 * the faults on those pages would be counted as the region's. */
#define UNINSTRUMENTED __attribute__((no_sanitize_address, no_sanitize_thread))

/* One byte written per base page: the first touch of each page faults. Returns false when
 * stop interrupted it. */
UNINSTRUMENTED static bool touch_write(stop_fn stop, char *base, uint64_t pages)
{
    volatile char *p = base;
    const uint64_t small = page_base_bytes();
    for (uint64_t i = 0; i < pages; i++) {
        if (i % STOP_CHECK_PAGES == 0 && i && stop_asked(stop)) return false;
        p[i * small] = (char)(i | 1);
    }
    return true;
}

/* One byte read per base page of a file mapping; false when stop interrupted it. */
UNINSTRUMENTED static bool touch_read(stop_fn stop, const char *base, uint64_t pages,
                                      uint64_t *sum_out)
{
    const volatile char *p = base;
    const uint64_t small = page_base_bytes();
    uint64_t sum = 0;
    for (uint64_t i = 0; i < pages; i++) {
        if (i % STOP_CHECK_PAGES == 0 && i && stop_asked(stop)) return false;
        sum += (unsigned char)p[i * small];
    }
    *sum_out = sum;
    return true;
}

bool fault_touch_write(char *base, uint64_t pages, stop_fn stop, struct fault_touch *out)
{
    struct rusage before, after;
    getrusage(RUSAGE_THREAD, &before);
    double t0 = now_s();
    bool touched = touch_write(stop, base, pages);
    double t1 = now_s();
    getrusage(RUSAGE_THREAD, &after);
    out->seconds = t1 - t0;
    out->counts = fault_counts_delta(&before, &after);
    return touched;
}

bool fault_touch_read(const char *base, uint64_t pages, stop_fn stop, struct fault_touch *out)
{
    struct rusage before, after;
    getrusage(RUSAGE_THREAD, &before);
    double t0 = now_s();
    uint64_t sum = 0;
    bool touched = touch_read(stop, base, pages, &sum);
    double t1 = now_s();
    getrusage(RUSAGE_THREAD, &after);
    __asm__ volatile("" : : "r"(sum));
    out->seconds = t1 - t0;
    out->counts = fault_counts_delta(&before, &after);
    return touched;
}
