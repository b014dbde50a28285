#include "affinity/topology.h"

#include <ctype.h>

/* The arity of one level, "core:4" or "4", attributes such as "(size=32KB)" left out. */
static int arity(const char *token, size_t len, uint64_t *out)
{
    size_t start = 0, end = 0;
    for (size_t i = 0; i < len && token[i] != '('; i++) {
        if (token[i] == ':') start = i + 1;
        end = i + 1;
    }
    if (start >= end) return -1;
    uint64_t v = 0;
    for (size_t i = start; i < end; i++) {
        if (!isdigit((unsigned char)token[i]) || __builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, (uint64_t)(token[i] - '0'), &v))
            return isdigit((unsigned char)token[i]) ? 1 : -1;
    }
    *out = v;
    return 0;
}

uint64_t synthetic_pus(const char *description)
{
    uint64_t pus = 1;
    int levels = 0;
    const char *p = description;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p) break;
        const char *start = p;
        int depth = 0;
        while (*p && (depth > 0 || !isspace((unsigned char)*p))) {
            if (*p == '(' || *p == '[') depth++;
            if ((*p == ')' || *p == ']') && depth > 0) depth--;
            p++;
        }
        if (*start == '[') continue; /* memory children: no PUs below them */
        uint64_t n;
        int rc = arity(start, (size_t)(p - start), &n);
        if (rc < 0) return 0;
        if (rc > 0 || __builtin_mul_overflow(pus, n, &pus)) return UINT64_MAX;
        levels++;
    }
    return levels ? pus : 0;
}
