#include "src/base/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
    caught = sig;
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
    return caught;
}

const char *interrupt_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}
