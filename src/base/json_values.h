#ifndef MEMBENCH_JSON_VALUES_H
#define MEMBENCH_JSON_VALUES_H

#include <jansson.h>
#include <math.h>

/* JSON has no inf or nan: an unmeasurable number is null. */
static inline json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A count where 0 means unknown (a firmware figure, a DIMM's speed): null then. */
static inline json_t *positive_or_null(json_int_t v)
{
    return v > 0 ? json_integer(v) : json_null();
}

/* A missing or empty string is null. */
static inline json_t *string_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

#endif
