/* The parsed options as text, from the option table: what a cluster run compares across its
 * ranks. */
#include "src/cli/option_values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/option_table.h"

/* The row's value into buf ("" when not given); false for a flag that is not set. */
static bool row_value(const struct options *o, const struct option_row *r, char *buf, size_t len)
{
    const void *at = (const char *)o + r->field;
    buf[0] = '\0';
    switch (r->kind) {
    case ARG_SET: return *(const bool *)at;
    case ARG_CLEAR: return !*(const bool *)at;
    case ARG_BITS: return (*(const unsigned *)at & r->bits) != 0;
    case ARG_UINT:
        snprintf(buf, len, "%llu",
                 r->field_size == sizeof(uint64_t) ? (unsigned long long)*(const uint64_t *)at
                                                   : (unsigned long long)*(const unsigned *)at);
        return true;
    case ARG_REAL: snprintf(buf, len, "%.17g", *(const double *)at); return true;
    case ARG_CHOICE: {
        unsigned v = *(const unsigned *)at;
        if (v < r->min) return false; /* an optional choice not given (--per-domain) */
        const char *name = option_choice(r, v - r->min);
        snprintf(buf, len, "%s", name ? name : "?");
        return true;
    }
    case ARG_LIST: return option_list_show(o, r, buf, len);
    case ARG_NAME:
        if (!*(const char *const *)at) return false;
        snprintf(buf, len, "%s", *(const char *const *)at);
        return true;
    case ARG_CUSTOM: r->show((const char *)o + r->block, buf, len); return buf[0] != '\0';
    default: return false;
    }
}

static void line(FILE *f, const char *flag, bool given, const char *value)
{
    if (!given)
        fprintf(f, "no %s\n", flag);
    else if (value[0])
        fprintf(f, "%s %s\n", flag, value);
    else
        fprintf(f, "%s\n", flag);
}

char *options_describe(const struct options *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    char value[1024], flag[48];
    option_table_build();
    for (size_t i = 0; i < option_table_rows; i++) {
        const struct option_row *r = &option_table[i];
        if (r->kind == ARG_TEXT || r->kind == ARG_HELP || r->kind == ARG_VERSION ||
            (r->flags & OPTF_LOCAL))
            continue;
        if (r->kind == ARG_KERNELS) {
            for (int k = 0; k < KERNEL_COUNT; k++)
                if (r->bits & (1u << k))
                    line(f, kernel_table[k].flag,
                         *(const unsigned *)((const char *)o + r->field) & (1u << k), "");
            continue;
        }
        snprintf(flag, sizeof(flag), "--%s", r->name);
        bool given = row_value(o, r, value, sizeof(value));
        line(f, flag, given, value);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
