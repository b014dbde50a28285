#ifndef MEMBENCH_PROBES_H
#define MEMBENCH_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/probes/fault_probe.h"
#include "src/probes/shootdown_probe.h"
#include "src/probes/timer_probe.h"

/* The probes (--faults, --shootdown, --timer): their options, results and writers. They
 * combine with each other; the STREAM kernels run beside them only when asked for. */

enum probe_id { PROBE_FAULTS, PROBE_SHOOTDOWN, PROBE_TIMER, PROBE_COUNT };
#define PROBE_BIT(p) (1u << (p))

#define FAULTS_DEFAULT_BYTES (64ull << 20)
#define FAULTS_REPS 3
#define SHOOTDOWN_MAX_PAGE_COUNTS 32
#define SHOOTDOWN_SECONDS_PER_POINT 0.02

struct probe_options {
    unsigned mask;            /* PROBE_BIT()s requested */
    uint64_t faults_bytes;    /* 0: FAULTS_DEFAULT_BYTES */
    const char *faults_dir;   /* NULL: $TMPDIR, else /var/tmp */
    unsigned faults_backings; /* bits of enum fault_backing; 0: all */
    unsigned remote[SHOOTDOWN_MAX_COUNTS];
    int n_remote; /* 0: 0, 1, 2, 4, ... up to the CPUs there are */
    unsigned pages[SHOOTDOWN_MAX_PAGE_COUNTS];
    int n_pages; /* 0: 1, 2, 8, 32, 33, 34, 64, 512 */
};

struct probe_results {
    unsigned requested;     /* PROBE_BIT()s asked for */
    unsigned ran;           /* PROBE_BIT()s measured (none under --dry-run) */
    unsigned stopped;       /* PROBE_BIT()s a signal or the time limit stopped half-way */
    bool cut_by_time_limit; /* --time-limit stopped one of them */
    struct timer_probe_report timer;
    struct fault_report faults;
    struct shootdown_report shootdown;
    unsigned remote_default; /* the sibling counts were chosen by membench, not given */
};

struct topology;
struct sys_info;

/* Before anything is measured: checks what the requested probes need (a usable directory,
 * memory, a pool or CPUs that were asked for explicitly). Returns an exit status after a
 * one-line error: EXIT_OK, EXIT_USAGE or EXIT_RESOURCE. */
int probes_check(const struct probe_options *o, const struct topology *topo,
                 const struct sys_info *sys);

/* Runs the requested probes and fills out. Returns an exit status after a one-line error.
 * With dry_run, only notes what was requested. With time_limit_s > 0 each probe stops at its
 * next check once that long has passed since it began (out->cut_by_time_limit says so); a
 * signal stops the one under way and the rest do not start. */
int probes_run(const struct probe_options *o, bool dry_run, double time_limit_s,
               const struct topology *topo, struct probe_results *out);
void probes_free(struct probe_results *r);
/* After a signal or the time limit: 1 and what each requested probe kept, in the order they
 * run ("the timer probe finished; the faults probe stopped in backing thp; reporting the 1
 * backing measured; the shootdown probe did not start"), or 0 when none ran. */
int probes_kept(const struct probe_results *r, char *buf, size_t len);
/* Whether any probe finished a figure worth a report (a probe stopped before its first one
 * did not). */
bool probes_measured(const struct probe_results *r);
/* Logs one error per measured fault-probe row whose pages were not those asked for; returns
 * how many there were (the run then exits 1, as a STREAM run on the wrong pages does). */
int probes_report_mismatches(const struct probe_results *r);

/* Writers: they only format. Each returns 0, or -1 on an output error. */
void report_probes_text(FILE *out, const struct probe_results *r);
void report_probes_quiet(FILE *out, const struct probe_results *r);
/* CSV: one table per probe, each with its own header; tables are separated by a blank line
 * (after_table: a table was written before these). */
void report_probes_csv(FILE *out, const struct probe_results *r, bool after_table);
struct json_t;
void report_probes_json(struct json_t *root, const struct probe_results *r);

#endif
