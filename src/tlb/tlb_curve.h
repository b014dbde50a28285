#ifndef MEMBENCH_TLB_CURVE_H
#define MEMBENCH_TLB_CURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/tlb/tlb_result.h"

/* The sweep's points up to max into x (at most cap); returns how many. */
size_t tlb_sweep_grid(uint64_t max, double *x, size_t cap);

/* Adds the point at x from its k samples (those > 0 count). Returns 0, or -1 out of memory. */
int tlb_curve_add(struct tlb_curve *c, double x, const double *samples, int k, int disturbed,
                  bool refined);
void tlb_curve_sort(struct tlb_curve *c);
/* ns per access of the point at x; NAN when there is none. */
double tlb_curve_at(const struct tlb_curve *c, double x);
void tlb_curve_free(struct tlb_curve *c);

#endif
