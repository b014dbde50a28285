#ifndef MEMBENCH_PARTS_H
#define MEMBENCH_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "src/cli/cli.h"
#include "src/measure/measure.h"

/* One row of src/cli/measurements.c's table in one invocation: its request, plan and result
 * (m->request_size, plan_size and result_size bytes). */
struct part {
    const struct measurement *m;
    void *request, *plan, *result;
    bool asked;   /* the options ask for it */
    bool started; /* its run began: its result is the report's */
    struct measure_outcome outcome;
};

struct parts {
    struct part p[MEASURE_PARTS_MAX];
    size_t n;
    size_t order[MEASURE_PARTS_MAX]; /* the run order: those that run first, then the rest */
};

/* Builds every row's request from the options and plans it, in table order, stopping at the
 * first that fails: its exit status (after its one-line error). */
int parts_plan(struct parts *ps, const struct options *o, const struct measure_context *ctx);
/* The most OpenMP threads one parallel region of this invocation starts. */
unsigned parts_team(const struct parts *ps);
/* How many measurements the options ask for. */
size_t parts_asked(const struct parts *ps);
/* Whether an interrupted run has anything to report. */
bool parts_measured_anything(const struct parts *ps);
/* What one finished step is called: the only asked measurement's step ("run"), else
 * "measurement". */
const char *parts_step(const struct parts *ps);
/* What a report stopped early holds, measurement by measurement in the order they run, each
 * finished, stopped half-way (and what of it is kept) or not started. */
void parts_kept(const struct parts *ps, char *buf, size_t len);
/* The failed checks the results hold, each logged: how many. */
int parts_failures(const struct parts *ps);
void parts_free(struct parts *ps);

#endif
