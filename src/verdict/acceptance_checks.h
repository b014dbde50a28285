#ifndef MEMBENCH_ACCEPTANCE_CHECKS_H
#define MEMBENCH_ACCEPTANCE_CHECKS_H

/* The verdict's own parts: adding a check, and the families of checks in other files. */
#include "src/verdict/acceptance.h"

struct kernel_result;

/* A new check (NULL when the table is full: it still counts against the verdict). */
struct acceptance_check *acceptance_add(struct acceptance_result *out, const char *name,
                                        bool passed);
void acceptance_describe(struct acceptance_check *c, const char *measured, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A rate check of r's best rate against want less the tolerance; ref_spread_pct -1: unknown. */
void acceptance_rate_check(struct acceptance_result *out, const char *name,
                           const struct kernel_result *r, double want, bool by_reference,
                           int ref_runs, double ref_spread_pct, double tol);

void acceptance_memory_checks(const struct node_facts *node, const struct reference_memory *r,
                              struct acceptance_result *out);
void acceptance_tier_checks(const struct node_facts *node, const struct run_result *run,
                            const struct expectations *e, double tol,
                            struct acceptance_result *out);

#endif
