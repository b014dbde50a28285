/* The OpenMetrics report's families and samples (docs/output.md lists them). */
#include "src/measure/report_metrics.h"

/* A label value with \, " and newline escaped as the format asks. */
static void label_value(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(out, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

void metrics_family(FILE *out, const char *name, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

void metrics_sample_begin(FILE *out, const char *hostname, const char *name)
{
    fprintf(out, "%s{hostname=", name);
    label_value(out, hostname);
}

void metrics_label(FILE *out, const char *key, const char *value)
{
    fprintf(out, ",%s=", key);
    label_value(out, value);
}

void metrics_value(FILE *out, double v)
{
    fprintf(out, "} %.15g\n", v);
}
