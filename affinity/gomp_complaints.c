/* The OpenMP runtime's complaints about the variables it cannot read, as it printed them while
 * it started (src/base/init_stderr.c held them back): the runtime is the judge of what it
 * reads. libgomp (gcc) says so in its constructor; libomp (clang) when first called. */
#include "affinity/omp_env.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MESSAGES 64
#define GOMP "libgomp: "
#define KMP_WARNING "OMP: Warning #"

/* One message of the runtime's: libgomp's "\nlibgomp: TEXT\n" (gomp_error), its blank line
 * included, or libomp's "OMP: Warning #N: TEXT\n" with the "OMP: Info" and "OMP: Hint" lines
 * that follow it. */
struct message {
    size_t start, end; /* in the held text */
    const char *text;  /* after the prefix */
    size_t len;        /* of text's first line, without the newline */
    const char *name;  /* the variable it refuses, or NULL */
    size_t name_len;
    bool libomp, gone; /* gone: left out of what is passed on */
};

static size_t variable_name(const char *p)
{
    size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    return n > 0 && n < 64 ? n : 0;
}

/* What libgomp says of a variable it ignores: "Invalid value for environment variable NAME"
 * (also "enviroment", as its GOMP_CPU_AFFINITY parser spells it), "Unknown value for ...",
 * "Invalid value for chunk size in ...". */
static void gomp_refused(struct message *m)
{
    static const char *const ends[] = {" environment variable ", " enviroment variable "};
    if (strncmp(m->text, "Invalid value ", 14) != 0 && strncmp(m->text, "Unknown value ", 14) != 0)
        return;
    for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
        const char *p = memmem(m->text, m->len, ends[i], strlen(ends[i]));
        if (!p) continue;
        p += strlen(ends[i]);
        size_t n = variable_name(p);
        if (n > 0 && p + n == m->text + m->len) {
            m->name = p;
            m->name_len = n;
        }
    }
}

/* What libomp says of a value it cannot read: a warning that starts with the variable's name,
 * "OMP_PROC_BIND: \"x\" is an invalid value; ignored.", "OMP_THREAD_LIMIT=\"0\": value too
 * small.", "GOMP_CPU_AFFINITY: syntax error, not using affinity." (not one that a variable is
 * ignored for another, "OMP_PLACES: ignored because GOMP_CPU_AFFINITY has been defined"). */
static void kmp_refused(struct message *m)
{
    static const char *const bad[] = {"invalid value", "syntax error",   "range error",
                                      "not a number",  "too small",      "too large",
                                      "Wrong value",   "Invalid symbols"};
    size_t n = variable_name(m->text);
    bool runtime = strncmp(m->text, "OMP_", 4) == 0 || strncmp(m->text, "GOMP_", 5) == 0 ||
                   strncmp(m->text, "KMP_", 4) == 0;
    bool value = false;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        value |= memmem(m->text, m->len, bad[i], strlen(bad[i])) != NULL;
    if (runtime && value && n > 0 && n < m->len && (m->text[n] == ':' || m->text[n] == '=')) {
        m->name = m->text;
        m->name_len = n;
    }
}

/* The message that starts at line [p, e) of text, if one does (its end: e). */
static bool message_at(const char *text, size_t p, size_t e, struct message *m)
{
    const char *line = text + p, *body = NULL;
    size_t len = e - p;
    bool gomp = len >= strlen(GOMP) && memcmp(line, GOMP, strlen(GOMP)) == 0;
    if (gomp) body = line + strlen(GOMP);
    if (len >= strlen(KMP_WARNING) && memcmp(line, KMP_WARNING, strlen(KMP_WARNING)) == 0) {
        body = line + strlen(KMP_WARNING);
        body += strspn(body, "0123456789");
        body = body + 1 < line + len && body[0] == ':' && body[1] == ' ' ? body + 2 : NULL;
    }
    if (!body) return false;
    bool blank = gomp && p >= 1 && text[p - 1] == '\n' && (p == 1 || text[p - 2] == '\n');
    *m = (struct message){.start = blank ? p - 1 : p,
                          .end = e,
                          .text = body,
                          .len = (size_t)(line + len - body),
                          .libomp = !gomp};
    gomp ? gomp_refused(m) : kmp_refused(m);
    return true;
}

