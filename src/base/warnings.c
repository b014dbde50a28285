#include "src/base/warnings.h"

#include <stdarg.h>
#include <stdio.h>

void warnings_add(char *lines, size_t width, int max, int *n, const char *fmt, ...)
{
    if (*n >= max) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lines + (size_t)*n * width, width, fmt, ap);
    va_end(ap);
    (*n)++;
}
