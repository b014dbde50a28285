#ifndef MEMBENCH_SHOOTDOWN_PROBE_H
#define MEMBENCH_SHOOTDOWN_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/shootdown_kernel.h"

/* --shootdown: what it costs to take pages away from a process whose threads run on other
 * CPUs. One thread, pinned, repeatedly touches a region and unmaps it (munmap, or
 * MADV_DONTNEED); the kernel must then flush the TLB of every other CPU that runs this mm,
 * by an inter-processor interrupt each, and wait for them. Sibling threads of the same
 * process spin on other CPUs so that the kernel must interrupt them. Measurement only. */

#define SHOOTDOWN_MAX_COUNTS 32
#define SHOOTDOWN_MAX_CPUS 1024

/* Binds the calling thread to one PU (OS index); returns 0 when bound and read back. */
typedef int (*shootdown_bind_fn)(void *ctx, int pu);

struct shootdown_config {
    int measure_pu;                /* PU of the measuring thread */
    const int *remote_pus;         /* PUs for the sibling threads, in order of use */
    int n_remote_pus;              /* how many exist (usable PUs - 1) */
    const unsigned *remote_counts; /* sibling counts to measure, ascending */
    int n_remote_counts;
    const unsigned *pages; /* 4 KB pages per unmap */
    int n_pages;
    double seconds_per_point; /* time budget of one (mode, pages, remote) point */
    shootdown_bind_fn bind;
    void *bind_ctx;
    const char *interrupts_path; /* normally /proc/interrupts */
    int (*stop)(void);           /* non-zero: stop at the next op; NULL: never */
};

struct shootdown_run {
    enum shootdown_mode mode;
    unsigned remote_threads;
    unsigned pages;
    unsigned ops;
    double us_per_op; /* median time of one unmap (munmap / madvise) call */
    double us_min, us_mean;
    double us_per_cycle;        /* median of a whole touch + unmap (+ mmap) cycle */
    double added_us_per_remote; /* (us_per_op - same point with 0 remote) / remote; NAN */
    /* Per-op attribution, when /proc/interrupts is cheap enough to read between ops: an op is
     * "interrupted" when every sibling's CPU took a TLB interrupt during it, "not" when none
     * did (a flush deferred by the hypervisor, or a sibling not on its CPU at the time). */
    bool attributed;
    unsigned ops_interrupted, ops_not_interrupted;
    double us_interrupted;     /* median unmap time of the interrupted ops; NAN if none */
    double us_not_interrupted; /* median unmap time of the ops with no remote interrupt */
    double added_us_per_remote_interrupted; /* (us_interrupted - 0-sibling us_per_op) / remote */
    int64_t shootdowns;                     /* TLB-shootdown interrupts on all CPUs; -1 unknown */
    int64_t shootdowns_remote;              /* on the CPUs of the sibling threads; -1 unknown */
    double shootdowns_per_op;               /* shootdowns_remote / ops; NAN without siblings */
    bool siblings_bound;                    /* every sibling bound and running where asked */
};

struct shootdown_skip {
    unsigned remote_threads;
    char reason[160];
};

/* One (mode, sibling count) over all page counts. */
struct shootdown_summary {
    enum shootdown_mode mode;
    unsigned remote_threads;
    double added_us_per_remote; /* median over the page counts; NAN for 0 siblings */
    double shootdowns_per_op;   /* remote TLB interrupts per op over all its points; NAN */
    double added_us_per_remote_interrupted; /* median over page counts; NAN */
};

struct shootdown_report {
    int measure_pu;
    int n_remote_pus;
    int remote_pus[SHOOTDOWN_MAX_CPUS];
    bool measure_bound;
    bool interrupts_available; /* a TLB line exists in /proc/interrupts */
    char interrupts_note[200]; /* why not, or what was seen */
    char hypervisor[16];       /* CPUID 0x40000000 signature, "" on bare metal */
    int pv_tlb_flush;          /* KVM_FEATURE_PV_TLB_FLUSH: 1, 0, -1 not KVM/unknown */
    int flush_ceiling;         /* tlb_single_page_flush_ceiling if readable, else -1 */
    int n_runs;
    struct shootdown_run *runs; /* mode, then pages, then remote threads */
    int n_summary;
    struct shootdown_summary summary[SHOOTDOWN_MODE_COUNT * SHOOTDOWN_MAX_COUNTS];
    int n_skipped;
    struct shootdown_skip skipped[SHOOTDOWN_MAX_COUNTS];
    char note[320]; /* when few flushes reached the siblings: why that may be; else empty */
    bool stopped;   /* cfg->stop asked: runs[] holds the points finished before it */
    int n_planned;  /* points it would have measured */
};

/* Runs every point; when cfg->stop asks, the point under way is dropped and the rest not run.
 * Returns 0, or -1 with a reason (threads or memory unavailable). */
int shootdown_probe_run(const struct shootdown_config *cfg, struct shootdown_report *out, char *why,
                        size_t why_len);
void shootdown_report_free(struct shootdown_report *r);

#endif
