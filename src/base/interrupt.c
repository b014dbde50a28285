#include "src/base/interrupt.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "src/base/clock.h"

/* Written by the handler on whichever thread takes the signal, read by every thread of a team
 * (the first touch, the TLB sweeps): volatile sig_atomic_t is safe for one thread only, a
 * lock-free atomic for all. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs a lock-free atomic int");
static atomic_int caught;

/* Set between measurements by the main thread, read by the team's threads inside one; once it
 * has passed (or a test hook expired it), deadline_hit says so to every thread. */
static double deadline;
static atomic_int deadline_hit;

static void on_signal(int sig)
{
    atomic_store_explicit(&caught, sig, memory_order_relaxed);
}

void interrupt_install(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* the second signal takes the default action */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
}

int interrupt_signal(void)
{
    return atomic_load_explicit(&caught, memory_order_relaxed);
}

const char *interrupt_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}

double time_limit_deadline(double started, double limit_s)
{
    return started + 0.95 * limit_s - 0.5;
}

void interrupt_deadline_set(double at)
{
    deadline = at;
    atomic_store_explicit(&deadline_hit, 0, memory_order_relaxed);
}

void interrupt_measurement_begins(double time_limit_s)
{
    interrupt_deadline_set(time_limit_s > 0 ? time_limit_deadline(timer_now(), time_limit_s) : 0);
}

bool interrupt_measurement_ends(void)
{
    bool cut = interrupt_deadline_cut();
    interrupt_deadline_set(0);
    return cut;
}

void interrupt_deadline_expire(void)
{
    if (deadline > 0.0) atomic_store_explicit(&deadline_hit, 1, memory_order_relaxed);
}

int interrupt_should_stop(void)
{
    if (interrupt_signal()) return 1;
    if (deadline <= 0.0) return 0;
    if (atomic_load_explicit(&deadline_hit, memory_order_relaxed)) return 1;
    if (timer_now() < deadline) return 0;
    atomic_store_explicit(&deadline_hit, 1, memory_order_relaxed);
    return 1;
}

bool interrupt_deadline_cut(void)
{
    return atomic_load_explicit(&deadline_hit, memory_order_relaxed) != 0;
}

const char *interrupt_stop_reason(void)
{
    return interrupt_signal() || !interrupt_deadline_cut() ? "interrupted" : "cut by --time-limit";
}
