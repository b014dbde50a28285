#ifndef MEMBENCH_INTERRUPT_H
#define MEMBENCH_INTERRUPT_H

/* SIGINT and SIGTERM stop a run at the next safe point (between repetitions or runs), so the
 * runs already finished are still reported; a second signal ends the process at once. */
void interrupt_install(void);

/* The signal that asked to stop, or 0. */
int interrupt_signal(void);

#endif
