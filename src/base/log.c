#include "src/base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/base/utf8_text.h"

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

/* One line, whatever the message holds: a file name or a value with a newline or a terminal
 * escape in it is shown escaped (text_printable). Returns the line as shown, or NULL. */
static char *emit(const char *kind, const char *fmt, va_list ap)
{
    char *msg = NULL, *shown = NULL;
    va_list copy;
    va_copy(copy, ap);
    int len = vasprintf(&msg, fmt, copy);
    va_end(copy);
    if (len >= 0) shown = malloc(TEXT_PRINTABLE_CAP((size_t)len));
    if (shown) {
        fprintf(stderr, "membench: %s%s\n", kind,
                text_printable(shown, TEXT_PRINTABLE_CAP((size_t)len), msg));
    } else { /* out of memory: as it is */
        fprintf(stderr, "membench: %s", kind);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    free(msg);
    return shown;
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *shown = emit("", fmt, ap);
    va_end(ap);
    snprintf(last_error, sizeof(last_error), "%s", shown ? shown : "");
    free(shown);
}

const char *log_last_error(void)
{
    return last_error;
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(emit("warning: ", fmt, ap));
    va_end(ap);
}

void log_note(const char *fmt, ...)
{
    if (quiet_notes) return;
    va_list ap;
    va_start(ap, fmt);
    free(emit("note: ", fmt, ap));
    va_end(ap);
}
