#ifndef MEMBENCH_FINISH_SPREAD_H
#define MEMBENCH_FINISH_SPREAD_H

/* How far apart the threads finish one pass: a STREAM repetition ends at its last thread, so
 * the spread is time the other threads wait. */

/* Latest minus earliest of n finish times (seconds after the common start); 0 for n < 2. */
double finish_spread(const double *finish, int n);

/* Median of spreads[1..reps) (the first repetition is a warm-up; sorts them), or spreads[0]
 * when it is the only one; 0 when reps is 0. */
double finish_spread_median(double *spreads, unsigned reps);

#endif
