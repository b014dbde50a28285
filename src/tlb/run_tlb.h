#ifndef MEMBENCH_RUN_TLB_H
#define MEMBENCH_RUN_TLB_H

#include "affinity/policy.h"
#include "affinity/topology.h"
#include "src/measure/shared_options.h"
#include "src/sys/sysinfo.h"
#include "src/base/clock.h"
#include "src/tlb/tlb_result.h"

/* What the TLB probe is asked for: its own options and the placement and page options it
 * shares with the STREAM runs (its .options->request fills it). */
struct tlb_request {
    const struct tlb_options *tlb;
    /* no threads: one thread, unpinned unless --cpu */
    const struct shared_options *shared;
    bool dry_run;
};

/* The TLB probe, planned from the options and the machine before anything is measured. */
struct tlb_plan {
    bool enabled;
    bool dry_run;
    struct tlb_options opts;
    const char *pages_name; /* backing of the main sweep: "4k" (default), "default", ... */
    uint64_t page_bytes;    /* its page size: one access per this many bytes */
    bool multi;             /* --threads given */
    int threads;
    enum bind_kind bind_kind;
    char bind[72];
    int *pus; /* planned PU per thread; -1 = not pinned */
    uint64_t max_pages;
    bool huge; /* run the 2 MB sweep */
    uint64_t max_huge_pages;
    char huge_why[240]; /* why not, or where it was capped */
    char walk_why[200]; /* why the page-walk throughput phase is left out; "" it runs */
    struct tlb_cost cost;
};

/* Checks the probe's options against this machine. Returns an exit status after a one-line
 * error: EXIT_USAGE (a CPU not in the allowed set, a fake topology...) or EXIT_RESOURCE. */
int tlb_plan_build(const struct tlb_request *o, const struct topology *topo,
                   const struct sys_info *sys, struct tlb_plan *plan);
void tlb_plan_free(struct tlb_plan *plan);

/* --dry-run: what would be measured. */
void tlb_describe(const struct tlb_plan *plan, const struct topology *topo, struct tlb_result *out);

/* Measures. Returns an exit status (one-line error on failure). */
int run_tlb(const struct tlb_plan *plan, const struct topology *topo, const struct sys_info *sys,
            const struct timer_info *timer, struct tlb_result *out);

/* Points of the 4 KB sweep measured (a probe stopped before its first one kept nothing). */
size_t tlb_points_measured(const struct tlb_result *r);

#endif
