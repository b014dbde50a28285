/* --stores auto: what is measured, the course of the calibration over whole repetitions, and
 * how the assignment of store kinds is chosen; the choice replayed on recorded machines
 * (tests/fixtures/machines/<machine>/stores-<size>.json). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "src/stream/store_choice.h"

#define STREAM4                                                                                    \
    ((1u << KERNEL_COPY) | (1u << KERNEL_SCALE) | (1u << KERNEL_ADD) | (1u << KERNEL_TRIAD))
#define COPY_TRIAD ((1u << KERNEL_COPY) | (1u << KERNEL_TRIAD))

static void forced_kinds_measure_nothing(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "nt", false, STREAM4);
    assert_int_equal(c.method, STORES_FORCED);
    store_choice_init(&c, "normal", false, STREAM4);
    assert_int_equal(c.method, STORES_FORCED);
}

static void a_reference_decides(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", true, STREAM4);
    assert_int_equal(c.method, STORES_REFERENCE);
    assert_int_equal(c.kernel_mask, 0);
}

static void auto_times_only_kernels_that_store(void **state)
{
    (void)state;
    struct store_choice c;
    unsigned run = STREAM4 | (1u << KERNEL_DOT) | (1u << KERNEL_NSTREAM);
    store_choice_init(&c, "auto", false, run);
    assert_int_equal(c.method, STORES_MEASURED);
    assert_int_equal(c.kernel_mask, STREAM4 | (1u << KERNEL_NSTREAM));
    assert_int_equal(c.run_mask, run);
    assert_int_equal(c.cand[ASSIGN_NT].kind[KERNEL_DOT], STORES_NORMAL);
    assert_int_equal(c.cand[ASSIGN_NT].kind[KERNEL_TRIAD], STORES_NT);
    store_choice_init(&c, "auto", false, (1u << KERNEL_DOT) | (1u << KERNEL_READ));
    assert_int_equal(c.method, STORES_NOT_MEASURED);
    assert_string_equal(c.why, "no kernel of this run stores");
}

/* The decision: the fastest total; a tie goes to fewer non-temporal kernels; an assignment
 * never timed is never chosen. */
static void the_fastest_total_is_picked(void **state)
{
    (void)state;
    double t[3] = {0.40, 0.32, 0.36};
    int nts[3] = {0, 2, 1};
    assert_int_equal(store_assignment_pick(t, nts, 3), ASSIGN_NT);
    t[2] = 0.30;
    assert_int_equal(store_assignment_pick(t, nts, 3), ASSIGN_MIXED);
    t[0] = 0.20;
    assert_int_equal(store_assignment_pick(t, nts, 2), ASSIGN_NORMAL);
}

static void ties_go_to_normal_stores(void **state)
{
    (void)state;
    double t[3] = {0.30, 0.30, 0.30};
    int nts[3] = {0, 4, 2};
    assert_int_equal(store_assignment_pick(t, nts, 3), ASSIGN_NORMAL);
    t[0] = 0.31;
    assert_int_equal(store_assignment_pick(t, nts, 3), ASSIGN_MIXED);
}

static void untimed_is_never_picked(void **state)
{
    (void)state;
    double t[3] = {0.0, 0.5, 0.0};
    int nts[3] = {0, 2, 1};
    assert_int_equal(store_assignment_pick(t, nts, 3), ASSIGN_NT);
    t[1] = 0.0;
    assert_int_equal(store_assignment_pick(t, nts, 3), -1);
}

/* A model machine: each kernel's seconds given its kind and what the previous kernel (the
 * previous repetition's last one for the first) left in the caches. */
struct model {
    double s[2][KERNEL_COUNT];     /* [kind][kernel] */
    double after_nt[KERNEL_COUNT]; /* extra seconds for normal stores after an nt kernel */
};

