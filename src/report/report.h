#ifndef MEMBENCH_REPORT_H
#define MEMBENCH_REPORT_H

#include <stdio.h>

#include "src/stream/results.h"

/* Writers only format a finished report; they measure nothing. Return 0, or -1 on I/O error. */
int report_write_text(FILE *out, const struct report *rep);
int report_write_quiet(FILE *out, const struct report *rep);
int report_write_csv(FILE *out, const struct report *rep);
int report_write_json(FILE *out, const struct report *rep);

#endif
