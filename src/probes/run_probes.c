/* Orchestration of the probes: defaults, checks before anything runs, binding, and the calls
 * into kernels/<probe>_probe.c, which measure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "affinity/bind.h"
#include "src/base/text_list.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/sys/memory_budget.h"
#include "src/probes/probes.h"
#include "src/sys/sysinfo.h"
#include "src/base/test_hooks.h"

static const unsigned default_pages[] = {1, 2, 8, 32, 33, 34, 64, 512};

/* The directory of the major-fault file: --faults-dir, else $TMPDIR, else /var/tmp (meant for
 * files that outlive a boot, so on disk where /tmp may be tmpfs). */
static const char *faults_dir(const struct probe_options *o)
{
    if (o->faults_dir) return o->faults_dir;
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/var/tmp";
}

/* Where the fault probe reads the THP mode and the hugetlb pools: /sys, or in membench-hooked
 * a fake sysfs root (ROOT/kernel/mm/...), so that the tests can show THP 'never' and a missing
 * 2 MB pool on any machine. /proc/meminfo stays real. */
static const struct mem_env *fault_env(void)
{
    static struct mem_env fake;
    if (!test_hooks || !test_hooks->sys_root) return &mem_env_system;
    fake.sys_root = test_hooks->sys_root;
    fake.meminfo = mem_env_system.meminfo;
    return &fake;
}

/* Every check of a probe for a signal or its time limit is the probe's named point
 * ("faults probe"): in membench-hooked a test stops the process there. */
static int faults_stop(void)
{
    test_hook_at("faults probe");
    return interrupt_should_stop();
}

static int shootdown_stop(void)
{
    test_hook_at("shootdown probe");
    return interrupt_should_stop();
}

static int timer_stop(void)
{
    test_hook_at("timer probe");
    return interrupt_should_stop();
}

static void fault_config(const struct probe_options *o, struct fault_config *cfg)
{
    cfg->bytes = o->faults_bytes ? o->faults_bytes : FAULTS_DEFAULT_BYTES;
    cfg->mask = o->faults_backings ? o->faults_backings : FAULT_MASK_ALL;
    cfg->dir = faults_dir(o);
    cfg->reps = FAULTS_REPS;
    cfg->env = fault_env();
    cfg->judge_as = test_hooks ? test_hooks->judge_as : NULL;
    cfg->stop = faults_stop;
}

/* PUs this process may use (allowed by the OS and by its binding: taskset, cgroups, mpirun),
 * one per core first (compact order), OS indices. */
static int shootdown_pus(const struct topology *topo, int **pus_out, char *why, size_t why_len)
{
    int n = hwloc_bitmap_weight(topo->usable);
    if (n <= 0) n = 1;
    int *pus = malloc((size_t)n * sizeof(int));
    struct bind_spec compact = {.kind = BIND_COMPACT, .text = "compact"};
    if (!pus || placement_plan(topo, &compact, n, pus, why, why_len) != 0) {
        free(pus);
        if (!pus) snprintf(why, why_len, "out of memory");
        return -1;
    }
    *pus_out = pus;
    return n;
}

