#ifndef MEMBENCH_TEST_HOOKS_H
#define MEMBENCH_TEST_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

struct mem_backend;  /* hugepages/backend.h */
struct stream_hooks; /* src/stream/stream_hooks.h: the kernel hooks */

/* Fault injection for the tests. Only membench-hooked (tests/hooks/, built with
 * -DMEMBENCH_TEST_HOOKS=ON and never installed) sets test_hooks, from its MEMBENCH_TEST_*
 * variables; in membench it stays NULL: nothing in the product reads them. */
struct test_hooks {
    bool corrupt_result;                /* flip a bit of a[n/2] after the last kernel */
    const struct mem_backend *judge_as; /* judge every region's pages against this backend */
    const char *sys_root;  /* the fault probe and the run's conditions read ROOT/..., not /sys */
    const char *proc_root; /* the run's conditions (src/sys/run_conditions.h) read ROOT/... */
    /* a described topology (HWLOC_XMLFILE, HWLOC_SYNTHETIC) counts as this machine for the
     * refusal of --acceptance on another machine's topology */
    bool topology_is_machine;
    const struct stream_hooks *stream; /* the STREAM runner's kernel hooks; NULL = none */
    /* cluster runs: this rank's host name, and ranks grouped into nodes by it (not by shared
     * memory), so that one machine acts as several nodes */
    const char *hostname;
    /* cluster runs: ranks grouped into nodes by gethostname() (each rank in a UTS namespace of
     * its own), not by shared memory */
    bool group_by_hostname;
    bool stop_before_report; /* cluster runs: raise SIGSTOP instead of reporting (a hung node) */
    double cluster_grace_s;  /* cluster runs: the deadline's grace instead of 30 s; 0 = as is */
    int move_pages_errno;    /* page locality: move_pages(2) fails with this errno; 0 = as is */
    int pages_on_node;    /* page locality: 1 + the OS node every page is reported on; 0 = as is */
    bool announce;        /* test_hook_at() writes "membench-test: at POINT" on stderr */
    const char *pause_at; /* test_hook_at(POINT) stops the process (SIGSTOP) the first time */
    /* test_hook_at(POINT): the --time-limit of the measurement under way counts as passed from
     * there on (interrupt_deadline_expire()), so a test cuts it at a known point */
    const char *time_limit_at;
    /* MemAvailable counts as this many bytes (/proc/meminfo only); 0 = as is */
    uint64_t mem_available_bytes;
    const char *dmi_entries; /* the DIMM inventory reads this for /sys/firmware/dmi/entries */
    const char *cpuinfo;     /* ... and the CPU's identity this for /proc/cpuinfo */
};

extern const struct test_hooks *test_hooks;

/* A named point that a test can wait for instead of guessing a delay: "run 2", "first touch",
 * "faults probe", "tlb point 3". With test_hooks->announce it is written on stderr once (not
 * again while the same point repeats); at test_hooks->pause_at the process announces
 * "membench-test: paused at POINT" and stops itself until SIGCONT, so that a signal sent
 * meanwhile arrives while that phase runs; at test_hooks->time_limit_at the time limit of the
 * measurement under way expires (before any pause there). In membench (test_hooks NULL) it does
 * nothing. */
void test_hook_at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
