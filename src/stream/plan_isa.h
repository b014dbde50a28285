#ifndef MEMBENCH_PLAN_ISA_H
#define MEMBENCH_PLAN_ISA_H

#include "src/stream/plan.h"

/* The ISA the kernels run: --isa or MEMBENCH_ISA when forced, else the widest. An exit
 * status, after one error line. */
int plan_choose_isa(const struct stream_options *o, enum isa *isa);

/* An ISA without non-temporal stores (scalar): auto runs normal stores, and nt asked for, by
 * --stores or by the --reference, is refused. An exit status, after one error line. */
int plan_check_nt_available(struct run_config *r, const struct stream_options *o);

#endif
