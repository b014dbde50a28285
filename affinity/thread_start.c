#include "affinity/thread_start.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "src/base/parse.h"

struct gate {
    pthread_mutex_t lock;
    pthread_cond_t open;
    int is_open;
};

static void *wait_at_gate(void *arg)
{
    struct gate *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->is_open)
        pthread_cond_wait(&g->open, &g->lock);
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* OMP_STACKSIZE as libgomp reads it: a number with an optional B, K, M or G (K by default). */
static size_t openmp_stack_bytes(void)
{
    const char *names[] = {"OMP_STACKSIZE", "GOMP_STACKSIZE"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        if (!v || !*v) continue;
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        while (isspace((unsigned char)*end))
            end++;
        int unit = toupper((unsigned char)*end);
        unsigned long long mult = unit == 'B'   ? 1
                                  : unit == 'M' ? 1ull << 20
                                  : unit == 'G' ? 1ull << 30
                                                : 1024;
        unsigned long long bytes;
        if (errno || end == v || __builtin_mul_overflow(n, mult, &bytes)) continue;
        return (size_t)bytes;
    }
    return 0; /* the default: what pthread_create gives without attributes */
}

static void explain(unsigned n, int err, const pthread_attr_t *attr, char *why, size_t why_len)
{
    size_t stack = 0;
    pthread_attr_getstacksize(attr, &stack);
    char each[32], limit[64] = "";
    format_bytes(stack, each, sizeof(each));
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        char bytes[32];
        format_bytes(as.rlim_cur, bytes, sizeof(bytes));
        snprintf(limit, sizeof(limit), "; ulimit -v allows %s", bytes);
    }
    snprintf(why, why_len,
             "could not start %u threads: %s (stacks of %s each%s); raise ulimit -v or "
             "ulimit -u, lower OMP_STACKSIZE, or use fewer threads (--threads)",
             n, strerror(err), each, limit);
}

int threads_can_start(unsigned n, char *why, size_t why_len)
{
    static unsigned started; /* the largest team known to start: libgomp keeps its threads */
    if (n <= started || n < 2) return 0;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return 0; /* nothing to learn: let OpenMP try */
    size_t stack = openmp_stack_bytes();
    if (stack) pthread_attr_setstacksize(&attr, stack);
    pthread_t *ids = malloc((size_t)(n - 1) * sizeof(*ids));
    if (!ids) {
        pthread_attr_destroy(&attr);
        snprintf(why, why_len, "out of memory checking that %u threads can start", n);
        return -1;
    }
    struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    unsigned made = 0;
    int err = 0;
    while (made < n - 1 && (err = pthread_create(&ids[made], &attr, wait_at_gate, &g)) == 0)
        made++;
    pthread_mutex_lock(&g.lock);
    g.is_open = 1;
    pthread_cond_broadcast(&g.open);
    pthread_mutex_unlock(&g.lock);
    for (unsigned i = 0; i < made; i++)
        pthread_join(ids[i], NULL);
    free(ids);
    if (err) explain(n, err, &attr, why, why_len);
    pthread_attr_destroy(&attr);
    if (err) return -1;
    started = n;
    return 0;
}
