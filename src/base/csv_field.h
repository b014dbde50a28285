#ifndef MEMBENCH_CSV_FIELD_H
#define MEMBENCH_CSV_FIELD_H

#include <stdio.h>

/* Writes text as one CSV field (RFC 4180): quoted, with its quotes doubled, when it holds a
 * comma, a quote, a carriage return or a newline; as it is otherwise. */
void csv_field(FILE *out, const char *text);

/* The same, always quoted (free text such as a reason a probe was skipped). */
void csv_quoted(FILE *out, const char *text);

/* A number as one CSV field in printf format fmt; nothing (an empty field) when it is not
 * finite: what was not measured. */
void csv_number(FILE *out, const char *fmt, double v);

#endif
