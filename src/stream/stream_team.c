#include "src/stream/stream_team.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <string.h>

#include "affinity/bind.h"
#include "src/base/clock.h"
#include "src/base/interrupt.h"
#include "src/stream/finish_spread.h"

static void record_domains(struct team *tm, struct run_result *out, int k, unsigned rep)
{
    if (!tm->thread_domain || rep == 0) return;
    double *best = &tm->domain_best[(size_t)k * (size_t)out->n_domains];
    for (int d = 0; d < out->n_domains; d++) {
        double slowest = 0.0;
        for (int t = 0; t < tm->team_size; t++)
            if (tm->thread_domain[t] == d && tm->finish[t] > slowest) slowest = tm->finish[t];
        if (best[d] == 0.0 || slowest < best[d]) best[d] = slowest;
    }
}

static void check_reduction(struct team *tm, int k)
{
    double sum = 0.0;
    for (int t = 0; t < tm->team_size; t++)
        sum += tm->partial[t];
    double want = expected_reduction(&tm->expect, (enum kernel_id)k, tm->cfg->type, tm->n);
    double err = want != 0.0 ? fabs(sum - want) / fabs(want) : fabs(sum);
    if (!(err <= tm->reduction_err[k])) tm->reduction_err[k] = isnan(err) ? INFINITY : err;
}

/* With --time-limit: the timer_now() by which the run should end, leaving room to report. */
static double run_deadline(const struct run_config *cfg)
{
    return time_limit_deadline(cfg->started, cfg->time_limit_s);
}

/* With a time limit, stop once another repetition would not fit, keeping at least one measured
 * repetition after the warm-up and never shrinking the arrays. */
static bool out_of_time(const struct team *tm, unsigned rep)
{
    if (tm->cfg->time_limit_s <= 0.0 || rep < 1) return false;
    double deadline = run_deadline(tm->cfg);
    double now = timer_now(), per_rep = (now - tm->loop_start - tm->warm_up_extra_s) / (rep + 1);
    return now + 2.0 * per_rep > deadline; /* one more repetition and the validation pass */
}

/* Elements first-touched between two checks for a signal: 4 MiB of each array, so that a
 * signal during the first touch of gigabytes is answered within a fraction of a second. */
#define FIRST_TOUCH_CHUNK_BYTES (4u << 20)

static void first_touch(const struct team *tm, size_t lo, size_t hi)
{
    size_t step = FIRST_TOUCH_CHUNK_BYTES / elem_size(tm->cfg->type);
    for (size_t at = lo; at < hi && !interrupt_signal(); at += step)
        stream_init_arrays(tm->a, tm->b, tm->c, at, hi - at > step ? at + step : hi, tm->cfg->type);
}

void team_use_candidate(struct team *tm, int cand)
{
    tm->candidate = cand;
    tm->kinds = store_assignment_name((enum store_assignment)cand);
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (tm->choice->kernel_mask & (1u << k))
            tm->fns[k] = tm->fns_kind[tm->choice->cand[cand].kind[k]][k];
}

static void choose_stores(struct team *tm)
{
    store_choice_decide(tm->choice, tm->n, tm->cfg->type);
    tm->kinds = store_assignment_name(tm->choice->assignment);
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (tm->choice->kernel_mask & (1u << k))
            tm->fns[k] = tm->fns_kind[tm->choice->chosen[k]][k];
    tm->choice = NULL;
}

/* With a time limit: another warm-up pass, a measured repetition and the validation pass would
 * not fit. */
static bool warm_up_out_of_time(const struct team *tm)
{
    return tm->cfg->time_limit_s > 0.0 &&
           timer_now() + 3.0 * tm->warm_up_pass_max_s > run_deadline(tm->cfg);
}

/* The calibration ends early, once both uniform assignments have been timed, when the time
 * limit needs the time. */
static bool calibration_out_of_time(const struct team *tm)
{
    return store_choice_can_stop(tm->choice) && warm_up_out_of_time(tm);
}

/* Under auto, a pass of the first repetition: records it (kernel times kernel_s) and sets up
 * the next; false once the choice is made. */
static bool calibration_pass(struct team *tm, const double kernel_s[KERNEL_COUNT])
{
    store_choice_record(tm->choice, tm->candidate, kernel_s);
    int next = store_choice_next(tm->choice);
    if (next >= 0 && !calibration_out_of_time(tm)) {
        team_use_candidate(tm, next);
        return true;
    }
    choose_stores(tm);
    return false;
}

