#ifndef MEMBENCH_DIAGNOSIS_RULES_H
#define MEMBENCH_DIAGNOSIS_RULES_H

/* The tests of the likely causes: each fills the cause's summary and evidence and returns true
 * when its evidence is there. */
#include <stdbool.h>

#include "src/verdict/diagnosis.h"

typedef bool (*cause_test)(const struct diagnosis_facts *f, struct cause *c);

/* the hardware: src/verdict/diagnosis_hardware.c */
bool cause_uncorrected_during_run(const struct diagnosis_facts *f, struct cause *c);
bool cause_uncorrected_since_boot(const struct diagnosis_facts *f, struct cause *c);
bool cause_corrected_errors(const struct diagnosis_facts *f, struct cause *c);
bool cause_empty_channel(const struct diagnosis_facts *f, struct cause *c);
bool cause_unbalanced_sockets(const struct diagnosis_facts *f, struct cause *c);
bool cause_below_rated(const struct diagnosis_facts *f, struct cause *c);
bool cause_mixed_dimms(const struct diagnosis_facts *f, struct cause *c);
bool cause_slow_domain(const struct diagnosis_facts *f, struct cause *c);

/* what ran beside the measurement and the node's settings: src/verdict/diagnosis_system.c */
bool cause_steal(const struct diagnosis_facts *f, struct cause *c);
bool cause_other_work(const struct diagnosis_facts *f, struct cause *c);
bool cause_swapping(const struct diagnosis_facts *f, struct cause *c);
bool cause_frequency(const struct diagnosis_facts *f, struct cause *c);
bool cause_numa_balancing(const struct diagnosis_facts *f, struct cause *c);
bool cause_thp_never(const struct diagnosis_facts *f, struct cause *c);

#endif