/* Runs the calibration to its end against the model; returns the repetitions run. */
static int calibrate(struct store_choice *c, const struct model *m)
{
    int reps = 0;
    enum store_kind before = STORES_NORMAL; /* the first touch writes normally */
    for (int cand = store_choice_next(c); cand >= 0; cand = store_choice_next(c), reps++) {
        double s[KERNEL_COUNT] = {0.0};
        for (int k = 0; k < KERNEL_COUNT; k++) {
            if (!(c->run_mask & (1u << k))) continue;
            enum store_kind kind = c->cand[cand].kind[k];
            s[k] = m->s[kind][k] +
                   (kind == STORES_NORMAL && before == STORES_NT ? m->after_nt[k] : 0.0);
            before = kind;
        }
        store_choice_record(c, cand, s);
        assert_true(reps < 2 * 3 * STORE_CALIBRATION_ROUNDS_MAX);
    }
    store_choice_decide(c, 1000000, TYPE_DOUBLE);
    return reps;
}

/* Each round times each candidate twice in a row, round 0 normal, nt, then the mix when the
 * kernels disagree; later rounds reverse the order, so the first repetition of a round
 * follows one of its own assignment. */
static void rounds_run_each_candidate_twice(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, COPY_TRIAD);
    const double copy_normal[KERNEL_COUNT] = {[KERNEL_COPY] = 0.01, [KERNEL_TRIAD] = 0.03};
    const double copy_nt[KERNEL_COUNT] = {[KERNEL_COPY] = 0.02, [KERNEL_TRIAD] = 0.02};
    int seen[12];
    for (int i = 0; i < 12; i++) {
        seen[i] = store_choice_next(&c);
        assert_true(seen[i] >= 0);
        store_choice_record(&c, seen[i], seen[i] == ASSIGN_NT ? copy_nt : copy_normal);
    }
    const int want[12] = {0, 0, 1, 1, 2, 2, 2, 2, 1, 1, 0, 0};
    assert_memory_equal(seen, want, sizeof(want));
    assert_int_equal(c.n_candidates, 3);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_COPY], STORES_NORMAL);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_TRIAD], STORES_NT);
    /* counted: the second of each pair in round 0, both of the mix's and of the others'
     * second pairs in round 1 only the second */
    assert_int_equal(c.cand[ASSIGN_NORMAL].passes, 2);
    assert_int_equal(c.cand[ASSIGN_NT].passes, 2);
    assert_int_equal(c.cand[ASSIGN_MIXED].passes, 3);
    assert_int_equal(c.rounds, 1);
}

/* What the caches hold depends on the repetition before: one of another assignment does
 * not count, however fast. */
static void only_a_repetition_after_its_own_assignment_counts(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, 1u << KERNEL_COPY);
    const double fast[KERNEL_COUNT] = {[KERNEL_COPY] = 0.01};
    const double slow[KERNEL_COUNT] = {[KERNEL_COPY] = 0.05};
    store_choice_record(&c, ASSIGN_NORMAL, fast); /* after the first touch */
    assert_int_equal(c.cand[ASSIGN_NORMAL].passes, 0);
    store_choice_record(&c, ASSIGN_NORMAL, slow);
    store_choice_record(&c, ASSIGN_NT, fast);
    store_choice_record(&c, ASSIGN_NT, slow);
    assert_int_equal(c.cand[ASSIGN_NORMAL].passes, 1);
    assert_float_equal(c.cand[ASSIGN_NORMAL].best_s, 0.05, 1e-12);
    assert_float_equal(c.cand[ASSIGN_NT].best_s, 0.05, 1e-12);
}

/* The Zen 4 case in a model: Copy is faster with normal stores and Triad with nt, each timed
 * in its own uniform run, but after a non-temporal Triad the normal Copy reads from memory.
 * The per-kernel mix loses in total; all-nt wins. */
