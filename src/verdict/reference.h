#ifndef MEMBENCH_REFERENCE_H
#define MEMBENCH_REFERENCE_H

#include <stdbool.h>
#include <stdio.h>

#include "src/stream/reference_runs.h"
#include "src/verdict/acceptance.h"

struct run_result;

/* A reference is what a good node measured, with the profile and the system it ran on, as
 * JSON ("membench_reference": 1). Loading fills expectations; errors name the file, the
 * line and column for syntax errors, or the key that is missing. Returns 0 or -1. */
int reference_load(const char *path, struct expectations *e, char *why, size_t why_len);

/* Every kernel the reference holds a rate for must be measured by this run (run_mask): else
 * -1 with a reason naming them and the options that add them. */
int reference_check_kernels(const char *path, const struct expectations *e, unsigned run_mask,
                            bool acceptance, char *why, size_t why_len);

/* Writes the reference of one measured run (its profile and system), with the rates of runs:
 * the medians of its K runs (NULL: the run's own best rates). Returns 0, or -1 on an I/O
 * error. */
int reference_write(FILE *out, const struct node_facts *node, const struct run_result *run,
                    const struct reference_runs *runs);

#endif
