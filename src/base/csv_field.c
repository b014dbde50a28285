#include <math.h>
#include <string.h>

#include "src/base/csv_field.h"

void csv_quoted(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *p = text ? text : ""; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void csv_field(FILE *out, const char *text)
{
    if (!text) return;
    if (!text[strcspn(text, ",\"\r\n")])
        fputs(text, out);
    else
        csv_quoted(out, text);
}

void csv_number(FILE *out, const char *fmt, double v)
{
    if (isfinite(v)) fprintf(out, fmt, v);
}
