#include "src/stream/finish_spread.h"

#include "src/base/stats.h"

double finish_spread(const double *finish, int n)
{
    if (n < 2) return 0.0;
    double lo = finish[0], hi = finish[0];
    for (int t = 1; t < n; t++) {
        lo = finish[t] < lo ? finish[t] : lo;
        hi = finish[t] > hi ? finish[t] : hi;
    }
    return hi - lo;
}

double finish_spread_median(double *spreads, unsigned reps)
{
    if (reps == 0) return 0.0;
    return reps == 1 ? spreads[0] : median_sorting(spreads + 1, reps - 1);
}
