#include <string.h>

#include "src/csv_field.h"

void csv_field(FILE *out, const char *text)
{
    if (!text) return;
    if (!text[strcspn(text, ",\"\r\n")]) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}
