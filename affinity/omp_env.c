#include "affinity/omp_env.h"

#include "affinity/launch_cpus.h"

#include <ctype.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GOMP_CPU_LIMIT 65536 /* libgomp refuses CPU numbers from here up */

/* One number as libgomp reads it (strtoul, base 0); -1 when there is none or it is too big. */
static long cpu_number(const char **p)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(*p, &end, 0);
    if (errno || end == *p || v >= GOMP_CPU_LIMIT) return -1;
    *p = end;
    return (long)v;
}

/* One item, "N", "N-M" or "N-M:S", as libgomp's parse_affinity reads it. Its CPUs are the
 * list's entries *index on; those below limit (thread i takes entry i) are checked against
 * usable. Returns 0, 1 when such a CPU is not usable (*bad = it), -1 when malformed. */
static int item(const char **p, hwloc_const_bitmap_t usable, unsigned long *index,
                unsigned long limit, long *bad)
{
    long beg = cpu_number(p), end = beg, stride = 1;
    if (beg < 0) return -1;
    if (**p == '-') {
        (*p)++;
        if ((end = cpu_number(p)) < beg) return -1;
        if (**p == ':') {
            (*p)++;
            if ((stride = cpu_number(p)) <= 0) return -1;
        }
    }
    for (long cpu = beg; cpu <= end; cpu += stride, (*index)++)
        if (usable && *index < limit && !hwloc_bitmap_isset(usable, (unsigned)cpu)) {
            *bad = cpu;
            return 1;
        }
    return 0;
}

int omp_env_check(const char *gomp_cpu_affinity, const char *omp_places, const char *omp_proc_bind,
                  hwloc_const_bitmap_t usable, unsigned threads, char *why, size_t why_len)
{
    const char *v = gomp_cpu_affinity;
    if (!v || !*v) return 0;
    if (omp_places && *omp_places) return 0; /* OMP_PLACES wins: libgomp ignores it */
    if (omp_proc_bind && strncasecmp(omp_proc_bind + strspn(omp_proc_bind, " \t"), "false", 5) == 0)
        return 0;
    const char *p = v;
    long bad = -1;
    int rc = 0;
    unsigned long index = 0, limit = threads ? threads : (unsigned long)-1;
    for (;;) { /* items apart by commas or blanks; a comma must have one after it */
        if ((rc = item(&p, usable, &index, limit, &bad)) != 0) break;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ',')
            p++;
        else if (!*p)
            break;
    }
    if (rc == 0) return 0;
    char list[128] = "?";
    if (usable) hwloc_bitmap_list_snprintf(list, sizeof(list), usable);
    if (rc < 0)
        snprintf(why, why_len,
                 "GOMP_CPU_AFFINITY='%.60s' is not a CPU list that libgomp reads (it would "
                 "ignore it): write CPUs such as 0-3,8 or 0-15:2, or unset it",
                 v);
    else
        snprintf(why, why_len,
                 "GOMP_CPU_AFFINITY='%.60s' names CPU %ld for one of this run's %u threads, "
                 "which this process may not use (usable: %.80s), and libgomp would fail to "
                 "start the threads: name only CPUs of %.80s, or unset it (--bind places the "
                 "threads itself)",
                 v, bad, threads, list, list);
    return -1;
}

/* The OpenMP variables that would start fewer threads than a team of `threads` (libgomp starts
 * what they allow, and the run would measure another team). */
static int team_limits(unsigned threads, char *why, size_t why_len)
{
    if (threads < 2) return 0;
    if (omp_get_max_active_levels() < 1) {
        const char *v = getenv("OMP_MAX_ACTIVE_LEVELS");
        snprintf(why, why_len,
                 "OMP_MAX_ACTIVE_LEVELS=%.20s allows no parallel region, so OpenMP would run "
                 "this run's %u threads as one; unset it, or set it to 1 or more",
                 v ? v : "0", threads);
        return -1;
    }
    int limit = omp_get_thread_limit();
    if (limit > 0 && (unsigned)limit < threads) {
        snprintf(why, why_len,
                 "OMP_THREAD_LIMIT=%d lets OpenMP start %d of this run's %u threads; unset or "
                 "raise it, or use fewer threads (--threads)",
                 limit, limit, threads);
        return -1;
    }
    return 0;
}

int omp_env_check_process(unsigned threads, char *why, size_t why_len)
{
    if (team_limits(threads, why, why_len) != 0) return -1;
    hwloc_bitmap_t launch = hwloc_bitmap_alloc();
    if (!launch) return 0; /* nothing to learn: let libgomp try */
    int read = launch_cpus(launch);
    int rc =
        omp_env_check(getenv("GOMP_CPU_AFFINITY"), getenv("OMP_PLACES"), getenv("OMP_PROC_BIND"),
                      read == 0 ? launch : NULL, threads, why, why_len);
    hwloc_bitmap_free(launch);
    return rc;
}
