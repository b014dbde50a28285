#ifndef MEMBENCH_INTERRUPT_H
#define MEMBENCH_INTERRUPT_H

#include <stdbool.h>

/* SIGINT, SIGTERM and SIGHUP (unless ignored, as under nohup) stop a run at the next safe point
 * (between repetitions or runs), so the runs already finished are still reported; a second
 * signal ends the process at once. */
void interrupt_install(void);

/* The signal that asked to stop, or 0. */
int interrupt_signal(void);

/* "SIGINT", "SIGTERM" or "SIGHUP". */
const char *interrupt_name(int sig);

/* --time-limit: the timer_now() by which a measurement that started at `started` should end,
 * leaving room to validate and report (the same for a STREAM run and every probe). */
double time_limit_deadline(double started, double limit_s);

/* The deadline of the measurement under way (a probe, the TLB probe, the latency measurement):
 * from now on interrupt_should_stop() also answers once timer_now() passes it; 0 = none.
 * Clears the record of an earlier measurement's deadline having cut it. */
void interrupt_deadline_set(double deadline);

/* The long loops' stop test: non-zero when a signal came or the deadline has passed (which is
 * then remembered: interrupt_deadline_cut()). Safe on any thread. */
int interrupt_should_stop(void);

/* The deadline set, if any, counts as passed from now on (membench-hooked's time_limit_at). */
void interrupt_deadline_expire(void);

/* Whether interrupt_should_stop() answered because of the deadline since it was last set. */
bool interrupt_deadline_cut(void);

/* A measurement other than a STREAM run begins: its --time-limit (0: none) counts from now. */
void interrupt_measurement_begins(double time_limit_s);
/* ... and ends: whether its time limit cut it; the deadline is cleared. */
bool interrupt_measurement_ends(void);

/* What stopped a measurement early, for its reasons: "interrupted" (a signal) or "cut by
 * --time-limit". */
const char *interrupt_stop_reason(void);

#endif
