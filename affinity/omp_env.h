#ifndef MEMBENCH_OMP_ENV_H
#define MEMBENCH_OMP_ENV_H

#include <stddef.h>

#include <hwloc.h>

/* libgomp ends the process with status 1 ("Thread creation failed: Invalid argument") when
 * GOMP_CPU_AFFINITY gives a thread a CPU this process may not use, and silently ignores a
 * value it cannot read. Thread i of a team of N takes the list's entry i (mod its length), so
 * "0-63" is fine for 2 threads on a 2-CPU node, not for 3. GOMP_CPU_AFFINITY is what libgomp
 * reads when OMP_PLACES is unset and OMP_PROC_BIND is not false. Returns 0 when it is unset,
 * ignored, or gives the first threads (0: every entry) only CPUs of usable (NULL: not
 * checked); -1 with a one-line reason and remedy in why otherwise. */
int omp_env_check(const char *gomp_cpu_affinity, const char *omp_places, const char *omp_proc_bind,
                  hwloc_const_bitmap_t usable, unsigned threads, char *why, size_t why_len);

/* The same for this process and its largest team of threads: its environment, against the
 * CPUs it was launched on (what libgomp reads, whatever a described topology says), and the
 * OpenMP limits (OMP_MAX_ACTIVE_LEVELS, OMP_THREAD_LIMIT) that would start fewer threads. Call
 * from the main thread. */
int omp_env_check_process(unsigned threads, char *why, size_t why_len);

/* What the libraries printed on stderr while they loaded (text, *len bytes): libgomp's
 * complaint that it cannot read an OpenMP variable (OMP_PLACES, OMP_PROC_BIND, ...), which it
 * then ignores, is the judge. -1 when there is one, with a one-line reason and remedy naming
 * the variable and its value in why, and every such complaint (with the line libgomp printed
 * just before it, its detail) cut out of text (*len updated); 0 otherwise, text unchanged. */
int omp_env_refused(char *text, size_t *len, char *why, size_t why_len);

#endif
