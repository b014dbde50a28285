#ifndef MEMBENCH_TLB_PROGRESS_H
#define MEMBENCH_TLB_PROGRESS_H

/* Where the TLB probe is (its full run takes 35-90 s): one line on stderr, rewritten in place
 * with \r, only when stderr is a terminal and -q was not given; cleared when the probe ends, so
 * that what follows starts on a clean line. */
#include <stddef.h>

void tlb_progress_begin(void);
/* Point i (from 1) of n, round r (from 1) of k, of phase ("the 4 KB sweep"); at most ten
 * updates a second reach the terminal. */
void tlb_progress_point(const char *phase, unsigned r, unsigned k, size_t i, size_t n,
                        double pages);
void tlb_progress_end(void);

#endif
