#include "src/base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MESSAGE_MAX 4096

static int quiet_notes;
static char last_error[LOG_LINE_MAX];

void log_set_quiet(int quiet)
{
    quiet_notes = quiet;
}

int log_is_quiet(void)
{
    return quiet_notes;
}

/* src with its control characters (a newline or an escape typed into an option's value) as
 * \n, \t, \r or \xNN, so that every message is one line and prints nothing raw. */
static void escape_controls(const char *src, char *dst, size_t cap)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && n + 1 < cap; p++) {
        char esc[5] = {(char)*p, 0};
        if (*p == '\n' || *p == '\t' || *p == '\r')
            snprintf(esc, sizeof(esc), "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
        else if (*p < 0x20 || *p == 0x7f)
            snprintf(esc, sizeof(esc), "\\x%02x", *p);
        size_t len = strlen(esc);
        if (n + len >= cap) break;
        for (size_t i = 0; i < len; i++)
            dst[n++] = esc[i];
    }
    dst[n] = '\0';
}

static void emit(const char *kind, const char *message)
{
    char line[MESSAGE_MAX];
    escape_controls(message, line, sizeof(line));
    fprintf(stderr, "membench: %s%s\n", kind, line);
}

void log_error(const char *fmt, ...)
{
    char message[MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    escape_controls(message, last_error, sizeof(last_error));
    emit("", message);
}

const char *log_last_error(void)
{
    return last_error;
}

void log_warn(const char *fmt, ...)
{
    char message[MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    emit("warning: ", message);
}

void log_note(const char *fmt, ...)
{
    if (quiet_notes) return;
    char message[MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    emit("note: ", message);
}