static void the_run_as_a_whole_beats_the_per_kernel_mix(void **state)
{
    (void)state;
    struct model m = {.s = {[STORES_NORMAL] = {[KERNEL_COPY] = 0.10, [KERNEL_TRIAD] = 0.30},
                            [STORES_NT] = {[KERNEL_COPY] = 0.12, [KERNEL_TRIAD] = 0.20}},
                      .after_nt = {[KERNEL_COPY] = 0.10}};
    struct store_choice c;
    store_choice_init(&c, "auto", false, COPY_TRIAD);
    calibrate(&c, &m);
    assert_int_equal(c.n_candidates, 3);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_COPY], STORES_NORMAL);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_TRIAD], STORES_NT);
    assert_float_equal(c.cand[ASSIGN_NORMAL].best_s, 0.40, 1e-12);
    assert_float_equal(c.cand[ASSIGN_NT].best_s, 0.32, 1e-12);
    assert_float_equal(c.cand[ASSIGN_MIXED].best_s, 0.40, 1e-12);
    assert_int_equal(c.assignment, ASSIGN_NT);
    assert_int_equal(c.chosen[KERNEL_COPY], STORES_NT);
    assert_int_equal(c.chosen[KERNEL_TRIAD], STORES_NT);
    /* 1e6 doubles: Copy 16e6 bytes, Triad 24e6 */
    assert_float_equal(c.cand[ASSIGN_NT].mbps, 40.0 / 0.32, 1e-9);
    assert_float_equal(c.cand[ASSIGN_NT].mbps, 40.0 / 0.32, 1e-9);
    assert_float_equal(c.cand[ASSIGN_NORMAL].mbps, 40.0 / 0.40, 1e-9);
    assert_float_equal(c.kernel_mbps[STORES_NORMAL][KERNEL_COPY], 160.0, 1e-9);
    assert_float_equal(c.kernel_mbps[STORES_NT][KERNEL_TRIAD], 120.0, 1e-9);
}

/* Without the interference the mix is the fastest and runs: each kernel its own kind. */
static void a_mix_that_wins_runs(void **state)
{
    (void)state;
    struct model m = {.s = {[STORES_NORMAL] = {[KERNEL_COPY] = 0.10, [KERNEL_TRIAD] = 0.30},
                            [STORES_NT] = {[KERNEL_COPY] = 0.12, [KERNEL_TRIAD] = 0.20}}};
    struct store_choice c;
    store_choice_init(&c, "auto", false, COPY_TRIAD);
    calibrate(&c, &m);
    assert_int_equal(c.assignment, ASSIGN_MIXED);
    assert_float_equal(c.cand[ASSIGN_MIXED].best_s, 0.30, 1e-12);
    assert_int_equal(c.chosen[KERNEL_COPY], STORES_NORMAL);
    assert_int_equal(c.chosen[KERNEL_TRIAD], STORES_NT);
    char text[64];
    store_choice_kernels(&c, text, sizeof(text));
    assert_string_equal(text, "Copy+Triad");
    assert_string_equal(store_assignment_name(c.assignment), "mixed");
}

/* When every kernel agrees there is no mix to time: two candidates, one round of 4 when the
 * repetitions are long (2 x 2.5 s counted >= STORE_CALIBRATION_LONG_S). */
static void agreeing_kernels_time_two_candidates(void **state)
{
    (void)state;
    struct model m = {.s = {[STORES_NORMAL] = {[KERNEL_COPY] = 0.6, [KERNEL_TRIAD] = 0.9},
                            [STORES_NT] = {[KERNEL_COPY] = 0.4, [KERNEL_TRIAD] = 0.6}}};
    struct store_choice c;
    store_choice_init(&c, "auto", false, COPY_TRIAD);
    assert_int_equal(calibrate(&c, &m), 4);
    assert_int_equal(c.n_candidates, 2);
    assert_int_equal(c.assignment, ASSIGN_NT);
    assert_int_equal(c.rounds, 1);
}

/* Short repetitions: rounds repeat until the counted ones add up to the minimum, or up to
 * the maximum number of rounds. */
