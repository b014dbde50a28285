#ifndef MEMBENCH_EFFICIENCY_H
#define MEMBENCH_EFFICIENCY_H

#include <stdbool.h>
#include <stddef.h>

struct cpu_identity;
struct dimm_inventory;
struct run_result;

#define EFFICIENCY_PACKAGES_MAX 16

/* One package's share under --per-domain package, against its own socket's ceiling. */
struct package_efficiency {
    int package;   /* the package's logical index, as --per-domain numbers it */
    int socket_id; /* the SMBIOS socket taken for it (the locators' number) */
    double rate_mbps, ceiling_mbps, pct;
};

/* The measured rate as a share of the node's ceiling (SMBIOS channels x MT/s x width, or
 * --peak), beside the range published measurements show for the CPU class. */
struct efficiency {
    bool known;
    char why_unknown[160]; /* "" when known */
    const char *kernel;    /* "Triad" */
    double rate_mbps, ceiling_mbps, pct;
    const char *ceiling_source; /* the report's peak_source */
    /* the published range for this CPU class; typical_known false without a row */
    bool typical_known;
    double typical_min_pct, typical_max_pct;
    const char *cpu_class; /* "AMD EPYC 9004 (Genoa)" */
    const char *typical_source;
    int n_packages; /* --per-domain package: each package against its socket */
    struct package_efficiency packages[EFFICIENCY_PACKAGES_MAX];
    char packages_why[160]; /* why a per-package run has none; "" otherwise */
};

/* A class of CPUs and what published STREAM runs on it reached, with where it was published. */
struct typical_efficiency {
    const char *vendor; /* /proc/cpuinfo vendor_id */
    int family;
    int models[8]; /* CPUID models of the class, 0-terminated */
    const char *cpu_class;
    double min_pct, max_pct;
    const char *source;
};

/* The table's row for this CPU; NULL without one. */
const struct typical_efficiency *typical_efficiency_of(const struct cpu_identity *cpu);

/* The judged run's Triad (else its first kernel) against ceiling_mbps (0: unknown, with
 * ceiling_source saying why). A run that did not use the whole node (fewer threads than
 * cores, or a --matrix cell) is not compared with the node's ceiling. */
void efficiency_of(const struct run_result *run, int node_cores, double ceiling_mbps,
                   const char *ceiling_source, const struct cpu_identity *cpu,
                   struct efficiency *out);

/* Each package's rate (a --per-domain package run) against its socket's ceiling, SMBIOS's
 * sockets taken in ascending order of their number for the packages in logical order. Sets
 * out->n_packages, or out->packages_why when the run was per package but they cannot be
 * compared; leaves both empty for any other run. */
void efficiency_per_package(const struct run_result *run, int node_cores,
                            const struct dimm_inventory *inv, struct efficiency *out);

/* Below the published range: a reason to look for causes. */
static inline bool efficiency_below_typical(const struct efficiency *e)
{
    return e && e->known && e->typical_known && e->pct < e->typical_min_pct;
}

#endif
