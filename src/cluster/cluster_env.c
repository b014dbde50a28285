/* The effective profile of a cluster rank beyond its options: the environment variables that
 * change a run (the one table of them) and what the options and the environment resolve to. */
#include "src/cluster/cluster_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/topology.h"
#include "src/stream/plan.h"

/* Compared across the measuring ranks: a name ending in '_' is every variable of that prefix.
 * tests/cluster/test_mpi_env.py fails when membench reads a variable that is in neither table. */
const struct run_variable run_variables[] = {
    {"OMP_", "libgomp/libomp (OMP_NUM_THREADS: membench's default thread count, src/stream/plan.c; "
             "OMP_PROC_BIND, OMP_PLACES: the binding; OMP_THREAD_LIMIT, OMP_DYNAMIC, "
             "OMP_WAIT_POLICY; OMP_STACKSIZE: affinity/thread_start.c)"},
    {"GOMP_", "libgomp (GOMP_CPU_AFFINITY: the binding, src/stream/plan.c; GOMP_SPINCOUNT; "
              "GOMP_STACKSIZE: affinity/thread_start.c)"},
    {"KMP_", "libomp, the OpenMP runtime of clang builds (KMP_AFFINITY, KMP_HW_SUBSET, "
             "KMP_BLOCKTIME)"},
    {"HUGETLB_", "libhugetlbfs (HUGETLB_MORECORE: the pages backend, src/sys/sysinfo.c and "
                 "src/stream/plan.c; HUGETLB_PATH, HUGETLB_DEFAULT_PAGE_SIZE, HUGETLB_SHM, "
                 "HUGETLB_ELFMAP, HUGETLB_NO_PREFAULT, HUGETLB_NO_RESERVE, ...)"},
    {"GLIBC_TUNABLES", "glibc (glibc.malloc.hugetlb: src/sys/sysinfo.c; glibc.cpu.hwcaps)"},
    {"HWLOC_", "hwloc (HWLOC_XMLFILE, HWLOC_SYNTHETIC, HWLOC_THISSYSTEM: the topology, "
               "affinity/topology.c; HWLOC_FSROOT, HWLOC_COMPONENTS)"},
    {"MEMBENCH_ISA", "membench: the kernels' ISA, like --isa (src/cli/cli.c)"},
};
const size_t run_variables_count = sizeof(run_variables) / sizeof(run_variables[0]);

/* Read by membench, but each rank's own: they do not change what is measured. */
const struct run_variable local_variables[] = {
    {"TMPDIR", "the directory of --faults' file without --faults-dir (src/probes/run_probes.c)"},
    {"OMPI_", "the launcher (Open MPI): src/cluster/cluster_mpi.c finds a cluster run by it"},
    {"PMI_", "the launcher (Slurm, MPICH): likewise"},
    {"PMIX_", "the launcher (PMIx): likewise"},
    {"MPI_LOCALNRANKS", "the launcher (MPICH's Hydra): likewise"},
    {"MEMBENCH_TEST_", "membench-hooked's test hooks (tests/hooks/), per rank by design"},
};
const size_t local_variables_count = sizeof(local_variables) / sizeof(local_variables[0]);

bool run_variable_compared(const char *name)
{
    size_t len = strcspn(name, "=");
    for (size_t i = 0; i < run_variables_count; i++) {
        const char *v = run_variables[i].name;
        size_t n = strlen(v);
        bool prefix = n > 0 && v[n - 1] == '_';
        if (prefix ? len > n && strncmp(name, v, n) == 0 : len == n && strncmp(name, v, n) == 0)
            return true;
    }
    return false;
}

/* Orders "NAME=value" entries by NAME. */
static int by_name(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t n = strcspn(x, "="), m = strcspn(y, "=");
    int c = memcmp(x, y, n < m ? n : m);
    return c ? c : (n > m) - (n < m);
}

static void put_escaped(FILE *f, const char *entry)
{
    for (const char *p = entry; *p; p++) {
        if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\\')
            fputs("\\\\", f);
        else
            fputc(*p, f);
    }
    fputc('\n', f);
}

