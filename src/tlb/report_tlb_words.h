#ifndef MEMBENCH_REPORT_TLB_WORDS_H
#define MEMBENCH_REPORT_TLB_WORDS_H

/* Words and figures that every TLB writer (report_tlb*.c) says the same way. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "src/tlb/tlb_knee_levels.h"
#include "src/tlb/tlb_result.h"

/* "CPU model: ...; documented TLBs: ..." (report_tlb_documented.c). */
void report_tlb_documented_text(FILE *out, const struct cpuid_tlb_info *c);

/* A level's model fit (report_tlb_model.c): its text line, and its JSON object (null when the
 * model gave no size). */
void report_tlb_model_line(char *buf, size_t len, const struct tlb_sweep *s, size_t i);
json_t *report_tlb_model_json(const struct tlb_sweep *s, size_t i);

/* The stride probe (report_tlb_sets.c): its text section and its JSON object. */
void report_tlb_sets_text(FILE *out, const struct tlb_result *t);
json_t *report_tlb_sets_json(const struct tlb_result *t);

static inline const char *mode_word(enum tlb_mode m)
{
    return m == TLB_MODE_CHASE ? "chase" : "inc";
}

static inline const char *order_word(enum tlb_order o)
{
    return o == TLB_ORDER_RANDOM ? "random" : "seq";
}

/* Clock rate used for cycles: the core estimate, else the TSC; 0 when neither is known. */
static inline double cycle_ghz(const struct tlb_result *t)
{
    return t->core_ghz > 0 ? t->core_ghz : t->tsc_ghz;
}

static inline bool is_walk(const struct knee_level *l)
{
    return strcmp(l->name, "page walk") == 0 || strncmp(l->name, "past knee", 9) == 0;
}

/* How a level's entries were found (knee_level_method); NULL for the page walk, which has no
 * size. */
static inline const char *level_method(const struct knee_level *l)
{
    return is_walk(l) ? NULL : knee_level_method(l);
}

#endif
