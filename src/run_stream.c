#include "src/run_stream.h"

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/log.h"

static void add_warning(struct run_result *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_warning(struct run_result *out, const char *fmt, ...)
{
    if (out->n_warnings == RUN_WARNINGS_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->warnings[out->n_warnings++], sizeof(out->warnings[0]), fmt, ap);
    va_end(ap);
}

void run_describe(const struct run_config *cfg, struct run_result *out)
{
    memset(out, 0, sizeof(*out));
    out->config = *cfg;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(cfg->kernel_mask & (1u << k))) continue;
        struct kernel_result *r = &out->results[out->n_results++];
        r->kernel = (enum kernel_id)k;
        r->bytes_counted = kernel_bytes_counted(&kernel_table[k], cfg->elements, cfg->type);
        r->bytes_estimated_traffic =
            kernel_bytes_traffic(&kernel_table[k], cfg->elements, cfg->type, 0);
    }
}

static void record_placement(const struct topology *topo, const int *pus, int n,
                             struct run_result *out)
{
    out->placement = calloc((size_t)n, sizeof(*out->placement));
    if (!out->placement) return;
    out->n_placement = n;
    placement_describe(topo, pus, n, out->placement);
}

static void summarise(const double *times, unsigned ntimes, struct kernel_result *r)
{
    double sum = 0.0, lo = times[1], hi = times[1];
    for (unsigned i = 1; i < ntimes; i++) { /* the first repetition is a warm-up */
        sum += times[i];
        lo = times[i] < lo ? times[i] : lo;
        hi = times[i] > hi ? times[i] : hi;
    }
    r->avg_time_s = sum / (double)(ntimes - 1);
    r->min_time_s = lo;
    r->max_time_s = hi;
    r->best_rate_mbps = lo > 0.0 ? 1e-6 * (double)r->bytes_counted / lo : 0.0;
}

int run_stream(const struct run_config *cfg, const struct topology *topo,
               const struct timer_info *timer, struct run_result *out)
{
    run_describe(cfg, out);
    char why[600];
    const struct mem_backend *backend = mem_backend_find(cfg->pages);
    if (!backend) {
        log_error("--pages %s: no such page backing", cfg->pages);
        return EXIT_USAGE;
    }
    size_t es = elem_size(cfg->type);
    uint64_t stride = cfg->stride_bytes;
    struct mem_region region = {0};
    if (backend->probe(&mem_env_system, 3 * stride, why, sizeof(why)) != 0 ||
        backend->alloc(&region, 3 * stride, why, sizeof(why)) != 0) {
        log_error("--pages %s: %s", cfg->pages, why);
        return EXIT_RESOURCE;
    }
    char *base = region.base;
    void *a = base + 0 * stride;
    void *b = base + 1 * stride + 1 * cfg->offset * es;
    void *c = base + 2 * stride + 2 * cfg->offset * es;
    size_t n = (size_t)cfg->elements;

    int nthreads = (int)cfg->threads;
    omp_set_dynamic(0);
    omp_set_num_threads(nthreads);
    int *pus_start = calloc((size_t)nthreads, sizeof(int));
    int *pus_end = calloc((size_t)nthreads, sizeof(int));
    double *times = calloc((size_t)KERNEL_COUNT * cfg->ntimes, sizeof(double));
    if (!pus_start || !pus_end || !times) {
        log_error("out of memory for bookkeeping");
        free(pus_start);
        free(pus_end);
        free(times);
        backend->release(&region);
        return EXIT_RESOURCE;
    }

    placement_observe(pus_start, nthreads);
    stream_init_arrays(a, b, c, n, cfg->type);
    /* test hook: judge the pages against another backing, to prove a mismatch fails the run */
    const char *judge_as = getenv("MEMBENCH_TEST_VERIFY_AS");
    const struct mem_backend *judge = judge_as ? mem_backend_find(judge_as) : NULL;
    backing_verify("/proc/self/smaps", judge ? judge : backend, (uintptr_t)base,
                   (uintptr_t)(base + 3 * stride), region.how, &out->backing);
    if (backend->kind == BACKING_THP && out->backing.verified && out->backing.thp_fraction < 1.0)
        add_warning(out,
                    "only %.1f%% of the arrays are on transparent huge pages (the kernel found "
                    "too few free 2 MiB blocks); the results mix 2 MiB and 4 KiB pages",
                    100.0 * out->backing.thp_fraction);

    struct expected_values expect;
    expected_init(&expect);
    for (unsigned rep = 0; rep < cfg->ntimes; rep++) {
        for (int k = 0; k < KERNEL_COUNT; k++) {
            if (!(cfg->kernel_mask & (1u << k))) continue;
            double t0 = timer_now();
            kernel_table[k].fn[cfg->type](a, b, c, n, STREAM_SCALAR);
            times[(size_t)k * cfg->ntimes + rep] = timer_now() - t0;
            expected_step(&expect, (enum kernel_id)k, cfg->type, STREAM_SCALAR);
        }
        int exponent = expected_rescale_exponent(&expect);
        if (exponent != 0) {
            stream_scale_arrays(a, b, c, n, cfg->type, exponent);
            expected_rescale(&expect, exponent);
        }
    }
    placement_observe(pus_end, nthreads);

    if (getenv("MEMBENCH_TEST_CORRUPT")) /* test hook: proves a wrong result fails the run */
        ((char *)a)[(n / 2) * es + es - 2] ^= 0x40; /* an exponent or leading mantissa bit */

    validate_arrays(a, b, c, n, cfg->type, &expect, validation_tolerance(cfg->type, cfg->ntimes),
                    &out->validation);
    backend->release(&region);

    record_placement(topo, pus_start, nthreads, out);
    for (int t = 0; t < nthreads; t++)
        out->migrated |= pus_start[t] != pus_end[t];
    if (out->migrated)
        add_warning(out, "threads moved between CPUs during the run (unbound); results may vary "
                         "from run to run");

    for (int i = 0; i < out->n_results; i++) {
        struct kernel_result *r = &out->results[i];
        summarise(&times[(size_t)r->kernel * cfg->ntimes], cfg->ntimes, r);
        r->min_ticks = timer->granularity_s > 0 ? r->min_time_s / timer->granularity_s : 0.0;
        if (r->min_ticks < TIMER_MIN_TICKS)
            add_warning(out,
                        "%s took only %.0f clock ticks; its time is not trustworthy, use a "
                        "larger --size",
                        kernel_table[r->kernel].name, r->min_ticks);
    }
    out->measured = true;
    free(pus_start);
    free(pus_end);
    free(times);
    return EXIT_OK;
}
