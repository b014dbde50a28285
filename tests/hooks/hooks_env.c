/* membench-hooked: membench's own main() with the test hooks (src/base/test_hooks.h) filled from
 * the MEMBENCH_TEST_* variables before it runs. Never installed; the CLI tests run it.
 *   MEMBENCH_TEST_CORRUPT=1           flip a bit of one result after the kernels
 *   MEMBENCH_TEST_BROKEN_KERNEL=NAME  run a deliberately wrong NAME kernel (broken_kernel.c)
 *   MEMBENCH_TEST_SLOW_STORES=KIND    kernels with KIND (normal or nt) stores take 4x their time
 *   MEMBENCH_TEST_VERIFY_AS=BACKEND   judge the pages as if --pages BACKEND was asked for
 *   MEMBENCH_TEST_SYS_ROOT=ROOT       the fault probe reads ROOT/kernel/mm/... for /sys, and so
 *                                     do the page sizes (src/base/page_sizes.h: the hugetlb
 *                                     sizes offered, hpage_pmd_size), and the run's conditions
 *                                     (ROOT/devices/system/{cpu,edac}/...: cpufreq, boost, EDAC)
 *   MEMBENCH_TEST_PROC_ROOT=ROOT      the run's conditions read ROOT/stat, ROOT/self/...,
 *                                     ROOT/vmstat and ROOT/sys/kernel/numa_balancing for /proc
 *   MEMBENCH_TEST_PAGE_SIZE=BYTES     the base page counts as BYTES (4096, 16384 or 65536): what
 *                                     membench says and strides by; the kernel still maps its
 *                                     own pages, which the smaps checks report as they are
 *   MEMBENCH_TEST_TOPOLOGY_IS_MACHINE=1  a HWLOC_XMLFILE / HWLOC_SYNTHETIC topology counts as
 *                                     this machine: --acceptance runs on it (not refused)
 *   MEMBENCH_TEST_RATE_SCALE=RANK:kernel=factor[,kernel=factor][;RANK:...]
 *                                     the world rank RANK (OMPI_COMM_WORLD_RANK, PMI_RANK or
 *                                     PMIX_RANK; 0 without them) reports that kernel's rates
 *                                     multiplied by factor (its times divided): a slow or
 *                                     too-fast node on demand
 *   MEMBENCH_TEST_RATES=RANK:kernel=MBps[,...][;RANK:...]   ("*" = every rank)
 *                                     that rank reports these best rates instead of the
 *                                     measured ones (times follow), before RATE_SCALE:
 *                                     cluster statistics without the noise of shared CPUs
 *   MEMBENCH_TEST_RUN_SCALE=F1,F2,...  then the Nth STREAM run of the process (each of
 *                                     --reference-runs K, each of a sweep) has every kernel's
 *                                     rates times FN (runs past the list: as they are): runs
 *                                     that differ, e.g. a reference's noisy runs, on demand
 *   MEMBENCH_TEST_SLOW_REPETITION=R[:FACTOR]
 *                                     a steady node with one noisy repetition: every timed
 *                                     repetition of every kernel lasts 50 ms (sleeping what
 *                                     the kernel left; longer kernels are not padded), and
 *                                     repetition R (from 1, the warm-up, which no rate uses;
 *                                     give 2 or more, or 0 for none) FACTOR (default 4) times
 *                                     that (or its own time): the repetition spread on demand
 *   MEMBENCH_TEST_HOSTNAMES=a,b,c     world rank i is on host the i-th name (cluster runs)
 *   MEMBENCH_TEST_GROUP_BY_HOSTNAME=1 ranks are grouped into nodes by gethostname(), not by
 *                                     shared memory (each rank in its own UTS namespace)
 *   MEMBENCH_TEST_STOP_RANK=I         world rank I (a leader) stops itself instead of reporting
 *   MEMBENCH_TEST_CLUSTER_GRACE=S     the cluster deadline's grace is S seconds, not 30
 *   MEMBENCH_TEST_MOVE_PAGES=ENOSYS   move_pages(2) fails with that errno (ENOSYS or EPERM)
 *   MEMBENCH_TEST_PAGES_NODE=N        move_pages(2) reports every present page on OS node N
 *   MEMBENCH_TEST_MEM_AVAILABLE=BYTES /proc/meminfo's MemAvailable counts as BYTES (a small
 *                                     machine's budget, without being one)
 *   MEMBENCH_TEST_DMI_ENTRIES=DIR     the DIMM inventory reads the SMBIOS records under DIR
 *                                     (NN-M/raw) instead of /sys/firmware/dmi/entries
 *   MEMBENCH_TEST_CPUINFO=FILE        the CPU whose channel count applies is FILE's first
 *                                     processor, not /proc/cpuinfo's
 *   MEMBENCH_TEST_ANNOUNCE=1          write "membench-test: at POINT" on stderr at each named
 *                                     point (test_hook_at(): "run N", "reference run N",
 *                                     "reference pause N", "first touch", "faults probe",
 *                                     "tlb point N")
 *   MEMBENCH_TEST_PAUSE_AT=POINT      at POINT, write "membench-test: paused at POINT" and stop
 *                                     (SIGSTOP) until SIGCONT, the first time it is reached
 *   MEMBENCH_TEST_TIME_LIMIT_AT=POINT at POINT, the --time-limit of the probe, TLB probe or
 *                                     latency measurement under way counts as passed (a
 *                                     STREAM run's is its own) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hugepages/backend.h"
#include "src/base/page_sizes.h"
#include "src/base/test_hooks.h"
#include "src/stream/stream_hooks.h"
#include "tests/hooks/broken_kernel.h"
#include "tests/hooks/slow_stores.h"

static struct stream_hooks stream;
static struct test_hooks hooks = {.stream = &stream};

static const char *variable(const char *name)
{
    const char *value = getenv(name);
    return value && *value ? value : NULL;
}

static void usage_error(const char *name, const char *value, const char *fix)
{
    fprintf(stderr, "membench: %s='%.40s' is not valid; %s\n", name, value, fix);
    exit(2);
}

/* The world rank under mpirun/srun (the launcher's variable), or -1 outside one. */
static int world_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = variable(vars[i]);
        if (v) return atoi(v);
    }
    return -1;
}

