#include "src/base/interrupt.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

/* Written by the handler on whichever thread takes the signal, read by every thread of a team
 * (the first touch, the TLB sweeps): volatile sig_atomic_t is safe for one thread only, a
 * lock-free atomic for all. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs a lock-free atomic int");
static atomic_int caught;

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
