#ifndef MEMBENCH_INTERRUPT_H
#define MEMBENCH_INTERRUPT_H

/* SIGINT, SIGTERM and SIGHUP (unless ignored, as under nohup) stop a run at the next safe point
 * (between repetitions or runs), so the runs already finished are still reported; a second
 * signal ends the process at once. */
void interrupt_install(void);

/* The signal that asked to stop, or 0. */
int interrupt_signal(void);

/* "SIGINT", "SIGTERM" or "SIGHUP". */
const char *interrupt_name(int sig);

#endif
