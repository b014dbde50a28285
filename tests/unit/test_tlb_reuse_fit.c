/* The reuse fit sizes a TLB level whatever its replacement policy. A small TLB simulator runs
 * the reuse chase's page sequence (every page `slots` times per traversal, in one random cycle)
 * through fully associative LRU and random levels and 16-way modulo- and hash-indexed LRU,
 * random and tree-PLRU levels; the fit must find E within 8% on each, with timing noise, a
 * walk cost that grows with the pages and a burst on one point. The cyclic sweep's midpoint,
 * for contrast, is off by up to 40% on the same levels. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "src/tlb/tlb_reuse_fit.h"

#define WAYS 16

enum policy { FA_LRU, FA_RANDOM, SET_LRU, HASH_LRU, SET_RANDOM, SET_PLRU, HASH_RANDOM, POLICIES };
static const char *const policy_names[POLICIES] = {
    "fa-lru", "fa-random", "set-lru", "hash-lru", "set-random", "set-plru", "hash-random"};

struct tlb_sim {
    enum policy policy;
    unsigned sets, ways;
    long *tag;
    uint64_t *stamp;
    unsigned *plru; /* tree bits per set (15 for 16 ways) */
    uint64_t tick, rng;
};

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void sim_init(struct tlb_sim *t, enum policy p, unsigned entries)
{
    memset(t, 0, sizeof(*t));
    t->policy = p;
    bool full = p == FA_LRU || p == FA_RANDOM;
    t->ways = full ? entries : WAYS;
    t->sets = full ? 1 : entries / WAYS;
    t->tag = malloc(sizeof(long) * entries);
    t->stamp = calloc(entries, sizeof(uint64_t));
    t->plru = calloc(t->sets, sizeof(unsigned));
    for (unsigned i = 0; i < entries; i++)
        t->tag[i] = -1;
    t->rng = 0x9E3779B97F4A7C15ull;
}

static void sim_free(struct tlb_sim *t)
{
    free(t->tag);
    free(t->stamp);
    free(t->plru);
}

static unsigned set_of(const struct tlb_sim *t, long page)
{
    if (t->sets == 1) return 0;
    if (t->policy == HASH_LRU || t->policy == HASH_RANDOM) {
        uint64_t h = (uint64_t)page * 0x9E3779B97F4A7C15ull;
        return (unsigned)((h ^ (h >> 29)) % t->sets);
    }
    return (unsigned)((unsigned long)page % t->sets);
}

/* Tree-PLRU over 16 ways: on use, every node on the way's path points away from it. */
static void plru_touch(unsigned *bits, unsigned way)
{
    unsigned node = 1;
    for (unsigned span = WAYS / 2; span >= 1; span /= 2) {
        unsigned right = (way / span) & 1;
        if (right)
            *bits &= ~(1u << node);
        else
            *bits |= 1u << node;
        node = node * 2 + right;
    }
}

static unsigned plru_victim(unsigned bits)
{
    unsigned node = 1, way = 0;
    for (unsigned span = WAYS / 2; span >= 1; span /= 2) {
        unsigned right = (bits >> node) & 1;
        way += right * span;
        node = node * 2 + right;
    }
    return way;
}

/* One translation: true on a hit. */
static bool sim_access(struct tlb_sim *t, long page)
{
    unsigned set = set_of(t, page);
    long *tag = t->tag + (size_t)set * t->ways;
    uint64_t *stamp = t->stamp + (size_t)set * t->ways;
    t->tick++;
    for (unsigned w = 0; w < t->ways; w++)
        if (tag[w] == page) {
            stamp[w] = t->tick;
            if (t->policy == SET_PLRU) plru_touch(&t->plru[set], w);
            return true;
        }
    unsigned victim = 0;
    bool empty = false;
    for (unsigned w = 0; w < t->ways && !empty; w++)
        if (tag[w] < 0) {
            victim = w;
            empty = true;
        }
    if (!empty) {
        if (t->policy == FA_RANDOM || t->policy == SET_RANDOM || t->policy == HASH_RANDOM)
            victim = (unsigned)(next_random(&t->rng) % t->ways);
        else if (t->policy == SET_PLRU)
            victim = plru_victim(t->plru[set]);
        else
            for (unsigned w = 1; w < t->ways; w++)
                if (stamp[w] < stamp[victim]) victim = w;
    }
    tag[victim] = page;
    stamp[victim] = t->tick;
    if (t->policy == SET_PLRU) plru_touch(&t->plru[set], victim);
    return false;
}

/* The miss fraction of the chase over n pages, `slots` visits per page per traversal in one
 * random cycle (slots = 1: the cyclic sweep). */