/* The warm-up is over: the arrays are set as at the first touch (by the team, before the next
 * pass) and the checks start again, so that the validation covers what STREAM's does, however
 * many passes the warm-up ran. */
static void warm_up_reset(struct team *tm)
{
    tm->reset = true;
    expected_init(&tm->expect);
    memset(tm->reduction_err, 0, sizeof(tm->reduction_err));
    test_hook_at("arrays reset");
}

/* Whether the warm-up with the run's own stores goes on: until it has lasted WARM_UP_MIN_S or
 * run WARM_UP_PASSES_MAX passes, or a time limit needs the time, as the calibration's. */
static bool settling(const struct team *tm)
{
    return !warm_up_out_of_time(tm) && tm->settle_s < WARM_UP_MIN_S &&
           tm->settle_passes < WARM_UP_PASSES_MAX;
}

/* The pass just run, counted in the warm-up's totals; kernel_s[k] is what kernel k took. */
static void count_warm_up_pass(struct team *tm, double kernel_s[KERNEL_COUNT])
{
    const struct run_config *cfg = tm->cfg;
    double s = 0.0;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (cfg->kernel_mask & (1u << k)) s += kernel_s[k] = tm->times[(size_t)k * cfg->ntimes];
    if (tm->warm_up_passes++ > 0) tm->warm_up_extra_s += s;
    if (s > tm->warm_up_pass_max_s) tm->warm_up_pass_max_s = s;
    tm->warm_up_s = timer_now() - tm->warm_up_start;
    test_hook_at("warm-up %s", tm->kinds);
}

/* The last pass of the first repetition is over: the timed repetitions follow. */
static bool warm_up_done(struct team *tm)
{
    tm->reset = false;
    test_hook_at("timed repetitions");
    return false;
}

/* After a pass of the first repetition: whether another follows. Under auto the calibration
 * passes come first; then, on every path, passes of the run's own stores (settling()); then
 * the arrays are reset and one more pass is STREAM's first repetition. */
static bool warm_up_more(struct team *tm)
{
    double kernel_s[KERNEL_COUNT] = {0.0};
    count_warm_up_pass(tm, kernel_s);
    if (tm->reset) return warm_up_done(tm);
    bool calibrating = tm->choice != NULL, first = tm->warm_up_passes == 1;
    if (calibrating) { /* choose_stores() ends it: tm->choice is NULL then */
        if (calibration_pass(tm, kernel_s)) return true;
        tm->settle_start = timer_now();
    } else {
        if (first) tm->settle_start = tm->warm_up_start;
        tm->settle_passes++;
        tm->settle_s = timer_now() - tm->settle_start;
    }
    if (settling(tm)) return true;
    if (first && !calibrating) return warm_up_done(tm); /* that pass was the first repetition */
    warm_up_reset(tm);
    return true;
}

/* The power of two the arrays are scaled by before the next pass (0 = none), the expected
 * values scaled with them. */
static int rescale_expected(struct expected_values *e)
{
    int exponent = expected_rescale_exponent(e);
    if (exponent) expected_rescale(e, exponent);
    return exponent;
}

/* membench-hooked (repetition_pad_s): the master sleeps until the kernel's timed repetition has
 * lasted the pad (or what the kernel took, when longer), slow_factor times that for the slowed
 * one; the team waits at the barrier. A sleep, not a spin: threads may outnumber CPUs. */
static void test_repetition_time(unsigned rep, double t0)
{
    const struct stream_hooks *h = kernel_hooks();
    if (!h || !(h->repetition_pad_s > 0.0) || rep == 0) return;
    double took = timer_now() - t0, base = took > h->repetition_pad_s ? took : h->repetition_pad_s;
    double until = t0 + base * (rep + 1 == h->slow_repetition ? h->slow_factor : 1.0);
    while (timer_now() < until)
        sleep_until(until);
}

/* One thread of the team: it works on elements [lo, hi) throughout. */
struct member {
    int t;
    size_t lo, hi;
};

/* Each thread binds itself once and takes its range. */
static struct member join_team(struct team *tm, struct run_result *out)
{
    const struct run_config *cfg = tm->cfg;
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp master
    tm->team_size = nt;
    bool bound = false;
    tm->pus_start[t] =
        bind_this_thread(tm->topo, cfg->bind_kind, cfg->pus ? cfg->pus[t] : -1, &bound);
    if (out->placement) out->placement[t].bound = bound;
    struct member m = {.t = t, .lo = stream_chunk_begin(tm->n, nt, t, cfg->type)};
    m.hi = t + 1 < nt ? stream_chunk_begin(tm->n, nt, t + 1, cfg->type) : tm->n;
    return m;
}

