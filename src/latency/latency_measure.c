/* The idle measurement: the chase buffer (allocated, bound to its node, first-touched,
 * verified in smaps, linked as one random cycle) and the timed repetitions on a bound core. */
#include "src/latency/latency_chain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/bind.h"
#include "affinity/membind.h"
#include "affinity/page_locality.h"
#include "kernels/latency_chase.h"
#include "kernels/tlb_probe.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/stats.h"
#include "src/base/test_hooks.h"

#define SMAPS_PATH "/proc/self/smaps"
#define ORDER_SEED 0x6c6174656e6379ull
#define TOUCH_CHUNK_BYTES (4u << 20)

/* The set-up step under way: each of its checks for a signal or the time limit is the named
 * point "latency STEP" (membench-hooked: a test stops the process inside that step). */
static const char *setup_step;

static int setup_stop(void)
{
    test_hook_at("latency %s", setup_step);
    return interrupt_should_stop();
}

/* First touch, after the binding, 4 MiB at a time: false when stopped. */
static bool touch_buffer(char *base, size_t bytes)
{
    setup_step = "first touch";
    for (size_t at = 0; at < bytes; at += TOUCH_CHUNK_BYTES) {
        if (setup_stop()) return false;
        memset(base + at, 0, bytes - at < TOUCH_CHUNK_BYTES ? bytes - at : TOUCH_CHUNK_BYTES);
    }
    return true;
}

static int setup_stopped(struct latency_chain *c, struct latency_point *out)
{
    c->stopped = true;
    snprintf(out->why, sizeof(out->why), "%s in its %s, before the first repetition",
             interrupt_stop_reason(), setup_step);
    return EXIT_OK;
}

int latency_chain_setup(struct latency_chain *c, const struct topology *topo, int mem_node,
                        uint64_t bytes, const struct mem_backend *backend,
                        struct latency_point *out)
{
    memset(c, 0, sizeof(*c));
    char why[300];
    out->mem_node = mem_node;
    out->pages = backend->name;
    if (backend->alloc(&c->region, (size_t)bytes, why, sizeof(why)) != 0) {
        log_error("--latency: %s", why);
        return EXIT_RESOURCE;
    }
    c->backend = backend;
    c->base = c->region.base;
    c->n = (size_t)(bytes / LATENCY_LINE_BYTES);
    out->buffer_bytes = (uint64_t)c->n * LATENCY_LINE_BYTES;
    out->lines = c->n;
    out->mem_bound = membind_area(topo, c->base, c->region.bytes, mem_node, why, sizeof(why)) == 0;
    if (!out->mem_bound && topo->facts.numa_nodes > 1) {
        log_error("--latency: %s; the memory would not be on node %d as reported: check that "
                  "the kernel has NUMA support (numactl --hardware)",
                  why, mem_node);
        return EXIT_RESOURCE;
    }
    if (!touch_buffer(c->base, c->region.bytes)) return setup_stopped(c, out);
    page_locality_begin(&out->locality);
    page_locality_sample(&out->locality, c->base, c->region.bytes, LOCALITY_STEP_BYTES,
                         mem_node);
    page_locality_end(&out->locality);
    backing_verify(SMAPS_PATH, backend, (uintptr_t)c->base, (uintptr_t)(c->base + c->region.bytes),
                   c->region.how, &out->backing);
    c->order = malloc(c->n * sizeof(uint32_t));
    if (!c->order) {
        log_error("--latency: out of memory for the chase order (%zu lines); give a smaller "
                  "--latency-size",
                  c->n);
        return EXIT_RESOURCE;
    }
    /* no hop stays in a base page, nor in a page of the size really mapped */
    uint64_t page = out->backing.page_size_bytes > page_base_bytes() ? out->backing.page_size_bytes
                                                                     : page_base_bytes();
    size_t page_lines = (size_t)(page / LATENCY_LINE_BYTES);
    if (page_lines >= c->n) page_lines = LATENCY_LINES_PER_4K;
    /* a buffer of one and a half 1 GiB pages cannot alternate pages: 4 KiB pages then */
    setup_step = "chase order";
    int built = latency_order_build(c->order, c->n, page_lines, ORDER_SEED, setup_stop);
    if (built == -1 && page_lines != LATENCY_LINES_PER_4K) {
        page_lines = LATENCY_LINES_PER_4K;
        built = latency_order_build(c->order, c->n, page_lines, ORDER_SEED, setup_stop);
    }
    if (built == LATENCY_STOPPED) return setup_stopped(c, out);
    if (built != 0 || !latency_order_check(c->order, c->n, page_lines, why, sizeof(why))) {
        if (built != 0) snprintf(why, sizeof(why), "no order keeps every hop out of its page");
        snprintf(out->why, sizeof(out->why), "the chase order is not valid: %.250s", why);
        log_error("--latency: %s", out->why);
        return EXIT_FAILED;
    }
    setup_step = "chase links";
    if (latency_chain_link(c->base, c->order, c->n, setup_stop) != 0) return setup_stopped(c, out);
    c->cursor = c->base + (size_t)c->order[0] * LATENCY_LINE_BYTES;
    c->valid = true;
    return EXIT_OK;
}

