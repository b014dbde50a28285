#ifndef MEMBENCH_MEASUREMENTS_H
#define MEMBENCH_MEASUREMENTS_H

#include <stddef.h>

#include "src/measure/measure.h"

/* The one table of measurements, in the order they are planned (and, but for those that run
 * first, run and reported): a measurement's descriptor, whose .options declare its rows, its
 * options block and how that block becomes its request. */
struct measurement_row {
    const struct measurement *m;
};

extern const struct measurement_row measurement_table[];
extern const size_t measurement_count;

#endif
