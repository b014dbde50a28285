#ifndef MEMBENCH_MEMORY_BUDGET_H
#define MEMBENCH_MEMORY_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/sys/sysinfo.h"

/* Fraction of MemAvailable the three arrays may take: the rest is for the OS and page tables. */
#define MEMORY_MARGIN 0.90

/* What an allocation may use: MEMORY_MARGIN of MemAvailable, or of what this process's memory
 * cgroup still allows (limit - usage) when that is less. Every allocation path asks here before
 * allocating: the STREAM arrays, the TLB probe's pages, the faults and shootdown regions. */
struct memory_budget {
    uint64_t usable;       /* bytes that may be allocated; 0 when nothing is known */
    uint64_t basis;        /* MemAvailable, or the cgroup's headroom when by_cgroup */
    uint64_t cgroup_limit; /* the cgroup's limit when by_cgroup */
    bool by_cgroup;
};

/* The budget from facts read earlier (sysinfo_read). */
void memory_budget_of(const struct sys_info *sys, struct memory_budget *b);

/* The budget as it is now: MemAvailable and the cgroup read again, for an allocation made
 * after others (a sweep's later run, a later phase of a probe). */
void memory_budget_now(struct memory_budget *b);

bool memory_budget_fits(const struct memory_budget *b, uint64_t need);

/* "only 179.1 MiB may be used (90% of the 198.9 MiB this process's memory cgroup still allows,
 * limit 200.0 MiB)" */
void memory_budget_describe(const struct memory_budget *b, char *buf, size_t len);

/* EXIT_OK when `need` fits (or nothing is known); else one error line "<what> <need><detail>
 * but only ... may be used (...); <remedy>" (plus " or ask the batch system for more memory"
 * when the cgroup is the limit) and EXIT_RESOURCE. `what` ends in its verb: "the probe needs". */
int memory_budget_check(const struct memory_budget *b, uint64_t need, const char *what,
                        const char *detail, const char *remedy);

#endif
