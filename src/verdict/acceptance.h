#ifndef MEMBENCH_ACCEPTANCE_H
#define MEMBENCH_ACCEPTANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/kernel_table.h"
#include "src/stream/run_profile.h"

struct node_memory;
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
    const struct node_memory *memory; /* every NUMA node; NULL when unread */
    /* on a node of several measurable tiers, the tier runs measured after the checked run
     * (config.tier: each tier's index in memory->tiers) */
    const struct run_result *tier_runs;
    size_t n_tier_runs;
};

/* A node of a reference's memory inventory (its "memory" key). */
struct reference_mem_node {
    unsigned os;
    char kind[24]; /* subtype (HBM, DRAM...), else "with cores" / "memory only" */
    unsigned long long bytes;
    char tier[24];
};

#define REFERENCE_MEM_NODES_MAX 128
#define REFERENCE_MEM_TIERS_MAX 16
/* A node may be smaller than the reference's by this much: kernels reserve a little memory per
 * node differently (crashkernel, firmware ranges, a boot's hugetlb pages); a missing DIMM
 * takes far more. */
#define REFERENCE_MEM_MARGIN_PCT 1.0

struct reference_memory {
    bool present; /* false: an older reference, without the inventory */
    int n_nodes, n_tiers;
    struct reference_mem_node nodes[REFERENCE_MEM_NODES_MAX];
    char tiers[REFERENCE_MEM_TIERS_MAX][24];
};

/* A tier's rates: --expect hbm:triad=90000, or a reference's "tier_rates". */
struct tier_expectation {
    char tier[24];  /* its name (memory tiers: local, dram, hbm, cxl...) */
    char nodes[64]; /* the reference's nodes of it, OS numbers; "" from --expect */
    double rate_mbps[KERNEL_COUNT];
    unsigned rated_by_reference;
    /* --expect hbm:triad=80%hmat: at least this % of the firmware's bandwidth to the tier */
    double hmat_pct[KERNEL_COUNT];
};

/* What a good node delivers, from --expect or a reference file; 0 = no expectation. */
struct expectations {
    double rate_mbps[KERNEL_COUNT];
    unsigned reference_kernels;  /* bits of the kernels the reference holds rates for */
    unsigned rated_by_reference; /* bits of the kernels whose rate_mbps is the reference's */
    /* a reference saved from several runs: its rates are the medians of reference_runs runs'
     * best rates (0: not said, an older reference), and the kernels in spread_kernels have
     * their run-to-run spread, (max - min) / max of those best rates, in percent */
    int reference_runs;
    unsigned spread_kernels;
    double reference_spread_pct[KERNEL_COUNT];
    struct reference_profile profile;
    bool have_system; /* the reference's system fingerprint is present */
    char cpu_model[128];
    int cores, pus;
    unsigned long long mem_total_bytes;
    char thp_enabled[32];
    char governor[32];
    long long hugepages_2m; /* total 2 MB pages in the pool; -1 = unknown */
    bool whole_node;        /* the acceptance profile: every online PU must be usable */
    struct reference_memory memory;
    int n_tier_rates;
    struct tier_expectation tier_rates[REFERENCE_MEM_TIERS_MAX];
};

/* The tier expectation of that name, added when absent (NULL when the table is full). */
struct tier_expectation *expectations_tier(struct expectations *e, const char *name);
/* Bits of every kernel expected, of the node's rates or a tier's. */
unsigned expectations_kernel_mask(const struct expectations *e);

/* "triad=90000,copy=85000" (MB/s, kernel names case-insensitive) into e->rate_mbps; a
 * kernel qualified by a tier name, "hbm:triad=80000", into that tier's expectation.
 * Returns 0, or -1 with a reason. */
int expectations_parse(const char *text, struct expectations *e, char *why, size_t why_len);