static void cluster_hooks(void)
{
    static char name[128];
    const char *value;
    int rank = world_rank();
    if ((value = variable("MEMBENCH_TEST_HOSTNAMES")) && rank >= 0) {
        const char *p = value;
        for (int i = 0; i < rank && p; i++) {
            p = strchr(p, ',');
            if (p) p++;
        }
        size_t len = p ? strcspn(p, ",") : 0;
        if (len == 0 || len >= sizeof(name))
            usage_error("MEMBENCH_TEST_HOSTNAMES", value,
                        "give one non-empty name (under 128 bytes) per rank, e.g. a,b,c");
        memcpy(name, p, len);
        hooks.hostname = name;
    }
    if ((value = variable("MEMBENCH_TEST_GROUP_BY_HOSTNAME"))) {
        if (strcmp(value, "1") != 0 && strcmp(value, "0") != 0)
            usage_error("MEMBENCH_TEST_GROUP_BY_HOSTNAME", value, "give 1 (or 0)");
        hooks.group_by_hostname = value[0] == '1';
    }
    if ((value = variable("MEMBENCH_TEST_STOP_RANK")))
        hooks.stop_before_report = rank >= 0 && atoi(value) == rank;
    if ((value = variable("MEMBENCH_TEST_CLUSTER_GRACE"))) {
        char *end;
        hooks.cluster_grace_s = strtod(value, &end);
        if (end == value || *end || !(hooks.cluster_grace_s > 0))
            usage_error("MEMBENCH_TEST_CLUSTER_GRACE", value, "give seconds, e.g. 5");
    }
}