char *environment_describe(char *const *env)
{
    size_t n = 0, have = 0;
    for (char *const *e = env; e && *e; e++)
        n++;
    const char **set = calloc(n ? n : 1, sizeof(*set));
    if (!set) return NULL;
    for (char *const *e = env; e && *e; e++) {
        if (!strchr(*e, '=') || !run_variable_compared(*e)) continue;
        bool seen = false; /* getenv() reads the first of two entries with one name */
        for (size_t i = 0; i < have && !seen; i++)
            seen = by_name(&set[i], e) == 0;
        if (!seen) set[have++] = *e;
    }
    qsort(set, have, sizeof(*set), by_name);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        free(set);
        return NULL;
    }
    for (size_t i = 0; i < have; i++)
        put_escaped(f, set[i]);
    free(set);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* One side of a difference: "NAME=value" (the line) or "NAME unset". */
static void side(const char *line, size_t line_len, const char *name, size_t name_len, char *out,
                 size_t out_len)
{
    if (line)
        snprintf(out, out_len, "%.*s", (int)(line_len < 600 ? line_len : 600), line);
    else
        snprintf(out, out_len, "%.*s unset", (int)(name_len < 200 ? name_len : 200), name);
}

int environment_difference(const char *mine, const char *theirs, char *my_side, size_t my_len,
                           char *their_side, size_t their_len)
{
    while (*mine || *theirs) {
        size_t a = strcspn(mine, "\n"), b = strcspn(theirs, "\n");
        size_t an = strcspn(mine, "=\n"), bn = strcspn(theirs, "=\n");
        int order = !*mine ? 1 : !*theirs ? -1 : by_name(&mine, &theirs);
        if (order == 0 && a == b && memcmp(mine, theirs, a) == 0) {
            mine += a + (mine[a] == '\n');
            theirs += b + (theirs[b] == '\n');
            continue;
        }
        /* the first name in order: set on one side only, or set to two values */
        const char *name = order <= 0 ? mine : theirs;
        size_t name_len = order <= 0 ? an : bn;
        side(order <= 0 ? mine : NULL, a, name, name_len, my_side, my_len);
        side(order >= 0 ? theirs : NULL, b, name, name_len, their_side, their_len);
        return 1;
    }
    return 0;
}

static void profile_threads(const struct rank_profile *p, char *out, size_t len)
{
    snprintf(out, len, "%u thread%s from %s", p->threads, p->threads == 1 ? "" : "s",
             p->threads_from);
}

static void profile_topology(const struct rank_profile *p, char *out, size_t len)
{
    snprintf(out, len, "topology %s%s", p->topology, p->this_system ? "" : " (not this machine)");
}

int profile_difference(const struct rank_profile *mine, const struct rank_profile *theirs,
                       char *my_side, size_t my_len, char *their_side, size_t their_len)
{
    if (strcmp(mine->topology, theirs->topology) != 0 || mine->this_system != theirs->this_system) {
        profile_topology(mine, my_side, my_len);
        profile_topology(theirs, their_side, their_len);
        return 1;
    }
    bool from_cores = strcmp(mine->threads_from, "physical cores") == 0;
    if (strcmp(mine->threads_from, theirs->threads_from) != 0 ||
        (!from_cores && mine->threads != theirs->threads)) {
        profile_threads(mine, my_side, my_len);
        profile_threads(theirs, their_side, their_len);
        return 1;
    }
    return 0;
}

void rank_profile_read(const struct options *o, struct rank_profile *p)
{
    memset(p, 0, sizeof(*p));
    struct topology topo;
    char why[400];
    if (topology_load(&topo, why, sizeof(why)) != 0) {
        /* the node's own run says why; the description's variables are compared */
        snprintf(p->threads_from, sizeof(p->threads_from), "no topology");
        snprintf(p->topology, sizeof(p->topology), "not loaded");
        return;
    }
    p->cores = topo.facts.cores;
    p->this_system = topo.facts.this_system;
    snprintf(p->topology, sizeof(p->topology), "%s", topo.facts.source);
    const char *from = "physical cores", *env = getenv("OMP_NUM_THREADS");
    if (o->shared.n_threads > 0) {
        p->threads = o->shared.n_threads == 1 ? o->shared.threads[0] : 0; /* a sweep is refused */
        from = "--threads";
    } else if (env && *env) { /* default_threads would also note a capped core count */
        if (default_threads(&topo.facts, &p->threads, &from, why, sizeof(why)) != 0)
            p->threads = 0; /* the node's own run says why */
        from = "OMP_NUM_THREADS";
    } else {
        p->threads = p->cores > 0 ? (unsigned)p->cores : 1;
    }
    snprintf(p->threads_from, sizeof(p->threads_from), "%s", from);
    topology_unload(&topo);
}
