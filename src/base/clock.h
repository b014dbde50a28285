#ifndef MEMBENCH_CLOCK_H
#define MEMBENCH_CLOCK_H

/* Wall-clock seconds from CLOCK_MONOTONIC. */
double timer_now(void);

/* Sleeps until timer_now() reaches when_s; returns early (0 or more seconds later) when a
 * signal handler runs, so that a caller can look at the signal and sleep again. */
void sleep_until(double when_s);

struct timer_info {
    const char *clock_name;
    double resolution_s;  /* clock_getres */
    double granularity_s; /* smallest observed step between two readings (STREAM's checktick) */
    double call_cost_s;   /* median cost of one reading */
};

void timer_probe(struct timer_info *out);

/* A kernel time below this many granularity steps is too coarse to trust (STREAM: 20). */
#define TIMER_MIN_TICKS 20.0

#endif
