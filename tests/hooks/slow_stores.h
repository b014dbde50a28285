#ifndef MEMBENCH_SLOW_STORES_H
#define MEMBENCH_SLOW_STORES_H

#include "kernels/kernel_table.h"

/* Chooses the store kind to slow down: "normal" or "nt". 0, or -1 if neither. */
int slow_stores_select(const char *kind);

/* The store_variant hook: for the selected kind, a kernel that takes 4x the time of chosen
 * (it runs chosen once, then waits); else chosen. */
kernel_fn slow_stores_substitute(enum kernel_id k, enum store_kind kind, kernel_fn chosen);

#endif