static void short_repetitions_repeat_rounds(void **state)
{
    (void)state;
    struct model m = {
        .s = {[STORES_NORMAL] = {[KERNEL_COPY] = 0.050}, [STORES_NT] = {[KERNEL_COPY] = 0.076}}};
    struct store_choice c;
    store_choice_init(&c, "auto", false, 1u << KERNEL_COPY);
    calibrate(&c, &m);
    /* 2 x rounds x (0.050 + 0.076) >= 1 s */
    assert_int_equal(c.rounds, 4);
    assert_int_equal(c.assignment, ASSIGN_NORMAL);
    struct model tiny = {
        .s = {[STORES_NORMAL] = {[KERNEL_COPY] = 1e-6}, [STORES_NT] = {[KERNEL_COPY] = 2e-6}}};
    store_choice_init(&c, "auto", false, 1u << KERNEL_COPY);
    assert_int_equal(calibrate(&c, &tiny), 4 * STORE_CALIBRATION_ROUNDS_MAX);
    assert_int_equal(c.rounds, STORE_CALIBRATION_ROUNDS_MAX);
}

/* The mix is rederived before every round; when a later round's bests change it, the old
 * mix's timings are dropped and it is timed afresh. */
static void a_changed_mix_is_timed_afresh(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false,
                      (1u << KERNEL_COPY) | (1u << KERNEL_SCALE) | (1u << KERNEL_TRIAD));
    const double n1[KERNEL_COUNT] = {
        [KERNEL_COPY] = 0.001, [KERNEL_SCALE] = 0.001, [KERNEL_TRIAD] = 0.003};
    const double t1[KERNEL_COUNT] = {
        [KERNEL_COPY] = 0.002, [KERNEL_SCALE] = 0.002, [KERNEL_TRIAD] = 0.002};
    const double t2[KERNEL_COUNT] = {
        [KERNEL_COPY] = 0.0005, [KERNEL_SCALE] = 0.002, [KERNEL_TRIAD] = 0.002};
    for (int i = 0; i < 6; i++) { /* round 0: N N T T M M */
        int cand = store_choice_next(&c);
        store_choice_record(&c, cand, cand == ASSIGN_NT ? t1 : n1);
    }
    assert_int_equal(c.cand[ASSIGN_MIXED].passes, 1);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_COPY], STORES_NORMAL);
    for (int i = 0; i < 6; i++) { /* round 1: M M T T N N, where nt Copy is now faster */
        int cand = store_choice_next(&c);
        assert_int_not_equal(cand, -1);
        store_choice_record(&c, cand, cand == ASSIGN_NT ? t2 : n1);
    }
    assert_int_equal(store_choice_next(&c), ASSIGN_NORMAL); /* round 2, forward */
    assert_int_equal(c.n_candidates, 3);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_COPY], STORES_NT);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_SCALE], STORES_NORMAL);
    assert_int_equal(c.cand[ASSIGN_MIXED].kind[KERNEL_TRIAD], STORES_NT);
    assert_int_equal(c.cand[ASSIGN_MIXED].passes, 0);
    assert_true(c.cand[ASSIGN_MIXED].best_s == 0.0);
}

/* A time limit may end the calibration once both uniform assignments were timed. */
static void stopping_needs_both_uniform_timings(void **state)
{
    (void)state;
    struct store_choice c;
    store_choice_init(&c, "auto", false, 1u << KERNEL_COPY);
    const double s[KERNEL_COUNT] = {[KERNEL_COPY] = 0.01};
    store_choice_record(&c, ASSIGN_NORMAL, s);
    store_choice_record(&c, ASSIGN_NORMAL, s);
    assert_false(store_choice_can_stop(&c));
    store_choice_record(&c, ASSIGN_NT, s);
    store_choice_record(&c, ASSIGN_NT, s);
    assert_true(store_choice_can_stop(&c));
    store_choice_decide(&c, 1000, TYPE_FLOAT);
    assert_int_equal(c.assignment, ASSIGN_NORMAL); /* a tie */
}

/* Recorded machines: each fixture holds the calibration's candidates (a membench run's
 * config.stores_chosen_by, or figures written by hand from bench/RESULTS.md) and the totals of
 * interleaved A/B runs of the same assignments. Replayed through the decision, the choice must
 * be within 3% of the better assignment by the A/B. */
static double candidate_mbps(json_t *cand)
{
    return json_number_value(json_object_get(cand, "total_mbps"));
}

