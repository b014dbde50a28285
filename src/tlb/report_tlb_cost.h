#ifndef MEMBENCH_REPORT_TLB_COST_H
#define MEMBENCH_REPORT_TLB_COST_H

#include <jansson.h>
#include <stdio.h>

#include "src/tlb/tlb_cost.h"

/* "Memory and time: ..." and a line per part, then the NOTE when there is one; nothing when
 * the cost is not known (report_tlb_cost.c). */
void report_tlb_cost_text(FILE *out, const struct tlb_cost *c);
/* The "cost" object of the tlb JSON; null when not known. */
json_t *report_tlb_cost_json(const struct tlb_cost *c);

#endif