static double simulate(enum policy p, unsigned entries, long n, unsigned slots, uint64_t seed)
{
    size_t elements = (size_t)n * slots;
    long *cycle = malloc(sizeof(long) * elements);
    for (size_t i = 0; i < elements; i++)
        cycle[i] = (long)(i / slots);
    for (size_t i = elements; i > 1; i--) {
        size_t j = (size_t)(next_random(&seed) % i);
        long v = cycle[i - 1];
        cycle[i - 1] = cycle[j];
        cycle[j] = v;
    }
    struct tlb_sim t;
    sim_init(&t, p, entries);
    for (int warm = 0; warm < 3; warm++)
        for (size_t i = 0; i < elements; i++)
            sim_access(&t, cycle[i]);
    size_t misses = 0;
    for (int pass = 0; pass < 4; pass++)
        for (size_t i = 0; i < elements; i++)
            misses += !sim_access(&t, cycle[i]);
    sim_free(&t);
    free(cycle);
    return (double)misses / (double)(4 * elements);
}

#define GRID_MAX 64
#define SLOTS 8

/* A grid like the probe's: from half the level's size to three times it, 5% apart. */
static size_t grid(unsigned entries, double *x)
{
    size_t n = 0;
    for (double v = 0.5 * entries; v <= 3.0 * entries && n < GRID_MAX; v *= 1.05)
        x[n++] = floor(v);
    return n;
}

/* Translation ns from a miss fraction: 3 ns base, a 60 ns walk that grows 25% over the range
 * (page-table entries leave the caches), +-3% noise, and one point hit by a burst. */
static void timing(const double *x, const double *miss, size_t n, double *y, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        double walk = 60.0 * (1.0 + 0.25 * log(x[i] / x[0]) / log(x[n - 1] / x[0]));
        double noise = 1.0 + 0.03 * ((double)(next_random(&seed) % 2001) / 1000.0 - 1.0);
        y[i] = (3.0 + walk * miss[i]) * noise;
    }
    y[n / 3] *= 3.0;
}

static void fits_every_policy(void **state)
{
    (void)state;
    static const unsigned sizes[POLICIES] = {256, 256, 2048, 2048, 2048, 2048, 2048};
    for (int p = 0; p < POLICIES; p++) {
        double x[GRID_MAX], miss[GRID_MAX], y[GRID_MAX];
        size_t n = grid(sizes[p], x);
        for (size_t i = 0; i < n; i++)
            miss[i] = simulate((enum policy)p, sizes[p], (long)x[i], SLOTS, 1000 + i);
        timing(x, miss, n, y, 77 + (uint64_t)p);
        struct reuse_fit f;
        reuse_fit_run(x, y, n, SLOTS, &f);
        printf("%-12s E=%u fit %.0f (%+.1f%%), base %.2f walk %.1f rms %.2f dropped %zu\n",
               policy_names[p], sizes[p], f.entries, 100.0 * (f.entries / sizes[p] - 1), f.base_ns,
               f.walk_ns, f.rms_ns, f.dropped);
        assert_true(f.ok);
        assert_true(fabs(f.entries - sizes[p]) <= 0.08 * sizes[p]);
        assert_true(f.dropped >= 1); /* the burst */
    }
}

/* Why the reuse chase exists: on the cyclic sweep (slots = 1) the rise's midpoint moves with
 * the policy, from E (LRU) to ~1.4 E (random replacement). */
static void cyclic_midpoint_depends_on_policy(void **state)
{
    (void)state;
    const unsigned e = 256;
    double mid[2];
    const enum policy ps[2] = {FA_LRU, FA_RANDOM};
    for (int k = 0; k < 2; k++) {
        double prev_x = 0, prev_m = 0;
        mid[k] = NAN;
        for (double v = 0.5 * e; v <= 3.0 * e && isnan(mid[k]); v *= 1.04) {
            double m = simulate(ps[k], e, (long)v, 1, 5);
            if (m >= 0.5) mid[k] = prev_m < 0.5 && prev_x > 0 ? 0.5 * (prev_x + v) : v;
            prev_x = v;
            prev_m = m;
        }
    }
    assert_true(mid[0] <= 1.1 * e);
    assert_true(mid[1] >= 1.3 * e);
}

static void the_model(void **state)
{
    (void)state;
    assert_true(reuse_miss_fraction(1000, 1000, 4) == 0.0);
    assert_true(reuse_miss_fraction(500, 1000, 4) == 0.0);
    assert_true(fabs(reuse_miss_fraction(2000, 1000, 4) - pow(0.5, 0.75)) < 1e-12);
    assert_true(reuse_miss_fraction(1001, 1000, 1) == 1.0); /* cyclic LRU: a step */
}

