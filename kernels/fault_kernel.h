#ifndef MEMBENCH_FAULT_KERNEL_H
#define MEMBENCH_FAULT_KERNEL_H

/* The fault probe's timed loops: one byte per base page of a region, written (anonymous
 * memory) or read (a file mapping), so that the first touch of each page faults; the loop
 * timed with CLOCK_MONOTONIC and its faults counted with getrusage around it. No I/O here: the
 * engine (src/probes/fault_probe.c) maps, checks and reports. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "kernels/stop_check.h"

/* Minor and major faults between two getrusage readings. */
struct fault_counts {
    uint64_t minor, major;
};
struct fault_counts fault_counts_delta(const struct rusage *before, const struct rusage *after);

/* One timed touch: how long the loop took and the faults the thread took meanwhile. */
struct fault_touch {
    double seconds;
    struct fault_counts counts;
};

/* Writes one byte per base page of base[0 .. pages base pages). Returns false when stop
 * interrupted it (out then holds nothing of use). */
bool fault_touch_write(char *base, uint64_t pages, stop_fn stop, struct fault_touch *out);

/* Reads one byte per base page of a file mapping; false when stop interrupted it. */
bool fault_touch_read(const char *base, uint64_t pages, stop_fn stop, struct fault_touch *out);

#endif