static void replay(const char *path)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (!doc) fail_msg("%s: %s", path, err.text);
    json_t *by = json_object_get(doc, "stores_chosen_by");
    json_t *cands = json_object_get(by, "candidates");
    json_t *ab = json_object_get(doc, "ab_total_mbps");
    assert_true(json_is_array(cands) && json_is_object(ab));
    double total_s[STORE_ASSIGNMENTS] = {0.0};
    int nts[STORE_ASSIGNMENTS] = {0};
    const char *names[STORE_ASSIGNMENTS];
    size_t n = json_array_size(cands);
    assert_true(n >= 2 && n <= STORE_ASSIGNMENTS);
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(cands, i);
        names[i] = json_string_value(json_object_get(x, "assignment"));
        assert_non_null(names[i]);
        double mbps = candidate_mbps(x);
        total_s[i] = mbps > 0.0 ? 1.0 / mbps : 0.0; /* the same bytes for every candidate */
        const char *kernel;
        json_t *kind;
        json_object_foreach(json_object_get(x, "stores"), kernel, kind)
        {
            nts[i] += strcmp(json_string_value(kind), "nt") == 0;
        }
    }
    int pick = store_assignment_pick(total_s, nts, (int)n);
    assert_true(pick >= 0);
    json_t *recorded = json_object_get(by, "assignment");
    if (recorded) assert_string_equal(json_string_value(recorded), names[pick]);
    double best = 0.0;
    const char *name;
    json_t *v;
    json_object_foreach(ab, name, v)
    {
        if (json_number_value(v) > best) best = json_number_value(v);
    }
    json_t *mine = json_object_get(ab, names[pick]);
    if (!mine) fail_msg("%s: the choice %s has no A/B figure", path, names[pick]);
    if (json_number_value(mine) < 0.97 * best)
        fail_msg("%s: chose %s, %.0f MB/s by the A/B, best %.0f", path, names[pick],
                 json_number_value(mine), best);
    const char *want = json_string_value(json_object_get(doc, "expect"));
    if (want) assert_string_equal(names[pick], want);
    json_decref(doc);
}

static void recorded_machines_choose_the_better_assignment(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/fixtures/machines", TESTS_DIR);
    DIR *machines = opendir(dir);
    assert_non_null(machines);
    int replayed = 0, seen_machines = 0;
    for (struct dirent *m; (m = readdir(machines));) {
        if (m->d_name[0] == '.') continue;
        char sub[800];
        snprintf(sub, sizeof(sub), "%s/%s", dir, m->d_name);
        DIR *files = opendir(sub);
        if (!files) continue;
        int before = replayed;
        for (struct dirent *f; (f = readdir(files));) {
            if (strncmp(f->d_name, "stores-", 7) != 0) continue;
            char path[1200];
            snprintf(path, sizeof(path), "%s/%s", sub, f->d_name);
            replay(path);
            replayed++;
        }
        closedir(files);
        seen_machines += replayed > before;
    }
    closedir(machines);
    assert_true(seen_machines >= 4); /* this Intel guest (model 167), model 207, Zen 4, Zen 5 */
    assert_true(replayed >= 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forced_kinds_measure_nothing),
        cmocka_unit_test(auto_times_only_kernels_that_store),
        cmocka_unit_test(a_reference_decides),
        cmocka_unit_test(the_fastest_total_is_picked),
        cmocka_unit_test(ties_go_to_normal_stores),
        cmocka_unit_test(untimed_is_never_picked),
        cmocka_unit_test(rounds_run_each_candidate_twice),
        cmocka_unit_test(only_a_repetition_after_its_own_assignment_counts),
        cmocka_unit_test(the_run_as_a_whole_beats_the_per_kernel_mix),
        cmocka_unit_test(a_mix_that_wins_runs),
        cmocka_unit_test(agreeing_kernels_time_two_candidates),
        cmocka_unit_test(short_repetitions_repeat_rounds),
        cmocka_unit_test(a_changed_mix_is_timed_afresh),
        cmocka_unit_test(stopping_needs_both_uniform_timings),
        cmocka_unit_test(recorded_machines_choose_the_better_assignment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