static void locality_hooks(void)
{
    const char *value;
    if ((value = variable("MEMBENCH_TEST_MOVE_PAGES"))) {
        if (strcmp(value, "ENOSYS") == 0)
            hooks.move_pages_errno = ENOSYS;
        else if (strcmp(value, "EPERM") == 0)
            hooks.move_pages_errno = EPERM;
        else
            usage_error("MEMBENCH_TEST_MOVE_PAGES", value, "give ENOSYS or EPERM");
    }
    if ((value = variable("MEMBENCH_TEST_PAGES_NODE"))) {
        char *end;
        long node = strtol(value, &end, 10);
        if (end == value || *end || node < 0 || node > 1023)
            usage_error("MEMBENCH_TEST_PAGES_NODE", value, "give an OS NUMA node number, e.g. 1");
        hooks.pages_on_node = (int)node + 1;
    }
}

/* "1:scale=0.5,triad=2;3:copy=1.6" ("*:" for every rank): this rank's numbers into into[]. */
static void per_rank_kernel_numbers(const char *name, const char *value, double *into)
{
    static const char *const fix = "write RANK:kernel=number[,kernel=number][;RANK:...]";
    long me = world_rank() < 0 ? 0 : world_rank();
    const char *p = value;
    while (*p) {
        char *end;
        long rank = *p == '*' ? me : strtol(p, &end, 10);
        if (*p == '*') end = (char *)p + 1;
        if (end == p || *end != ':') usage_error(name, value, fix);
        p = end + 1;
        for (;;) {
            size_t len = strcspn(p, "=");
            int k = KERNEL_COUNT;
            for (int i = 0; i < KERNEL_COUNT; i++)
                if (strlen(kernel_table[i].name) == len &&
                    !strncasecmp(p, kernel_table[i].name, len))
                    k = i;
            if (k == KERNEL_COUNT || p[len] != '=') usage_error(name, value, fix);
            double f = strtod(p + len + 1, &end);
            if (end == p + len + 1 || !(f > 0) || (*end && *end != ',' && *end != ';'))
                usage_error(name, value, fix);
            if (rank == me) into[k] = f;
            p = end;
            if (*p != ',') break;
            p++;
        }
        if (*p == ';') p++;
    }
}

#define RUN_SCALE_MAX 32
static double run_scales[RUN_SCALE_MAX];
static unsigned n_run_scales, runs_scaled;

static double next_run_scale(void)
{
    unsigned n = runs_scaled++;
    return n < n_run_scales ? run_scales[n] : 1.0;
}

/* "1,0.55,1": the Nth STREAM run's rates times the Nth factor. */
static void run_scale_hook(const char *value)
{
    static const char *const fix = "give factors above 0 for the runs in order, e.g. 1,0.55,1";
    const char *p = value;
    for (;;) {
        char *end;
        double f = strtod(p, &end);
        if (n_run_scales == RUN_SCALE_MAX || end == p || !(f > 0 && f <= 1000) ||
            (*end && *end != ','))
            usage_error("MEMBENCH_TEST_RUN_SCALE", value, fix);
        run_scales[n_run_scales++] = f;
        if (!*end) break;
        p = end + 1;
    }
    stream.run_scale = next_run_scale;
}

/* "R[:FACTOR]": every timed repetition padded to 50 ms, repetition R FACTOR times that. */
static void slow_repetition_hook(const char *value)
{
    static const char *const fix =
        "give R[:FACTOR], R the repetition from 2 (1 is the warm-up; 0 for none) and FACTOR "
        "from 1 to 100, e.g. 3:4";
    char *end;
    long rep = strtol(value, &end, 10);
    double factor = 4.0;
    if (end == value || rep < 0 || rep == 1 || rep > 1000000)
        usage_error("MEMBENCH_TEST_SLOW_REPETITION", value, fix);
    if (*end == ':') {
        const char *f = end + 1;
        factor = strtod(f, &end);
        if (end == f || !(factor >= 1.0 && factor <= 100.0))
            usage_error("MEMBENCH_TEST_SLOW_REPETITION", value, fix);
    }
    if (*end) usage_error("MEMBENCH_TEST_SLOW_REPETITION", value, fix);
    stream.repetition_pad_s = 0.05;
    stream.slow_repetition = (unsigned)rep;
    stream.slow_factor = factor;
}

