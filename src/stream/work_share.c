#include "src/stream/work_share.h"

#include <stdlib.h>

int work_share_init(struct work_share *ws, size_t n, int nthreads, enum elem_type type,
                    const int *node, const int *domain)
{
    ws->groups = aligned_alloc(64, (size_t)nthreads * sizeof(*ws->groups));
    ws->group_of = calloc((size_t)nthreads, sizeof(int));
    if (!ws->groups || !ws->group_of) {
        work_share_free(ws);
        return -1;
    }
    size_t line = 64 / elem_size(type);
    ws->chunk = WORK_SHARE_CHUNK_BYTES / elem_size(type) / line * line;
    ws->n_groups = 0;
    for (int t = 0; t < nthreads; t++) {
        size_t lo = stream_chunk_begin(n, nthreads, t, type);
        size_t hi = t + 1 < nthreads ? stream_chunk_begin(n, nthreads, t + 1, type) : n;
        bool join = t > 0 && node[t] >= 0 && node[t] == node[t - 1] &&
                    (!domain || domain[t] == domain[t - 1]);
        if (!join) {
            struct share_group *g = &ws->groups[ws->n_groups++];
            g->lo = lo;
            atomic_init(&g->next, lo);
        }
        ws->groups[ws->n_groups - 1].hi = hi;
        ws->group_of[t] = ws->n_groups - 1;
    }
    return 0;
}

void work_share_free(struct work_share *ws)
{
    free(ws->groups);
    free(ws->group_of);
    ws->groups = NULL;
    ws->group_of = NULL;
}

void work_share_reset(struct work_share *ws)
{
    for (int g = 0; g < ws->n_groups; g++)
        atomic_store_explicit(&ws->groups[g].next, ws->groups[g].lo, memory_order_relaxed);
}

double work_share_run(struct work_share *ws, int t, kernel_fn fn, void *a, void *b, void *c,
                      double q)
{
    struct share_group *g = &ws->groups[ws->group_of[t]];
    double sum = 0.0;
    for (;;) {
        size_t at = atomic_fetch_add_explicit(&g->next, ws->chunk, memory_order_relaxed);
        if (at >= g->hi) break;
        sum += fn(a, b, c, at, g->hi - at > ws->chunk ? at + ws->chunk : g->hi, q);
    }
    return sum;
}
