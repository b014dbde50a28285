#include "src/stream/compare.h"

#include <stdlib.h>
#include <string.h>

#include "src/stream/run_profile.h"

static const struct kernel_result *find_kernel(const struct run_result *r, enum kernel_id k)
{
    for (int i = 0; i < r->n_results; i++)
        if (r->results[i].kernel == k) return &r->results[i];
    return NULL;
}

static bool comparable(const struct run_result *r)
{
    return r->measured && !run_failed(r);
}

static size_t find_baseline(const struct run_result *runs, size_t n_runs, size_t variant,
                            const char *pages)
{
    const struct run_config *v = &runs[variant].config;
    for (size_t i = 0; i < n_runs; i++) {
        const struct run_config *c = &runs[i].config;
        if (strcmp(c->pages, pages) == 0 && run_profile_paired(c, v) && comparable(&runs[i]))
            return i;
    }
    return n_runs;
}

int compare_pages(const struct run_result *runs, size_t n_runs, const char *baseline_pages,
                  struct page_comparison **out, size_t *n_out)
{
    *n_out = 0;
    *out = calloc(n_runs * KERNEL_COUNT + 1, sizeof(**out));
    if (!*out) return -1;
    for (size_t v = 0; v < n_runs; v++) {
        const struct run_result *variant = &runs[v];
        if (strcmp(variant->config.pages, baseline_pages) == 0 || !comparable(variant)) continue;
        size_t b = find_baseline(runs, n_runs, v, baseline_pages);
        if (b == n_runs) continue;
        for (int i = 0; i < variant->n_results; i++) {
            const struct kernel_result *x = &variant->results[i];
            const struct kernel_result *base = find_kernel(&runs[b], x->kernel);
            if (!base || !(base->best_rate_mbps > 0.0)) continue;
            struct page_comparison *c = &(*out)[(*n_out)++];
            c->kernel = x->kernel;
            c->baseline = b;
            c->variant = v;
            c->relative_change = x->best_rate_mbps / base->best_rate_mbps - 1.0;
        }
    }
    return 0;
}

void compare_free(struct page_comparison **comparisons, size_t *n)
{
    free(*comparisons);
    *comparisons = NULL;
    *n = 0;
}