double latency_chain_rep(struct latency_chain *c)
{
    double t0 = timer_now();
    void *end = latency_chase(c->cursor, c->hops);
    double dt = timer_now() - t0;
    c->pos = (size_t)((c->pos + c->hops) % c->n);
    if (end != c->base + (size_t)c->order[c->pos] * LATENCY_LINE_BYTES) c->valid = false;
    c->cursor = end;
    return dt * 1e9 / (double)c->hops;
}

void latency_chain_calibrate(struct latency_chain *c)
{
    c->hops = 1u << 12;
    for (;;) {
        double t0 = timer_now();
        latency_chain_rep(c);
        if (timer_now() - t0 >= LATENCY_REP_TARGET_S / 4 || c->hops >= (1ull << 36)) break;
        c->hops *= 2;
    }
    c->hops *= 4;
}

void latency_chain_free(struct latency_chain *c)
{
    if (c->backend) c->backend->release(&c->region);
    free(c->order);
    memset(c, 0, sizeof(*c));
}

/* Idle repetitions on an already set-up chain; the thread is bound. */
static int idle_reps(struct latency_chain *c, struct latency_point *out)
{
    double ns[LATENCY_IDLE_REPS];
    out->core_ghz = tlb_core_ghz_estimate();
    latency_chain_calibrate(c);
    latency_chain_rep(c); /* warm-up: TLB and page tables as in the timed ones */
    int reps = 0;
    for (; reps < LATENCY_IDLE_REPS && !interrupt_should_stop(); reps++)
        ns[reps] = latency_chain_rep(c);
    out->core_ghz_after = tlb_core_ghz_estimate();
    out->hops = c->hops;
    out->repetitions = reps;
    if (reps < LATENCY_IDLE_REPS) { /* a median of fewer is not the figure: none is reported */
        snprintf(out->why, sizeof(out->why), "%s after %d of %d repetitions",
                 interrupt_stop_reason(), reps, LATENCY_IDLE_REPS);
        return EXIT_OK;
    }
    out->ns = median_sorting(ns, (size_t)reps);
    out->ns_min = ns[0];
    out->ns_max = ns[reps - 1];
    out->measured = true;
    out->validated = c->valid;
    if (!c->valid) {
        snprintf(out->why, sizeof(out->why),
                 "the chase did not end on the line its order predicts: the buffer was changed "
                 "under it or a load returned a wrong value");
        log_error("--latency: %s", out->why);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

int latency_measure_on(struct latency_chain *c, const struct topology *topo, int pu, int mem_node,
                       uint64_t bytes, const struct mem_backend *backend, struct latency_point *out)
{
    memset(out, 0, sizeof(*out));
    memset(c, 0, sizeof(*c));
    out->cpu = pu;
    bool bound = false;
    bind_this_thread(topo, BIND_LIST, pu, &bound);
    if (!bound) {
        log_error("--latency: cannot bind the chasing thread to PU %d; check taskset or the "
                  "cgroup's cpuset",
                  pu);
        return EXIT_RESOURCE;
    }
    int rc = latency_chain_setup(c, topo, mem_node, bytes, backend, out);
    if (rc == EXIT_OK && !c->stopped) rc = idle_reps(c, out);
    return rc;
}

int latency_measure(const struct topology *topo, int pu, int mem_node, uint64_t bytes,
                    const struct mem_backend *backend, struct latency_point *out)
{
    struct latency_chain c;
    int rc = latency_measure_on(&c, topo, pu, mem_node, bytes, backend, out);
    latency_chain_free(&c);
    bool bound;
    bind_this_thread(topo, BIND_NONE, -1, &bound);
    return rc;
}
