#ifndef MEMBENCH_CLUSTER_ENV_H
#define MEMBENCH_CLUSTER_ENV_H

#include <stdbool.h>
#include <stddef.h>

#include "src/cli/cli.h"

/* Every measuring rank of a cluster run must have the same effective profile: the options
 * (cluster_options.h), the environment variables that change a run, and what they resolve
 * to. Each node's machine (its cores) may differ: that is what the peer comparison judges. */

/* A variable (or, with a name ending in '_', every variable of that prefix) that changes a
 * run, and who reads it. */
struct run_variable {
    const char *name;
    const char *read_by;
};

/* The one table: compared across the ranks (run_variables), or each rank's own
 * (local_variables: read by membench, but they do not change what is measured). */
extern const struct run_variable run_variables[], local_variables[];
extern const size_t run_variables_count, local_variables_count;

/* Whether a variable's name is one of run_variables (exactly, or by its prefix). */
bool run_variable_compared(const char *name);

/* "NAME=value" lines, sorted by name, of every variable of env (an environ-style array, NULL
 * ended) that run_variables names; a newline or backslash in a value is written as \n or \\.
 * malloc'd, "" when none is set; NULL when out of memory. */
char *environment_describe(char *const *env);

/* 0 when two environment_describe() texts set the same variables to the same values; else 1
 * with the first variable (by name) that differs: each side as "NAME=value" or "NAME unset". */
int environment_difference(const char *mine, const char *theirs, char *my_side, size_t my_len,
                           char *their_side, size_t their_len);

/* What a rank's options and environment resolve to before measuring. */
struct rank_profile {
    unsigned threads;      /* the STREAM runs' thread count; 0 = not known */
    char threads_from[32]; /* "--threads", "OMP_NUM_THREADS", "physical cores" or why unknown */
    int cores;             /* the cores it may use (those may differ between nodes) */
    char topology[200];    /* where the topology comes from (topology_facts.source) */
    int this_system;       /* hwloc: the topology is this machine */
};

/* 0 when two profiles may be compared by the peers; else 1 with what differs, "threads 2
 * (OMP_NUM_THREADS)", "topology HWLOC_XMLFILE=...", for each side. A thread count that follows
 * the cores ("physical cores") may differ; where it comes from may not. */
int profile_difference(const struct rank_profile *mine, const struct rank_profile *theirs,
                       char *my_side, size_t my_len, char *their_side, size_t their_len);

/* This rank's profile: the topology as it loads here, and the thread count its options, its
 * OMP_NUM_THREADS or its cores give. Prints nothing (the node's own run reports errors). */
void rank_profile_read(const struct options *o, struct rank_profile *p);

#endif
