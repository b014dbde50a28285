#include "src/base/test_hooks.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "src/base/interrupt.h"

const struct test_hooks *test_hooks = NULL;

void test_hook_at(const char *fmt, ...)
{
    if (!test_hooks ||
        (!test_hooks->announce && !test_hooks->pause_at && !test_hooks->time_limit_at))
        return;
    static char last[96];
    static bool paused;
    char point[sizeof(last)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(point, sizeof(point), fmt, ap);
    va_end(ap);
    if (test_hooks->time_limit_at && strcmp(point, test_hooks->time_limit_at) == 0)
        interrupt_deadline_expire();
    bool repeat = strcmp(point, last) == 0;
    snprintf(last, sizeof(last), "%s", point);
    bool pause = !paused && test_hooks->pause_at && strcmp(point, test_hooks->pause_at) == 0;
    if (pause || (test_hooks->announce && !repeat))
        fprintf(stderr, "membench-test: %s %s\n", pause ? "paused at" : "at", point);
    if (pause) {
        paused = true;
        fflush(stderr);
        raise(SIGSTOP);
    }
}
