#ifndef MEMBENCH_STOP_CHECK_H
#define MEMBENCH_STOP_CHECK_H

/* How every long loop of a kernel ends early, the one mechanism for a signal and a
 * --time-limit: the caller hands the kernel a stop function (interrupt_should_stop(), or a
 * wrapper that names a test point; NULL: never) and the loop asks it at a bounded interval of
 * work: every op, point or clock, every STOP_CHECK_PAGES pages of a touch, every
 * STOP_CHECK_ACCESSES accesses of a chase. A loop whose length comes from an option (a trial
 * count, a size) never runs unchecked for longer than one such interval. */

#include <stdbool.h>
#include <stdint.h>

typedef int (*stop_fn)(void);

static inline bool stop_asked(stop_fn stop)
{
    return stop && stop() != 0;
}

/* Pages touched between two checks: 4 MiB of 4 KB pages, a few ms of faults. */
#define STOP_CHECK_PAGES 1024u

/* Accesses of a timed chase or walk between two checks: 256 Ki, from about 0.1 ms (cache hits)
 * to some 50 ms (a page walk and a memory miss each); one check (an atomic load and a clock
 * read) is then under 0.02% of a slice, so slicing a timed run does not move its figure. */
#define STOP_CHECK_ACCESSES ((uint64_t)1 << 18)

#endif
