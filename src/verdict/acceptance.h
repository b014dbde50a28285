#ifndef MEMBENCH_ACCEPTANCE_H
#define MEMBENCH_ACCEPTANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/kernel_table.h"

struct provenance;
struct run_result;
struct sys_info;
struct topology_facts;

/* What the checks know of the node besides the run: read before it, never changed. */
struct node_facts {
    const char *version; /* membench's */
    const struct provenance *prov;
    const struct topology_facts *topo;
    const struct sys_info *sys;
};

/* What a reference's rates were measured with; absent fields (-1, "") are not compared. */
struct reference_profile {
    bool present; /* false for a reference without "profile": its rates are checked alone */
    long long threads, elements, offset;
    char bind[72], type[16], stores[16], pages[16], isa[16];
    char topology[200];              /* the topology source it was measured on ("this machine") */
    bool has_kernel_stores;          /* "kernel_stores": each kernel's store kind */
    int kernel_stores[KERNEL_COUNT]; /* enum store_kind; -1 = the kernel is not listed */
};

/* What a good node delivers, from --expect or a reference file; 0 = no expectation. */
struct expectations {
    double rate_mbps[KERNEL_COUNT];
    unsigned reference_kernels; /* bits of the kernels the reference holds rates for */
    struct reference_profile profile;
    bool have_system; /* the reference's system fingerprint is present */
    char cpu_model[128];
    int cores, pus;
    unsigned long long mem_total_bytes;
    char thp_enabled[32];
    char governor[32];
    long long hugepages_2m; /* total 2 MB pages in the pool; -1 = unknown */
    bool whole_node;        /* the acceptance profile: every online PU must be usable */
};

/* "triad=90000,copy=85000" (MB/s, kernel names case-insensitive) into e->rate_mbps.
 * Returns 0, or -1 with a reason. */
int expectations_parse(const char *text, struct expectations *e, char *why, size_t why_len);

#define ACCEPTANCE_CHECKS_MAX 32
#define ACCEPTANCE_TIME_LIMIT_S 30.0 /* --acceptance without --time-limit */

struct acceptance_check {
    char name[48];
    char measured[96];
    char expected[96];
    bool passed;
    double measured_value, expected_value; /* for rate checks; 0 otherwise */
};

struct acceptance_result {
    bool evaluated;
    bool passed;
    double tolerance_pct;
    int n_checks;
    struct acceptance_check checks[ACCEPTANCE_CHECKS_MAX];
};

/* --acceptance judges this machine: a topology that is not its own (HWLOC_XMLFILE,
 * HWLOC_SYNTHETIC, HWLOC_THISSYSTEM=0) is refused before anything is measured (membench-hooked:
 * unless MEMBENCH_TEST_TOPOLOGY_IS_MACHINE=1). Returns 0, or -1 with the error line in why. */
int acceptance_topology_check(const struct topology_facts *t, char *why, size_t why_len);

/* Checks one measured run against the expectations: every expected kernel's best rate >=
 * expected x (1 - tolerance), validation, page size, placement, and the reference's profile
 * (each field it records must equal this run's) and system fingerprint when there are. */
void acceptance_evaluate(const struct node_facts *node, const struct run_result *run,
                         const struct expectations *e, double tolerance_pct,
                         struct acceptance_result *out);

#endif
