#include "src/base/log.h"

#include <stdarg.h>
#include <stdio.h>

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

static void emit(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "membench: %s", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list copy;
    va_copy(copy, ap);
    vsnprintf(last_error, sizeof(last_error), fmt, copy);
    va_end(copy);
    emit("", fmt, ap);
    va_end(ap);
}

const char *log_last_error(void)
{
    return last_error;
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("warning: ", fmt, ap);
    va_end(ap);
}

void log_note(const char *fmt, ...)
{
    if (quiet_notes) return;
    va_list ap;
    va_start(ap, fmt);
    emit("note: ", fmt, ap);
    va_end(ap);
}