/* No rise, too few points, a level full before the first point: no size, and a reason. */
static void refuses_what_it_cannot_size(void **state)
{
    (void)state;
    double x[GRID_MAX], y[GRID_MAX];
    size_t n = grid(1024, x);
    struct reuse_fit f;
    for (size_t i = 0; i < n; i++)
        y[i] = 3.0 + 0.05 * (double)(i % 3);
    reuse_fit_run(x, y, n, SLOTS, &f);
    assert_false(f.ok);
    assert_true(f.why[0] != '\0');
    reuse_fit_run(x, y, 5, SLOTS, &f);
    assert_false(f.ok);
    assert_non_null(strstr(f.why, "usable points"));
    for (size_t i = 0; i < n; i++) /* every point already past a level of 100 entries */
        y[i] = 3.0 + 60.0 * reuse_miss_fraction(x[i], 100, SLOTS);
    reuse_fit_run(x, y, n, SLOTS, &f);
    assert_false(f.ok);
    assert_true(f.why[0] != '\0');
}

/* Five consecutive membench --tlb runs on the AMD Zen 5 guest
 * (tests/fixtures/machines/zen5-guest/tlb-zen-reuse-*.json; AMD documents an L1 DTLB of 96 and an
 * L2 DTLB of 4096 entries; its hypervisor's CPUID says 128 for the L2). Each recorded fit is
 * reproduced from the recorded points. The L1 fit is 96 within a page; the L2 fit is within 15% of
 * 4096 (+5 to +12% in these runs: the rise starts at ~4200 and climbs more slowly than the model,
 * its walks getting dearer with the pages) and always nearer to it than the cyclic sweep's midpoint
 * (+36 to +50%). */
static void recorded_zen5_runs(void **state)
{
    (void)state;
    static const double documented[2] = {96, 4096};
    for (int run = 1; run <= 5; run++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/fixtures/machines/zen5-guest/tlb-zen-reuse-%d.json",
                 TESTS_DIR, run);
        json_error_t err;
        json_t *doc = json_load_file(path, 0, &err);
        assert_non_null(doc);
        json_t *tlb = json_object_get(doc, "tlb"), *reuse = json_object_get(tlb, "reuse");
        json_t *l1 = json_array_get(json_object_get(tlb, "levels"), 0);
        unsigned slots = (unsigned)json_integer_value(json_object_get(reuse, "slots"));
        size_t i, j, fits = 0;
        json_t *fit, *p;
        json_array_foreach(json_object_get(reuse, "fits"), i, fit)
        {
            int level = (int)json_integer_value(json_object_get(fit, "level"));
            double lo = json_number_value(json_object_get(fit, "pages_low"));
            double hi = json_number_value(json_object_get(fit, "pages_high"));
            double x[256], y[256];
            size_t n = 0;
            json_array_foreach(json_object_get(reuse, "points"), j, p)
            {
                double pages = json_number_value(json_object_get(p, "pages"));
                if (pages < lo || pages > hi || n == 256) continue;
                x[n] = pages;
                y[n++] = reuse_translation_ns(
                    pages, json_number_value(json_object_get(p, "ns_per_access")),
                    json_number_value(json_object_get(p, "control_ns")),
                    level > 1 ? json_number_value(json_object_get(l1, "entries")) : NAN,
                    level > 1 ? json_number_value(json_object_get(l1, "miss_penalty_ns")) : NAN);
            }
            struct reuse_fit f;
            reuse_fit_run(x, y, n, slots, &f);
            printf("run %d level %d: fit %.0f (%+.1f%%), recorded %lld\n", run, level, f.entries,
                   100.0 * (f.entries / documented[level - 1] - 1),
                   (long long)json_integer_value(json_object_get(fit, "entries")));
            assert_true(f.ok);
            assert_int_equal((long long)floor(f.entries + 0.5),
                             json_integer_value(json_object_get(fit, "entries")));
            assert_true(level >= 1 && level <= 2);
            json_t *lv = json_array_get(json_object_get(tlb, "levels"), (size_t)level - 1);
            if (level == 1) {
                assert_true(fabs(f.entries - documented[0]) <= 1.5);
            } else {
                double midpoint = json_number_value(json_object_get(lv, "entries_midpoint"));
                assert_true(fabs(f.entries - documented[1]) <= 0.15 * documented[1]);
                assert_true(fabs(f.entries - documented[1]) < fabs(midpoint - documented[1]));
            }
            fits++;
        }
        assert_int_equal(fits, 2);
        json_decref(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_model),
        cmocka_unit_test(fits_every_policy),
        cmocka_unit_test(cyclic_midpoint_depends_on_policy),
        cmocka_unit_test(refuses_what_it_cannot_size),
        cmocka_unit_test(recorded_zen5_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
