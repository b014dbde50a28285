#include "src/tlb/tlb_progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/log.h"

#define PROGRESS_EVERY_S 0.1

static bool on, shown;
static double started, last;

void tlb_progress_begin(void)
{
    on = !log_is_quiet() && isatty(STDERR_FILENO);
    shown = false;
    started = timer_now();
}

void tlb_progress_point(const char *phase, unsigned r, unsigned k, size_t i, size_t n, double pages)
{
    if (!on) return;
    double now = timer_now();
    if (shown && now - last < PROGRESS_EVERY_S) return;
    last = now;
    shown = true;
    fprintf(stderr, "\rmembench: tlb: %s, round %u/%u, point %zu/%zu (%.0f page%s), %.0f s\033[K",
            phase ? phase : "measuring", r, k, i, n, pages, pages == 1 ? "" : "s", now - started);
    fflush(stderr);
}

void tlb_progress_end(void)
{
    if (on && shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    on = shown = false;
}
