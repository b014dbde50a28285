#ifndef MEMBENCH_TLB_MEASUREMENT_H
#define MEMBENCH_TLB_MEASUREMENT_H

#include "src/measure/measure.h"

/* --tlb: its request is a struct tlb_request (src/tlb/run_tlb.h). */
extern const struct measurement tlb_measurement;

#endif