/* Each thread first-touches its range; the team stops if a signal came meanwhile. */
static void touch_arrays(struct team *tm, const struct member *m)
{
    if (m->t == 0) test_hook_at("first touch");
    first_touch(tm, m->lo, m->hi);
#pragma omp barrier
#pragma omp master
    tm->sync.stop = interrupt_signal() != 0;
#pragma omp barrier
}

/* The master starts a kernel's clock; the first time, the first touch is over. */
static void kernel_started(struct team *tm)
{
    tm->sync.t0 = timer_now();
    if (tm->touch_s == 0.0) {
        tm->touch_s = tm->sync.t0 - tm->loop_start;
        tm->warm_up_start = tm->sync.t0;
    }
}

/* The master, once every thread has finished kernel k: its time and checks. */
static void kernel_ended(struct team *tm, struct run_result *out, int k, unsigned rep)
{
    const struct run_config *cfg = tm->cfg;
    double t0 = tm->sync.t0;
    test_repetition_time(rep, t0);
    tm->times[(size_t)k * cfg->ntimes + rep] = timer_now() - t0;
    tm->spread[(size_t)k * cfg->ntimes + rep] = finish_spread(tm->finish, tm->team_size);
    if (kernel_table[k].reduction) check_reduction(tm, k);
    expected_step(&tm->expect, (enum kernel_id)k, cfg->type, STREAM_SCALAR);
    record_domains(tm, out, k, rep);
    tm->sync.stop = interrupt_signal() != 0; /* the run is dropped: no need to finish */
}

/* One pass of the run's kernels, each as STREAM times it: barrier, clock, kernel, barrier,
 * clock. */
static void time_kernels(struct team *tm, const struct member *m, struct run_result *out,
                         unsigned rep)
{
    for (int k = 0; k < KERNEL_COUNT && !tm->sync.stop; k++) {
        if (!(tm->cfg->kernel_mask & (1u << k))) continue;
#pragma omp barrier
#pragma omp master
        kernel_started(tm);
#pragma omp barrier
        tm->partial[m->t] = tm->fns[k](tm->a, tm->b, tm->c, m->lo, m->hi, STREAM_SCALAR);
        tm->finish[m->t] = timer_now() - tm->sync.t0;
#pragma omp barrier
#pragma omp master
        kernel_ended(tm, out, k, rep);
#pragma omp barrier
    }
}

/* Between passes, untimed: the master decides whether the first repetition runs another (the
 * warm-up, auto's calibration) and whether to rescale; then each thread rescales its range, or
 * sets it again for STREAM's first repetition. Whether another pass follows. */
static bool between_passes(struct team *tm, const struct member *m, unsigned rep)
{
#pragma omp master
    {
        tm->sync.warm_up = rep == 0 && !tm->sync.stop && warm_up_more(tm);
        tm->sync.exponent = rescale_expected(&tm->expect);
    }
#pragma omp barrier
    if (tm->sync.exponent)
        stream_scale_arrays(tm->a, tm->b, tm->c, m->lo, m->hi, tm->cfg->type, tm->sync.exponent);
    if (tm->sync.warm_up && tm->reset) first_touch(tm, m->lo, m->hi);
    return tm->sync.warm_up;
}

/* The master counts the repetition and stops the team on a signal or the time limit. */
static void end_repetition(struct team *tm, unsigned rep)
{
#pragma omp barrier
#pragma omp master
    {
        tm->reps_done = rep + 1;
        tm->sync.stop = tm->sync.stop || out_of_time(tm, rep) || interrupt_signal() != 0;
    }
#pragma omp barrier
}

void team_run(struct team *tm, struct run_result *out)
{
    tm->loop_start = timer_now();
    tm->sync = (struct team_sync){0};
#pragma omp parallel num_threads(tm->cfg->threads)
    {
        struct member m = join_team(tm, out);
        touch_arrays(tm, &m);
        for (unsigned rep = 0; rep < tm->cfg->ntimes && !tm->sync.stop; rep++) {
            do { /* the first repetition is repeated: the warm-up */
                time_kernels(tm, &m, out, rep);
            } while (between_passes(tm, &m, rep));
            end_repetition(tm, rep);
        }
        tm->pus_end[m.t] = sched_getcpu();
    }
}