/* The runtime's messages in text, in order; their number. */
static size_t find_messages(const char *text, size_t len, struct message *m, size_t max)
{
    size_t n = 0;
    for (size_t p = 0; p < len;) {
        const char *nl = memchr(text + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - text) : len;
        struct message *last = n > 0 ? &m[n - 1] : NULL;
        if (last && last->libomp && last->end + 1 == p &&
            (strncmp(text + p, "OMP: Info #", 11) == 0 || strncmp(text + p, "OMP: Hint ", 10) == 0))
            last->end = e;
        else if (n < max && message_at(text, p, e, &m[n]))
            n++;
        p = e + 1;
    }
    for (size_t i = 0; i < n; i++)
        if (m[i].end < len) m[i].end++; /* its newline */
    return n;
}

/* What a value of the variable looks like, for the remedy. */
static const char *what_to_write(const char *name)
{
    static const char *const hints[][2] = {
        {"OMP_PROC_BIND", "true, false, primary, close or spread (a list for nested levels)"},
        {"OMP_PLACES", "threads, cores, sockets, or CPU sets such as {0,1},{2,3}"},
        {"GOMP_CPU_AFFINITY", "CPUs such as 0-3,8 or 0-15:2"},
        {"OMP_THREAD_LIMIT", "a whole number of 1 or more"},
        {"OMP_STACKSIZE", "a size such as 8M (B, K, M or G)"},
        {"GOMP_STACKSIZE", "a size in KiB such as 8192"},
        {"OMP_WAIT_POLICY", "active or passive"},
        {"OMP_SCHEDULE", "static, dynamic, guided or auto, with a chunk size if any (dynamic,4)"},
        {"OMP_DYNAMIC", "true or false"},
        {"OMP_NESTED", "true or false"},
        {"OMP_CANCELLATION", "true or false"},
        {"OMP_DISPLAY_ENV", "true, false or verbose"},
        {"GOMP_SPINCOUNT", "a whole number, or infinite"},
    };
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        if (strcmp(name, hints[i][0]) == 0) return hints[i][1];
    return "a value the OpenMP runtime's manual allows (info libgomp, Environment Variables)";
}

/* The one line for the first refused variable, m[first], naming the others refused too. Its
 * detail: what libgomp said just before (gone with it), or libomp's warning itself. */
static void describe(const struct message *m, size_t n, size_t first, char *why, size_t len)
{
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)m[first].name_len, m[first].name);
    const char *value = getenv(name);
    const struct message *detail = m[first].libomp                  ? &m[first]
                                   : first > 0 && m[first - 1].gone ? &m[first - 1]
                                                                    : NULL;
    int at = snprintf(why, len,
                      "%s='%.60s' is a value %s cannot read%s%.*s%s, and OpenMP would run "
                      "without it: write %s, or unset it",
                      name, value ? value : "", m[first].libomp ? "libomp" : "libgomp",
                      detail ? " (" : "", detail ? (int)detail->len : 0, detail ? detail->text : "",
                      detail ? ")" : "", what_to_write(name));
    const char *sep = "; the runtime refused ";
    for (size_t i = first + 1; i < n && at >= 0 && (size_t)at < len; i++)
        if (m[i].name) {
            at +=
                snprintf(why + at, len - (size_t)at, "%s%.*s", sep, (int)m[i].name_len, m[i].name);
            sep = ", ";
        }
    if (at >= 0 && (size_t)at < len && strcmp(sep, ", ") == 0)
        snprintf(why + at, len - (size_t)at, " too");
}

/* Leaves out of text what m marks gone; the length left. */
static size_t cut(char *text, size_t len, const struct message *m, size_t n)
{
    size_t out = 0, from = 0;
    for (size_t i = 0; i < n; i++) {
        if (!m[i].gone) continue;
        memmove(text + out, text + from, m[i].start - from);
        out += m[i].start - from;
        from = m[i].end;
    }
    memmove(text + out, text + from, len - from);
    out += len - from;
    text[out] = '\0';
    return out;
}

int omp_env_refused(char *text, size_t *len, char *why, size_t why_len)
{
    struct message m[MAX_MESSAGES];
    size_t n = find_messages(text, *len, m, MAX_MESSAGES), first = n;
    for (size_t i = n; i-- > 0;) { /* a refusal, and what libgomp said just before it */
        m[i].gone = m[i].name || (i + 1 < n && m[i + 1].name && !m[i].libomp && !m[i + 1].libomp &&
                                  m[i].end == m[i + 1].start);
        if (m[i].name) first = i;
    }
    if (first == n) return 0;
    describe(m, n, first, why, why_len);
    *len = cut(text, *len, m, n);
    return -1;
}
