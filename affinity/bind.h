#ifndef MEMBENCH_BIND_H
#define MEMBENCH_BIND_H

#include <stdbool.h>

#include "affinity/policy.h"

/* The one place that binds. Called by each OpenMP thread for itself: pins it to pu (OS index),
 * or, with pu < 0 and kind BIND_NONE, releases it to every allowed PU (undoing an earlier
 * run's binding); BIND_OPENMP_ENV leaves the OpenMP runtime's binding alone.
 * Returns the PU the thread runs on afterwards; *bound says the binding was applied and reads
 * back as requested, or (BIND_OPENMP_ENV) that the runtime's own binding is a single PU. */
int bind_this_thread(const struct topology *topo, enum bind_kind kind, int pu, bool *bound);

#endif