#define ACCEPTANCE_CHECKS_MAX 48
#define ACCEPTANCE_TIME_LIMIT_S 30.0 /* --acceptance without --time-limit */

/* A check passes, fails, or (a rate check only) cannot judge: its rate is below the floor by
 * no more than a spread that exceeds the tolerance, so noise could explain the shortfall. */
enum check_verdict { CHECK_PASS, CHECK_FAIL, CHECK_INCONCLUSIVE };

struct acceptance_check {
    char name[48];
    char measured[96];
    char expected[96];
    bool passed;                           /* CHECK_PASS */
    double measured_value, expected_value; /* for rate checks; 0 otherwise */
    enum check_verdict verdict;            /* read it through check_state() */
    bool rate_check;
    double reference_mbps; /* rate checks: the rate expected (--expect's or the reference's) */
    bool from_reference;   /* rate checks: that rate is the reference file's */
    double rep_spread_pct; /* rate checks: the kernel's repetition spread; -1 = unknown */
    double ref_spread_pct; /* rate checks: the reference's run-to-run spread; -1 = unknown */
    int ref_runs;          /* rate checks: the reference's runs behind the rate; 0 = unknown */
    char why[200];         /* CHECK_INCONCLUSIVE: which spread, e.g. "Triad varied 23% ..." */
    /* rate checks, whatever the verdict: a rate far above the one expected (the reference may
     * be stale), or a reference whose own runs varied more than the tolerance; "" = none */
    char note[240];
};

struct acceptance_result {
    bool evaluated;
    bool passed;       /* every check passed */
    bool inconclusive; /* no check failed, but at least one could not judge */
    double tolerance_pct;
    int n_checks;
    struct acceptance_check checks[ACCEPTANCE_CHECKS_MAX];
};

/* --acceptance judges this machine: a topology that is not its own (HWLOC_XMLFILE,
 * HWLOC_SYNTHETIC, HWLOC_THISSYSTEM=0) is refused before anything is measured (membench-hooked:
 * unless MEMBENCH_TEST_TOPOLOGY_IS_MACHINE=1). Returns 0, or -1 with the error line in why. */
int acceptance_topology_check(const struct topology_facts *t, char *why, size_t why_len);

/* An expectation against the firmware (hbm:triad=80%hmat) needs HMAT's bandwidth to every node
 * of that tier: returns 0, or -1 with the error line (exit 3) in why. */
int acceptance_hmat_check(const struct expectations *e, const struct node_memory *m, char *why,
                          size_t why_len);

/* A check's outcome: passed wins, and only an explicit CHECK_INCONCLUSIVE is one. */
static inline enum check_verdict check_state(const struct acceptance_check *c)
{
    return c->passed                          ? CHECK_PASS
           : c->verdict == CHECK_INCONCLUSIVE ? CHECK_INCONCLUSIVE
                                              : CHECK_FAIL;
}

/* Why a check did not pass, one phrase: an inconclusive check's why, a failed rate check's
 * shortfall ("Triad 60% below the reference (4000.0 of 10000.0 MB/s, floor 5000.0)"), another
 * failed check's values; "" for a passed check. */
void acceptance_check_reason(const struct acceptance_check *c, char *buf, size_t len);

/* "PASS", "FAIL" or "INCONCLUSIVE": of a check, and of the whole result. */
const char *check_verdict_name(enum check_verdict v);
enum check_verdict acceptance_verdict(const struct acceptance_result *a);

/* Checks one measured run against the expectations: every expected kernel's best rate >=
 * expected x (1 - tolerance) (below it: inconclusive when the repetitions' or the reference's
 * runs' spread exceeds the tolerance and is at least the shortfall), validation, page size,
 * placement, and the reference's profile (each field it records must equal this run's) and system
 * fingerprint when there are. */
void acceptance_evaluate(const struct node_facts *node, const struct run_result *run,
                         const struct expectations *e, double tolerance_pct,
                         struct acceptance_result *out);

#endif
