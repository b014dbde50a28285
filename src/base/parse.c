#include "src/base/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LIST_ITEM_MAX 256

struct unit {
    const char *suffix;
    double factor;
};

static const struct unit byte_units[] = {
    {"B", 1.0},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
};

/* strtod accepts "inf", "nan", hex floats and leading blanks; we accept only plain decimals. */
static int plain_decimal_prefix(const char *s, size_t *len)
{
    size_t i = 0, digits = 0;
    while (isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    *len = i;
    return digits > 0;
}

static int fail(char *why, size_t len, const char *fmt, const char *arg)
{
    snprintf(why, len, fmt, arg);
    return -1;
}

int parse_size(const char *text, struct size_spec *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof(*out));
    if (!text || !*text)
        return fail(why, why_len, "empty size%s; use e.g. 4xLLC, 1GiB or 20000000", "");
    if (strlen(text) >= sizeof(out->text))
        return fail(why, why_len, "size '%.40s...' is too long", text);
    snprintf(out->text, sizeof(out->text), "%s", text);
    if (text[0] == '-')
        return fail(why, why_len, "size '%s' is negative; sizes must be positive", text);

    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X') && isxdigit((unsigned char)text[2]))
        return fail(why, why_len,
                    "size '%s' is hexadecimal, which sizes are not; give it in decimal, e.g. "
                    "1048576 or 1MiB",
                    text);
    size_t num_len;
    if (!plain_decimal_prefix(text, &num_len))
        return fail(why, why_len,
                    "size '%s' is not a number; use e.g. 4xLLC, 1.5GiB, 512MB or 20000000", text);
    char number[64];
    if (num_len >= sizeof(number)) return fail(why, why_len, "size '%s' has too many digits", text);
    memcpy(number, text, num_len);
    number[num_len] = '\0';
    errno = 0;
    double value = strtod(number, NULL);
    if (errno == ERANGE || !isfinite(value))
        return fail(why, why_len, "size '%s' is out of range", text);
    if (value <= 0.0) return fail(why, why_len, "size '%s' is zero; sizes must be positive", text);

    const char *suffix = text + num_len;
    if (*suffix == '\0') {
        if (strchr(number, '.'))
            return fail(why, why_len,
                        "size '%s' is a fractional element count; give whole elements or a unit "
                        "(e.g. 1.5GiB)",
                        text);
        if (value > 1e18) return fail(why, why_len, "element count '%s' is too large", text);
        out->kind = SIZE_ELEMENTS;
        out->elements = strtoull(number, NULL, 10);
        return 0;
    }
    if ((suffix[0] == 'x' || suffix[0] == 'X') && strcasecmp(suffix + 1, "LLC") == 0) {
        if (value > 1e6) return fail(why, why_len, "LLC multiple '%s' is too large", text);
        out->kind = SIZE_LLC_MULTIPLE;
        out->llc_multiple = value;
        return 0;
    }
    for (size_t i = 0; i < sizeof(byte_units) / sizeof(byte_units[0]); i++) {
        if (strcasecmp(suffix, byte_units[i].suffix) != 0) continue;
        double bytes = value * byte_units[i].factor;
        if (bytes > 9.0e18) return fail(why, why_len, "size '%s' is too large", text);
        if (bytes < 1.0) return fail(why, why_len, "size '%s' is less than one byte", text);
        out->kind = SIZE_BYTES;
        out->bytes = (uint64_t)bytes;
        return 0;
    }
    snprintf(why, why_len,
             "size '%s' has an unknown unit '%s'; use xLLC, B, kB, MB, GB, TB (decimal) or "
             "KiB, MiB, GiB, TiB (binary)",
             text, suffix);
    return -1;
}

int size_to_elements(const struct size_spec *spec, uint64_t llc_bytes, size_t elem_size,
                     uint64_t *elements, char *why, size_t why_len)
{
    uint64_t n = 0;
    switch (spec->kind) {
    case SIZE_ELEMENTS: n = spec->elements; break;
    case SIZE_BYTES: n = spec->bytes / elem_size; break;
    case SIZE_LLC_MULTIPLE: {
        if (llc_bytes == 0)
            return fail(why, why_len,
                        "size '%s' needs the last-level cache size, which is unknown on this "
                        "machine; give --size in bytes (e.g. 1GiB) instead",
                        spec->text);
        /* compared as a double first: converting one beyond 2^64 to an integer is undefined */
        double want = ceil(spec->llc_multiple * (double)llc_bytes / (double)elem_size);
        if (!(want <= (double)(UINT64_MAX / 4 / elem_size)))
            return fail(why, why_len, "size '%s' is too large to address", spec->text);
        n = (uint64_t)want;
        break;
    }
    }
    if (n == 0)
        return fail(why, why_len, "size '%s' is smaller than one array element", spec->text);
    if (n > UINT64_MAX / 4 / elem_size)
        return fail(why, why_len, "size '%s' is too large to address", spec->text);
    *elements = n;
    return 0;
}

int parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *why,
               size_t why_len)
{
    if (!text || !*text) return fail(why, why_len, "empty value%s; expected a whole number", "");
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p))
            return fail(why, why_len, "'%s' is not a whole number", text);
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v > max || v < min) {
        snprintf(why, why_len, "'%s' is out of range; expected %llu to %llu", text,
                 (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    *out = v;
    return 0;
}

int for_each_list_item(const char *list, int (*each)(const char *item, void *ctx), void *ctx,
                       char *why, size_t why_len)
{
    if (!list || !*list) return fail(why, why_len, "empty list%s", "");
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) return fail(why, why_len, "empty item in list '%s'", list);
        if (len >= LIST_ITEM_MAX)
            return fail(why, why_len, "list item too long in '%.60s...'", list);
        char item[LIST_ITEM_MAX];
        memcpy(item, p, len);
        item[len] = '\0';
        int rc = each(item, ctx);
        if (rc) return rc;
        if (!comma) return 0;
        p = comma + 1;
    }
}

void format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.1f %s", v, units[u]);
}

void utf8_trim_partial(char *s)
{
    size_t n = strlen(s), lead = n;
    while (lead > 0 && n - lead < 3 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
        lead--; /* back over continuation bytes (10xxxxxx) to the sequence's first byte */
    if (lead == 0) return;
    unsigned char c = (unsigned char)s[lead - 1];
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (n - (lead - 1) < need) s[lead - 1] = '\0';
}
