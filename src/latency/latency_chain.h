#ifndef MEMBENCH_LATENCY_CHAIN_H
#define MEMBENCH_LATENCY_CHAIN_H

/* The chase buffer of one measurement, shared by the idle and the loaded phases. */

#include "src/latency/latency.h"

struct latency_chain {
    const struct mem_backend *backend;
    struct mem_region region;
    char *base;
    size_t n;        /* lines */
    uint32_t *order; /* the ring: where the chase is after any number of hops */
    size_t pos;      /* the ring position the cursor is at */
    void *cursor;
    uint64_t hops; /* per repetition */
    bool valid;    /* every repetition so far ended where the order predicts */
    bool stopped;  /* a signal or the time limit stopped the set-up: nothing to chase */
};

/* Allocates on backend, binds to mem_node, first-touches, verifies the pages in smaps, builds
 * and checks the order, links it. The calling thread must already be bound to pu. Returns an
 * exit status with a one-line error logged; fills out's buffer, page and binding facts. The
 * long steps (first touch, order, links) look for a signal and the time limit every few ms:
 * when either stops them, c->stopped is set, out->why says where, and EXIT_OK returned. */
int latency_chain_setup(struct latency_chain *c, const struct topology *topo, int mem_node,
                        uint64_t bytes, const struct mem_backend *backend,
                        struct latency_point *out);

/* One timed repetition of c->hops hops: ns per load; checks the stopping point. */
double latency_chain_rep(struct latency_chain *c);

/* Chooses c->hops for a repetition of at least LATENCY_REP_TARGET_S. */
void latency_chain_calibrate(struct latency_chain *c);

void latency_chain_free(struct latency_chain *c);

/* latency_measure on a chain the caller keeps (for the loaded phase) and frees. */
int latency_measure_on(struct latency_chain *c, const struct topology *topo, int pu, int mem_node,
                       uint64_t bytes, const struct mem_backend *backend,
                       struct latency_point *out);

#endif
