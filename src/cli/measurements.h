#ifndef MEMBENCH_MEASUREMENTS_H
#define MEMBENCH_MEASUREMENTS_H

#include <stddef.h>

#include "src/cli/cli.h"
#include "src/measure/measure.h"

/* The one table of measurements, in the order they are planned (and, but for those that run
 * first, run and reported): a measurement's descriptor and how its request is built from the
 * options. */
struct measurement_row {
    const struct measurement *m;
    void (*request)(const struct options *o, void *request); /* m->request_size bytes */
    size_t options_at; /* where m->options's block lives in struct options */
};

extern const struct measurement_row measurement_table[];
extern const size_t measurement_count;

#endif
