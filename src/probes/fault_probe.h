#ifndef MEMBENCH_FAULT_PROBE_H
#define MEMBENCH_FAULT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hugepages/backend.h"
#include "src/probes/fault_filesystems.h"
#include "kernels/fault_kernel.h"

/* --faults: what a page fault costs. Map a region, touch one byte per 4 KB page, count the
 * faults with getrusage and time the touch loop; anonymous memory under three backings, then
 * an evicted file (major faults) with readahead off and on. Measurement only. */

enum fault_backing {
    FAULT_4K,             /* hugepages/ backend 4k (MADV_NOHUGEPAGE): one fault per 4 KB */
    FAULT_THP,            /* backend thp (2 MB-aligned, MADV_HUGEPAGE): one fault per 2 MB */
    FAULT_2M,             /* backend 2m: hugetlb pages from the 2 MB pool */
    FAULT_FILE,           /* evicted file, MADV_RANDOM: every page a major fault */
    FAULT_FILE_READAHEAD, /* evicted file, MADV_SEQUENTIAL: readahead hides the faults */
    FAULT_BACKING_COUNT
};

#define FAULT_MASK_ALL ((1u << FAULT_BACKING_COUNT) - 1)

/* "4k", "thp", "2m", "file", "file-readahead" */
const char *fault_backing_name(enum fault_backing b);

struct fault_config {
    uint64_t bytes;            /* region and file size; a multiple of PAGE_2M (the 2m pages) */
    unsigned mask;             /* bits of enum fault_backing to run */
    const char *dir;           /* where the file is written */
    unsigned reps;             /* anonymous runs: repetitions, the median time is reported */
    const struct mem_env *env; /* where the THP mode and the pools are read; NULL: the system */
    /* the backend every region's pages are judged against; NULL: its own (a test hook) */
    const struct mem_backend *judge_as;
    int (*stop)(void); /* non-zero: stop at the next check (~every 4 MiB); NULL: never */
};

struct fault_run {
    enum fault_backing backing;
    char skipped[512]; /* empty when measured: why this backing could not be measured here */
    uint64_t bytes;
    uint64_t pages_touched; /* 4 KB pages, one byte each */
    uint64_t minor_faults, major_faults;
    double seconds;      /* the touch loop (median of the repetitions) */
    double seconds_min;  /* fastest repetition */
    double ns_per_fault; /* seconds / (minor + major) */
    double ns_per_page;  /* seconds / pages_touched: comparable across backings */
    unsigned reps;
    /* anonymous backings: /proc/self/smaps of the region after the touch (the median
     * repetition), judged against the backend's promise; not verified if any repetition failed */
    struct backing_info smaps;
    /* file backings */
    const char *advice;        /* "MADV_RANDOM", "MADV_SEQUENTIAL" */
    double resident_before;    /* share of the file in the page cache before the touch */
    double us_per_major_fault; /* seconds / major_faults; NAN without major faults */
    char note[512];            /* an honest remark on the result, empty when none */
};

struct fault_report {
    uint64_t bytes;
    unsigned reps;
    char thp_enabled[32];  /* the selected word of <sys_root>/kernel/mm/transparent_hugepage/enabled
                            */
    char dir[256];         /* the file's directory */
    char fs_type[32];      /* its filesystem, from statfs: "ext4", "tmpfs", ... */
    bool fs_memory_backed; /* tmpfs/ramfs: no disk behind it, so no major faults */
    int n_runs;
    struct fault_run runs[FAULT_BACKING_COUNT];
    bool stopped;        /* cfg->stop asked: runs[] holds the backings measured before it */
    char stopped_in[16]; /* the backing it stopped in, dropped; empty when between backings */
};

/* Checks whether a backing can run here: 0, or -1 with the reason and its remedy (THP
 * 'never', no 2 MB pool, a memory-backed or missing directory). Changes nothing. */
int fault_backing_check(enum fault_backing b, const struct fault_config *cfg, char *why,
                        size_t why_len);

/* Runs every backing in cfg->mask, in enum order; a backing that cannot run here gets a
 * skipped row. When cfg->stop asks, the backing under way is dropped and the rest not run. Returns
 * 0, or -1 with a reason when something failed that should not (mmap of a few MiB, writing the
 * file). */
int fault_probe_run(const struct fault_config *cfg, struct fault_report *out, char *why,
                    size_t why_len);

#endif