static void page_size_hook(const char *sys_root)
{
    const char *value = variable("MEMBENCH_TEST_PAGE_SIZE");
    uint64_t base = 0;
    if (value) {
        if (strcmp(value, "4096") == 0 || strcmp(value, "16384") == 0 ||
            strcmp(value, "65536") == 0)
            base = strtoull(value, NULL, 10);
        else
            usage_error("MEMBENCH_TEST_PAGE_SIZE", value, "give 4096, 16384 or 65536");
    }
    if (base || sys_root) page_sizes_inject(base, sys_root, NULL);
}

__attribute__((constructor)) static void install_test_hooks(void)
{
    const char *value;
    hooks.corrupt_result = variable("MEMBENCH_TEST_CORRUPT") != NULL;
    if ((value = variable("MEMBENCH_TEST_VERIFY_AS"))) {
        hooks.judge_as = mem_backend_find(value);
        if (!hooks.judge_as)
            usage_error("MEMBENCH_TEST_VERIFY_AS", value, "name a --pages backend such as 2m");
    }
    hooks.sys_root = variable("MEMBENCH_TEST_SYS_ROOT");
    hooks.proc_root = variable("MEMBENCH_TEST_PROC_ROOT");
    page_size_hook(hooks.sys_root);
    if ((value = variable("MEMBENCH_TEST_TOPOLOGY_IS_MACHINE"))) {
        if (strcmp(value, "1") != 0 && strcmp(value, "0") != 0)
            usage_error("MEMBENCH_TEST_TOPOLOGY_IS_MACHINE", value, "give 1 (or 0)");
        hooks.topology_is_machine = value[0] == '1';
    }
    if ((value = variable("MEMBENCH_TEST_BROKEN_KERNEL"))) {
        if (broken_kernel_select(value) != 0)
            usage_error("MEMBENCH_TEST_BROKEN_KERNEL", value, "name a kernel such as triad");
        stream.kernel = broken_kernel_substitute;
    }
    if ((value = variable("MEMBENCH_TEST_SLOW_STORES"))) {
        if (slow_stores_select(value) != 0)
            usage_error("MEMBENCH_TEST_SLOW_STORES", value, "give normal or nt");
        stream.store_variant = slow_stores_substitute;
    }
    if ((value = variable("MEMBENCH_TEST_RATES")))
        per_rank_kernel_numbers("MEMBENCH_TEST_RATES", value, stream.rate_fixed);
    if ((value = variable("MEMBENCH_TEST_RATE_SCALE")))
        per_rank_kernel_numbers("MEMBENCH_TEST_RATE_SCALE", value, stream.rate_scale);
    if ((value = variable("MEMBENCH_TEST_RUN_SCALE"))) run_scale_hook(value);
    if ((value = variable("MEMBENCH_TEST_SLOW_REPETITION"))) slow_repetition_hook(value);
    if ((value = variable("MEMBENCH_TEST_ANNOUNCE"))) {
        if (strcmp(value, "1") != 0 && strcmp(value, "0") != 0)
            usage_error("MEMBENCH_TEST_ANNOUNCE", value, "give 1 (or 0)");
        hooks.announce = value[0] == '1';
    }
    if ((value = variable("MEMBENCH_TEST_MEM_AVAILABLE"))) {
        char *end;
        unsigned long long bytes = strtoull(value, &end, 10);
        if (end == value || *end || bytes == 0)
            usage_error("MEMBENCH_TEST_MEM_AVAILABLE", value, "give bytes, e.g. 2147483648");
        hooks.mem_available_bytes = bytes;
    }
    hooks.dmi_entries = variable("MEMBENCH_TEST_DMI_ENTRIES");
    hooks.cpuinfo = variable("MEMBENCH_TEST_CPUINFO");
    hooks.pause_at = variable("MEMBENCH_TEST_PAUSE_AT");
    hooks.time_limit_at = variable("MEMBENCH_TEST_TIME_LIMIT_AT");
    cluster_hooks();
    locality_hooks();
    test_hooks = &hooks;
}
