#ifndef MEMBENCH_REPORT_TLB_H
#define MEMBENCH_REPORT_TLB_H

#include <jansson.h>
#include <stdio.h>

#include "src/tlb/tlb_result.h"

/* Writers of the TLB probe's result: they only format it. */
void report_tlb_text(FILE *out, const struct tlb_result *t);
void report_tlb_quiet(FILE *out, const struct tlb_result *t);
void report_tlb_csv(FILE *out, const struct tlb_result *t);
json_t *report_tlb_json(const struct tlb_result *t);

#endif
