#include "src/probes/shootdown_probe.h"

#include "kernels/stop_check.h"
#include "src/base/clock.h"
#include "src/base/page_sizes.h"
#include "src/base/stats.h"
#include "src/sys/hypervisor.h"
#include "src/sys/proc_interrupts.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define WARMUP_OPS 3
#define MIN_OPS 30
#define MAX_OPS 4000
#define SHOOTDOWN_MAX_PAGE_POINTS 256

static void read_hypervisor(struct shootdown_report *out)
{
    struct hypervisor_info hv;
    hypervisor_read(&hv);
    snprintf(out->hypervisor, sizeof(out->hypervisor), "%s", hv.signature);
    out->pv_tlb_flush = hv.pv_tlb_flush;
}

static int read_flush_ceiling(void)
{
    FILE *f = fopen("/sys/kernel/debug/x86/tlb_single_page_flush_ceiling", "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

/* ---- sibling threads ---- */

struct shootdown_team {
    atomic_int stop;
    atomic_int ready;
    atomic_int all_bound;
    const volatile char *anchor; /* a page of this mm that the siblings keep reading */
    shootdown_bind_fn bind;
    void *bind_ctx;
};

struct sibling {
    struct shootdown_team *team;
    int pu;
    pthread_t thread;
};

static void *sibling_main(void *arg)
{
    struct sibling *s = arg;
    struct shootdown_team *t = s->team;
    int ok = t->bind(t->bind_ctx, s->pu) == 0 && sched_getcpu() == s->pu;
    if (!ok) atomic_store(&t->all_bound, 0);
    atomic_fetch_add(&t->ready, 1);
    shootdown_spin(t->anchor, &t->stop);
    return NULL;
}

static int start_siblings(struct shootdown_team *t, struct sibling *sib, const int *pus, unsigned n)
{
    atomic_store(&t->stop, 0);
    atomic_store(&t->ready, 0);
    atomic_store(&t->all_bound, 1);
    for (unsigned i = 0; i < n; i++) {
        sib[i].team = t;
        sib[i].pu = pus[i];
        if (pthread_create(&sib[i].thread, NULL, sibling_main, &sib[i]) != 0) {
            atomic_store(&t->stop, 1);
            for (unsigned j = 0; j < i; j++)
                pthread_join(sib[j].thread, NULL);
            return -1;
        }
    }
    while (atomic_load(&t->ready) < (int)n)
        sched_yield();
    return 0;
}

static void stop_siblings(struct shootdown_team *t, struct sibling *sib, unsigned n)
{
    atomic_store(&t->stop, 1);
    for (unsigned i = 0; i < n; i++)
        pthread_join(sib[i].thread, NULL);
}

/* ---- one point ---- */

struct scratch {
    double *unmap_s, *cycle_s;
    unsigned char *hit; /* per op: 0 no sibling CPU interrupted, 1 all, 2 some */
    double *tmp;
};

/* Median of the unmap times of the ops whose hit flag is `want`; NAN if none. */
static double median_where(const struct scratch *sc, unsigned n, unsigned char want,
                           unsigned *count)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (sc->hit[i] == want) sc->tmp[k++] = sc->unmap_s[i];
    *count = k;
    return k ? median_sorting(sc->tmp, k) : NAN;
}

/* Returns 0, -1 with a reason, or 1 when cfg->stop interrupted the point. */
static int measure_point(const struct shootdown_config *cfg, struct shootdown_report *rep,
                         struct shootdown_run *r, struct scratch *sc, char *why, size_t why_len)
{
    struct shootdown_arena a;
    if (shootdown_arena_open(&a, r->pages, why, why_len) != 0) return -1;
    double u, c;
    for (int i = 0; i < WARMUP_OPS; i++) {
        if (stop_asked(cfg->stop)) {
            shootdown_arena_close(&a);
            return 1;
        }
        if (shootdown_op(&a, r->mode, r->pages, &u, &c, why, why_len) != 0) goto fail;
    }

    /* static: a few KiB each, kept off the stack */
    static struct irq_counts first, prev, cur;
    const int *remote = cfg->remote_pus;
    int n_remote = (int)r->remote_threads;
    double t_read = timer_now();
    bool have_irq =
        rep->interrupts_available && interrupts_read(cfg->interrupts_path, "TLB", &first) == 0;
    t_read = timer_now() - t_read;
    /* Between ops too where a read is cheap next to the op budget; also without siblings, so
     * that every point has the same rhythm of ops and reads. */
    bool per_op = have_irq && t_read < 1e-3;
    prev = first;
    unsigned n = 0;
    double start = timer_now();
    while (n < MAX_OPS && (n < MIN_OPS || timer_now() - start < cfg->seconds_per_point)) {
        if (stop_asked(cfg->stop)) {
            shootdown_arena_close(&a);
            return 1;
        }
        if (shootdown_op(&a, r->mode, r->pages, &sc->unmap_s[n], &sc->cycle_s[n], why, why_len) !=
            0)
            goto fail;
        sc->hit[n] = 2;
        if (per_op) {
            if (interrupts_read(cfg->interrupts_path, "TLB", &cur) != 0) {
                per_op = have_irq = false;
            } else {
                int raised = irq_cpus_raised(&prev, &cur, remote, n_remote);
                sc->hit[n] = raised == n_remote ? 1 : raised == 0 ? 0 : 2;
                prev = cur;
            }
        }
        n++;
    }
    if (have_irq && !per_op) have_irq = interrupts_read(cfg->interrupts_path, "TLB", &prev) == 0;
    shootdown_arena_close(&a);

    r->ops = n;
    double sum = 0.0, lo = sc->unmap_s[0];
    for (unsigned i = 0; i < n; i++) {
        sum += sc->unmap_s[i];
        lo = sc->unmap_s[i] < lo ? sc->unmap_s[i] : lo;
    }
    r->us_mean = 1e6 * sum / n;
    r->us_min = 1e6 * lo;
    r->attributed = per_op && n_remote > 0;
    r->us_interrupted = r->us_not_interrupted = NAN;
    if (r->attributed) {
        r->us_interrupted = 1e6 * median_where(sc, n, 1, &r->ops_interrupted);
        r->us_not_interrupted = 1e6 * median_where(sc, n, 0, &r->ops_not_interrupted);
    }
    r->us_per_op = 1e6 * median_sorting(sc->unmap_s, n);
    r->us_per_cycle = 1e6 * median_sorting(sc->cycle_s, n);
    r->shootdowns = have_irq ? irq_delta(&first, &prev, NULL, 0) : -1;
    r->shootdowns_remote = have_irq ? irq_delta(&first, &prev, remote, n_remote) : -1;
    r->shootdowns_per_op =
        have_irq && n_remote > 0 ? (double)r->shootdowns_remote / (double)n : NAN;
    return 0;
fail:
    shootdown_arena_close(&a);
    return -1;
}

static void summarise(struct shootdown_report *out)
{
    double added[SHOOTDOWN_MAX_PAGE_POINTS], added_int[SHOOTDOWN_MAX_PAGE_POINTS];
    for (int m = 0; m < SHOOTDOWN_MODE_COUNT; m++)
        for (int i = 0; i < out->n_runs; i++) {
            const struct shootdown_run *r = &out->runs[i];
            if (r->mode != (enum shootdown_mode)m) continue;
            bool seen = false;
            for (int s = 0; s < out->n_summary && !seen; s++)
                seen = out->summary[s].mode == r->mode &&
                       out->summary[s].remote_threads == r->remote_threads;
            if (seen) continue;
            struct shootdown_summary *s = &out->summary[out->n_summary++];
            s->mode = r->mode;
            s->remote_threads = r->remote_threads;
            unsigned n = 0, n_int = 0;
            uint64_t ops = 0;
            int64_t irqs = 0;
            bool irq_known = true;
            for (int j = i; j < out->n_runs; j++) {
                const struct shootdown_run *x = &out->runs[j];
                if (x->mode != r->mode || x->remote_threads != r->remote_threads) continue;
                if (isfinite(x->added_us_per_remote) && n < SHOOTDOWN_MAX_PAGE_POINTS)
                    added[n++] = x->added_us_per_remote;
                if (isfinite(x->added_us_per_remote_interrupted) &&
                    n_int < SHOOTDOWN_MAX_PAGE_POINTS)
                    added_int[n_int++] = x->added_us_per_remote_interrupted;
                ops += x->ops;
                irq_known = irq_known && x->shootdowns_remote >= 0;
                irqs += x->shootdowns_remote;
            }
            s->added_us_per_remote = n ? median_sorting(added, n) : NAN;
            s->added_us_per_remote_interrupted = n_int ? median_sorting(added_int, n_int) : NAN;
            s->shootdowns_per_op =
                r->remote_threads > 0 && irq_known && ops ? (double)irqs / (double)ops : NAN;
            if (s->shootdowns_per_op < 0.2 * s->remote_threads && !out->note[0])
                snprintf(out->note, sizeof(out->note),
                         "only %.2f TLB interrupts per op reached the %u sibling CPU%s (%s): the "
                         "other flushes were not needed (a sibling was not on its CPU, which "
                         "other work shared) or were deferred by the hypervisor (paravirtual "
                         "flush of a preempted vCPU); '+us/IPI' is the cost when the IPI happened",
                         s->shootdowns_per_op, s->remote_threads, s->remote_threads == 1 ? "" : "s",
                         shootdown_mode_name(s->mode));
        }
}

void shootdown_report_free(struct shootdown_report *r)
{
    free(r->runs);
    r->runs = NULL;
    r->n_runs = 0;
}

static void describe_machine(const struct shootdown_config *cfg, struct shootdown_report *out)
{
    out->measure_pu = cfg->measure_pu;
    out->n_remote_pus =
        cfg->n_remote_pus < SHOOTDOWN_MAX_CPUS ? cfg->n_remote_pus : SHOOTDOWN_MAX_CPUS;
    for (int i = 0; i < out->n_remote_pus; i++)
        out->remote_pus[i] = cfg->remote_pus[i];
    read_hypervisor(out);
    out->flush_ceiling = read_flush_ceiling();
    static struct irq_counts probe_irq;
    out->interrupts_available = interrupts_read(cfg->interrupts_path, "TLB", &probe_irq) == 0;
    if (!out->interrupts_available)
        snprintf(out->interrupts_note, sizeof(out->interrupts_note),
                 "no 'TLB:' line in %s: this kernel or architecture does not count TLB "
                 "shootdown interrupts (arm64, for one, flushes other CPUs by broadcast "
                 "instructions, without interrupts)",
                 cfg->interrupts_path);
}

/* The sibling counts that can run here, into counts; the others are out->skipped. */
static int runnable_counts(const struct shootdown_config *cfg, struct shootdown_report *out,
                           unsigned counts[SHOOTDOWN_MAX_COUNTS])
{
    int n_counts = 0;
    for (int i = 0; i < cfg->n_remote_counts && i < SHOOTDOWN_MAX_COUNTS; i++) {
        unsigned k = cfg->remote_counts[i];
        if ((int)k <= cfg->n_remote_pus) {
            counts[n_counts++] = k;
            continue;
        }
        struct shootdown_skip *s = &out->skipped[out->n_skipped++];
        s->remote_threads = k;
        snprintf(s->reason, sizeof(s->reason),
                 "needs %u usable CPUs (1 measuring + %u remote), this process may use %d", k + 1,
                 k, cfg->n_remote_pus + 1);
    }
    return n_counts;
}

/* One point with `remote` siblings running: 0, 1 when stopped, -1 on failure (why). */
static int run_point(const struct shootdown_config *cfg, struct shootdown_report *out,
                     struct shootdown_team *team, struct sibling *sib, struct shootdown_run *r,
                     unsigned remote, struct scratch *sc, char *why, size_t why_len)
{
    if (start_siblings(team, sib, cfg->remote_pus, remote) != 0) {
        snprintf(why, why_len, "cannot start %u sibling threads: %s", remote, strerror(errno));
        return -1;
    }
    int point = measure_point(cfg, out, r, sc, why, why_len);
    r->siblings_bound = atomic_load(&team->all_bound) != 0;
    stop_siblings(team, sib, remote);
    return point;
}

/* Points in report order; for each (mode, pages) the sibling counts run back to back, so that
 * a change in the machine's load between them biases the comparison least. */
static int run_points(const struct shootdown_config *cfg, struct shootdown_report *out,
                      struct shootdown_team *team, struct sibling *sib, const unsigned *counts,
                      int n_counts, struct scratch *sc, char *why, size_t why_len)
{
    for (int m = 0; m < SHOOTDOWN_MODE_COUNT && !out->stopped; m++)
        for (int p = 0; p < cfg->n_pages && !out->stopped; p++)
            for (int k = 0; k < n_counts && !out->stopped; k++) {
                if (stop_asked(cfg->stop)) {
                    out->stopped = true;
                    break;
                }
                struct shootdown_run *r = &out->runs[out->n_runs];
                memset(r, 0, sizeof(*r));
                r->mode = (enum shootdown_mode)m;
                r->pages = cfg->pages[p];
                r->remote_threads = counts[k];
                r->added_us_per_remote = r->added_us_per_remote_interrupted = NAN;
                int point = run_point(cfg, out, team, sib, r, counts[k], sc, why, why_len);
                if (point < 0) return -1;
                if (point == 1)
                    out->stopped = true;
                else
                    out->n_runs++;
            }
    return 0;
}

/* Added cost per remote CPU, against the same point without siblings. */
static void added_costs(struct shootdown_report *out)
{
    for (int i = 0; i < out->n_runs; i++) {
        struct shootdown_run *r = &out->runs[i];
        if (r->remote_threads == 0) continue;
        for (int j = 0; j < out->n_runs; j++) {
            const struct shootdown_run *z = &out->runs[j];
            if (z->remote_threads == 0 && z->mode == r->mode && z->pages == r->pages) {
                r->added_us_per_remote = (r->us_per_op - z->us_per_op) / r->remote_threads;
                r->added_us_per_remote_interrupted =
                    (r->us_interrupted - z->us_per_op) / r->remote_threads;
            }
        }
    }
}

int shootdown_probe_run(const struct shootdown_config *cfg, struct shootdown_report *out, char *why,
                        size_t why_len)
{
    memset(out, 0, sizeof(*out));
    describe_machine(cfg, out);
    unsigned counts[SHOOTDOWN_MAX_COUNTS];
    int n_counts = runnable_counts(cfg, out, counts);
    size_t total = (size_t)SHOOTDOWN_MODE_COUNT * (size_t)cfg->n_pages * (size_t)n_counts;
    out->n_planned = (int)total;
    out->runs = calloc(total ? total : 1, sizeof(*out->runs));
    struct scratch sc = {malloc(MAX_OPS * sizeof(double)), malloc(MAX_OPS * sizeof(double)),
                         malloc(MAX_OPS), malloc(MAX_OPS * sizeof(double))};
    struct sibling *sib = calloc(cfg->n_remote_pus + 1, sizeof(*sib));
    char *anchor =
        mmap(NULL, page_base_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int rc = -1;
    if (!out->runs || !sc.unmap_s || !sc.cycle_s || !sc.hit || !sc.tmp || !sib ||
        anchor == MAP_FAILED) {
        snprintf(why, why_len, "out of memory for the shootdown probe");
    } else {
        anchor[0] = 1;
        struct shootdown_team team = {
            .anchor = anchor, .bind = cfg->bind, .bind_ctx = cfg->bind_ctx};
        out->measure_bound = cfg->bind(cfg->bind_ctx, cfg->measure_pu) == 0;
        rc = run_points(cfg, out, &team, sib, counts, n_counts, &sc, why, why_len);
    }
    if (rc == 0) {
        added_costs(out);
        summarise(out);
    }
    if (anchor != MAP_FAILED) munmap(anchor, page_base_bytes());
    free(sib);
    free(sc.unmap_s);
    free(sc.cycle_s);
    free(sc.hit);
    free(sc.tmp);
    if (rc != 0) shootdown_report_free(out);
    return rc;
}
