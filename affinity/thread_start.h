#ifndef MEMBENCH_THREAD_START_H
#define MEMBENCH_THREAD_START_H

#include <stddef.h>

/* libgomp ends the process with status 1 when it cannot create a team's threads (ulimit -v,
 * ulimit -u, a pids cgroup). This creates n - 1 threads with the stack size libgomp will give
 * them and joins them again. Returns 0 when they all started (or a team that large already
 * did), else -1 with a one-line reason and remedy in why. */
int threads_can_start(unsigned n, char *why, size_t why_len);

#endif