static int check_faults(const struct probe_options *o, const struct sys_info *sys)
{
    struct fault_config cfg;
    fault_config(o, &cfg);
    struct stat st;
    if (o->faults_dir && (stat(cfg.dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        log_error("--faults-dir %s: %s; give an existing directory on a disk-backed filesystem",
                  cfg.dir, stat(cfg.dir, &st) != 0 ? strerror(errno) : "not a directory");
        return EXIT_USAGE;
    }
    struct memory_budget budget;
    memory_budget_of(sys, &budget);
    bool anonymous = cfg.mask & (1u << FAULT_4K | 1u << FAULT_THP); /* 2m: from its pool */
    if (anonymous &&
        memory_budget_check(&budget, cfg.bytes, "the faults probe needs", " (--faults-size)",
                            "choose a smaller --faults-size") != EXIT_OK)
        return EXIT_RESOURCE;
    if (!o->faults_backings) return EXIT_OK; /* defaults: what cannot run is skipped */
    for (int b = 0; b < FAULT_BACKING_COUNT; b++) {
        if (!(cfg.mask & (1u << b))) continue;
        char why[600];
        if (fault_backing_check((enum fault_backing)b, &cfg, why, sizeof(why)) != 0) {
            log_error("--faults-backing %s: %s", fault_backing_name((enum fault_backing)b), why);
            return EXIT_RESOURCE;
        }
    }
    return EXIT_OK;
}

/* The largest region the shootdown probe maps: the arena of its most pages per unmap. */
static uint64_t shootdown_bytes(const struct probe_options *o)
{
    unsigned most = 0;
    int n = o->n_pages ? o->n_pages : (int)(sizeof(default_pages) / sizeof(default_pages[0]));
    for (int i = 0; i < n; i++) {
        unsigned p = o->n_pages ? o->pages[i] : default_pages[i];
        most = p > most ? p : most;
    }
    return shootdown_arena_bytes(most);
}

static int check_shootdown(const struct probe_options *o, const struct topology *topo,
                           const struct sys_info *sys)
{
    if (!topo->facts.this_system) {
        log_error("--shootdown measures this machine, but the topology is %s; unset "
                  "HWLOC_SYNTHETIC / HWLOC_XMLFILE",
                  topo->facts.source);
        return EXIT_USAGE;
    }
    struct memory_budget budget;
    memory_budget_of(sys, &budget);
    if (memory_budget_check(&budget, shootdown_bytes(o), "the shootdown probe needs",
                            " (its most --shootdown-pages)",
                            "choose fewer --shootdown-pages") != EXIT_OK)
        return EXIT_RESOURCE;
    if (o->n_remote == 0) return EXIT_OK; /* defaults fit the machine */
    int *pus = NULL;
    char why[300];
    int n = shootdown_pus(topo, &pus, why, sizeof(why));
    free(pus);
    if (n < 0) {
        log_error("--shootdown: %s", why);
        return EXIT_RESOURCE;
    }
    for (int i = 0; i < o->n_remote; i++) {
        unsigned k = o->remote[i];
        if ((int)k <= n - 1) continue;
        char remedy[80];
        if (n > 1)
            snprintf(remedy, sizeof(remedy), "choose at most %d", n - 1);
        else
            snprintf(remedy, sizeof(remedy), "let it use more CPUs (taskset -c, cgroup cpuset)");
        log_error("--shootdown-remote %u: needs %u usable CPUs (1 measuring + %u remote) but "
                  "this process may use %d (%s %s); %s",
                  k, k + 1, k, n, n == 1 ? "CPU" : "CPUs", topo->facts.cpus, remedy);
        return EXIT_RESOURCE;
    }
    return EXIT_OK;
}

int probes_check(const struct probe_options *o, const struct topology *topo,
                 const struct sys_info *sys)
{
    int rc = EXIT_OK;
    if (o->mask & PROBE_BIT(PROBE_FAULTS)) rc = check_faults(o, sys);
    if (rc == EXIT_OK && (o->mask & PROBE_BIT(PROBE_SHOOTDOWN))) rc = check_shootdown(o, topo, sys);
    return rc;
}

static int bind_pu(void *ctx, int pu)
{
    bool bound = false;
    int cpu = bind_this_thread(ctx, BIND_LIST, pu, &bound);
    return bound && cpu == pu ? 0 : -1;
}

static int cmp_unsigned(const void *x, const void *y)
{
    unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
    return (a > b) - (a < b);
}

static int run_shootdown(const struct probe_options *o, const struct topology *topo,
                         struct probe_results *out)
{
    int *pus = NULL;
    char why[300];
    int n = shootdown_pus(topo, &pus, why, sizeof(why));
    if (n < 0) {
        log_error("--shootdown: %s", why);
        return EXIT_RESOURCE;
    }
    /* sibling counts: as given plus the 0 baseline, or 0, 1, 2, 4, ... up to the CPUs there
     * are (at least up to 2, so that a small machine shows what it cannot measure) */
    unsigned counts[SHOOTDOWN_MAX_COUNTS];
    int n_counts = 0;
    counts[n_counts++] = 0;
    if (o->n_remote) {
        for (int i = 0; i < o->n_remote && n_counts < SHOOTDOWN_MAX_COUNTS; i++)
            if (o->remote[i] != 0) counts[n_counts++] = o->remote[i];
    } else {
        out->remote_default = 1;
        unsigned top = n - 1 > 2 ? (unsigned)(n - 1) : 2;
        for (unsigned k = 1; k <= top && n_counts < SHOOTDOWN_MAX_COUNTS - 1; k *= 2)
            counts[n_counts++] = k;
        if (counts[n_counts - 1] != top) counts[n_counts++] = top;
    }
    qsort(counts, (size_t)n_counts, sizeof(counts[0]), cmp_unsigned);

    struct shootdown_config cfg = {
        .measure_pu = pus[0],
        .remote_pus = pus + 1,
        .n_remote_pus = n - 1,
        .remote_counts = counts,
        .n_remote_counts = n_counts,
        .pages = o->n_pages ? o->pages : default_pages,
        .n_pages =
            o->n_pages ? o->n_pages : (int)(sizeof(default_pages) / sizeof(default_pages[0])),
        .seconds_per_point = SHOOTDOWN_SECONDS_PER_POINT,
        .bind = bind_pu,
        .bind_ctx = (void *)topo,
        .interrupts_path = "/proc/interrupts",
        .stop = shootdown_stop,
    };
    int rc = shootdown_probe_run(&cfg, &out->shootdown, why, sizeof(why));
    bool unbound;
    bind_this_thread(topo, BIND_NONE, -1, &unbound); /* the main thread may run anywhere again */
    free(pus);
    if (rc != 0) {
        log_error("--shootdown: %s", why);
        return EXIT_RESOURCE;
    }
    return EXIT_OK;
}

/* A probe ended: whether its time limit cut it (each probe gets the limit, as each STREAM run
 * does). */
static void probe_ends(struct probe_results *out)
{
    if (interrupt_measurement_ends()) out->cut_by_time_limit = true;
}

int probes_run(const struct probe_options *o, bool dry_run, double time_limit_s,
               const struct topology *topo, struct probe_results *out)
{
    memset(out, 0, sizeof(*out));
    out->requested = o->mask;
    if (dry_run) return EXIT_OK;
    if ((o->mask & PROBE_BIT(PROBE_TIMER)) && !interrupt_signal()) {
        interrupt_measurement_begins(time_limit_s);
        if (timer_probe_run(&out->timer, timer_stop) == 0)
            out->ran |= PROBE_BIT(PROBE_TIMER);
        else /* a half-measured clock table is not reported */
            out->stopped |= PROBE_BIT(PROBE_TIMER);
        probe_ends(out);
    }
    if ((o->mask & PROBE_BIT(PROBE_FAULTS)) && !interrupt_signal()) {
        struct fault_config cfg;
        fault_config(o, &cfg);
        char why[300];
        interrupt_measurement_begins(time_limit_s);
        int rc = fault_probe_run(&cfg, &out->faults, why, sizeof(why));
        probe_ends(out);
        if (rc != 0) {
            log_error("--faults: %s", why);
            return EXIT_RESOURCE;
        }
        out->ran |= PROBE_BIT(PROBE_FAULTS);
        if (out->faults.stopped) out->stopped |= PROBE_BIT(PROBE_FAULTS);
    }
    if ((o->mask & PROBE_BIT(PROBE_SHOOTDOWN)) && !interrupt_signal()) {
        interrupt_measurement_begins(time_limit_s);
        int rc = run_shootdown(o, topo, out);
        probe_ends(out);
        if (rc != EXIT_OK) return rc;
        out->ran |= PROBE_BIT(PROBE_SHOOTDOWN);
        if (out->shootdown.stopped) out->stopped |= PROBE_BIT(PROBE_SHOOTDOWN);
    }
    return EXIT_OK;
}

static int faults_measured(const struct fault_report *f)
{
    int measured = 0;
    for (int i = 0; i < f->n_runs; i++)
        measured += !f->runs[i].skipped[0];
    return measured;
}

bool probes_measured(const struct probe_results *r)
{
    return r && ((r->ran & PROBE_BIT(PROBE_TIMER)) ||
                 ((r->ran & PROBE_BIT(PROBE_FAULTS)) && faults_measured(&r->faults) > 0) ||
                 ((r->ran & PROBE_BIT(PROBE_SHOOTDOWN)) && r->shootdown.n_runs > 0));
}

/* One probe's part of probes_kept(), in the order they run. */
static void probe_kept(const struct probe_results *r, enum probe_id p, char *buf, size_t len)
{
    static const char *const names[PROBE_COUNT] = {"faults", "shootdown", "timer"};
    bool ran = r->ran & PROBE_BIT(p), stopped = r->stopped & PROBE_BIT(p);
    int measured = faults_measured(&r->faults);
    if (p == PROBE_TIMER && stopped)
        snprintf(buf, len,
                 "the timer probe stopped before it finished; its clocks are not reported");
    else if (p == PROBE_FAULTS && stopped)
        snprintf(buf, len, "the faults probe stopped %s%s; reporting the %d backing%s measured",
                 r->faults.stopped_in[0] ? "in backing " : "between backings", r->faults.stopped_in,
                 measured, measured == 1 ? "" : "s");
    else if (p == PROBE_SHOOTDOWN && stopped)
        snprintf(buf, len, "the shootdown probe stopped after %d of %d points; reporting those",
                 r->shootdown.n_runs, r->shootdown.n_planned);
    else
        snprintf(buf, len, "the %s probe %s", names[p], ran ? "finished" : "did not start");
}

int probes_kept(const struct probe_results *r, char *buf, size_t len)
{
    static const enum probe_id order[] = {PROBE_TIMER, PROBE_FAULTS, PROBE_SHOOTDOWN};
    if (!r || !(r->ran | r->stopped) || len == 0) return 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        if (!(r->requested & PROBE_BIT(order[i]))) continue;
        char one[200];
        probe_kept(r, order[i], one, sizeof(one));
        text_list_append(buf, len, one);
    }
    return 1;
}

int probes_report_mismatches(const struct probe_results *r)
{
    int bad = 0;
    if (!(r->ran & PROBE_BIT(PROBE_FAULTS))) return 0;
    for (int i = 0; i < r->faults.n_runs; i++) {
        const struct fault_run *f = &r->faults.runs[i];
        if (f->skipped[0] || !f->smaps.mismatch[0]) continue;
        log_error("--faults %s: %s; its fault counts are not for the pages asked for",
                  fault_backing_name(f->backing), f->smaps.mismatch);
        bad++;
    }
    return bad;
}

void probes_free(struct probe_results *r)
{
    if (r) shootdown_report_free(&r->shootdown);
}
