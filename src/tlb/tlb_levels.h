#ifndef MEMBENCH_TLB_LEVELS_H
#define MEMBENCH_TLB_LEVELS_H

#include "src/tlb/run_tlb.h"
#include "src/tlb/tlb_knees.h"
#include "src/tlb/tlb_result.h"

/* The knee detector's settings for this plan. */
void tlb_knee_params(const struct tlb_plan *plan, struct knee_params *p);

/* Analyses sweep s against its control: levels, what CPUID documents for them (page_bit: a
 * TLB_PAGE_* size), the data-cache knees named from out's cache sizes. */
void tlb_finish_sweep(struct tlb_sweep *s, const struct tlb_curve *control,
                      const struct tlb_plan *plan, struct tlb_result *out, unsigned page_bit,
                      const struct knee_params *p);

/* Compares the levels with what CPUID documents (tlb_finish_sweep does; again after the reuse
 * chase changed their sizes). */
void tlb_levels_document(struct tlb_sweep *s, const struct cpuid_tlb_info *info, unsigned page_bit);

/* Sizes the levels of s from its reuse chase (s->reuse, s->reuse_control, and each planned
 * s->reuse_levels[i]'s pages), then compares them with CPUID again (tlb_phase_reuse.c). */
void tlb_reuse_size(struct tlb_sweep *s, const struct cpuid_tlb_info *info, unsigned page_bit);

/* Fits the model of tlb_model_fit.h to each TLB level of a base-page sweep s (its ways from
 * CPUID where documented for page_bit): s->model (tlb_model_levels.c). */
void tlb_model_size(struct tlb_sweep *s, const struct cpuid_tlb_info *info, unsigned page_bit);

/* Level i's size becomes its model's, where that model was told a hashed index (by the stride
 * probe) and read it: the sweep's rise and the reuse fit know nothing of the index, and a
 * hashed level starts missing well before its size, so both read it early. Returns the size
 * it replaced, NAN when it replaced none. */
double tlb_model_apply_hashed(struct tlb_sweep *s, size_t i, const struct cpuid_tlb_info *info,
                              unsigned page_bit);

/* Flags the threads whose levels differ from their peers'. */
void tlb_compare_threads(struct tlb_result *out);

#endif
