/* TLB level sizes from recorded sweeps: a sharp knee keeps its onset, a gradual rise reports its
 * midpoint with the onset-90% range, a 2 MB knee below any TLB size is a set conflict. Curves:
 * tests/fixtures/machines/intel-xeon-m207/tlb-sweep.csv (Intel guest: L1 DTLB 96, L2 TLB 2048
 * documented; a copy of bench/tlb-build-vm.csv) and
 * tests/fixtures/machines/zen5-guest/tlb-zen-*.json (membench --tlb --format json on an AMD Zen 5
 * guest). */
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

#include "src/tlb/report_tlb.h"
#include "src/tlb/run_tlb.h"
#include "src/tlb/tlb_knees.h"
#include "src/tlb/tlb_levels.h"
#include "tests/unit/tlb_recorded.h"

/* A recorded run, tests/fixtures/machines/NAME (.csv or .json). */
static void load(const char *name, struct recorded *r)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/fixtures/machines/%s", TESTS_DIR, name);
    recorded_load(path, r);
}

static void analyse(const struct recorded *r, struct knee_analysis *a)
{
    struct knee_params p;
    knee_params_default(&p);
    assert_int_equal(knees_analyse(r->x, r->y, r->n, r->cx, r->cy, r->cn, &p, a), 0);
}

/* Both sweeps through tlb_finish_sweep, as run_tlb and the 2 MB phase call it (no CPUID). */
static void finish_both(const struct recorded *r, struct tlb_result *out,
                        struct tlb_thread_result *t0, const struct cpuid_tlb_info *cpuid)
{
    static struct tlb_plan plan;
    struct knee_params p;
    struct tlb_sweep *s = recorded_finish_4k(r, cpuid, out, t0, &plan, &p);
    const struct knee_level *l1 = &s->analysis.levels[0];
    p.control_tlb_entries = l1->entries_low;
    p.control_tlb_high = l1->entries_high;
    p.control_tlb_penalty_ns = l1->miss_penalty_ns;
    out->huge.page_bytes = 2u << 20;
    recorded_curve(&out->huge.main, r->hx, r->hy, r->hn);
    tlb_finish_sweep(&out->huge, &s->control, &plan, out, TLB_PAGE_2M, &p);
}

/* Intel guest, intel-xeon-m207/tlb-sweep.csv: L1 DTLB 96 (a sharp knee: 96 -> 128 pages), L2 TLB
 * 2048 documented, whose misses begin at ~1600 pages and complete past 2048. The file has no point
 * between 2048 and 3072 (47% and 100% of the rise), so the midpoint is interpolated there. */
static void intel_vm_levels(void **state)
{
    (void)state;
    struct recorded r;
    load("intel-xeon-m207/tlb-sweep.csv", &r);
    assert_true(r.n > 40 && r.cn > 40);
    struct knee_analysis a;
    analyse(&r, &a);
    const struct knee_level *l1 = recorded_level(&a, "L1 DTLB"), *l2 = recorded_level(&a, "L2 TLB");
    assert_non_null(l1);
    assert_non_null(l2);
    print_message("L1 %.0f (%s), L2 %.0f (%.0f-%.0f, %s)\n", l1->entries,
                  l1->sharp ? "sharp" : "gradual", l2->entries, l2->entries_low, l2->rise_high,
                  l2->sharp ? "sharp" : "gradual");
    assert_true(l1->sharp);
    assert_true(l1->entries == 96);
    assert_false(l2->sharp);
    assert_true(fabs(l2->entries - 2048) <= 0.10 * 2048);
    assert_true(l2->entries_low >= 1536 && l2->entries_low < 2048);
    assert_true(l2->rise_high > 2048 && l2->rise_high <= 3072);
    assert_true(l2->entries_low < l2->entries && l2->entries < l2->rise_high);
}

/* The same curve before refinement (grid points only): the rise 1536 -> 2048 -> 3072 spans two
 * intervals, so the refinement asks for points past 2048 too, up to where the rise reached 90%. */
static void intel_vm_refines_past_the_bracket(void **state)
{
    (void)state;
    struct recorded full, r;
    load("intel-xeon-m207/tlb-sweep.csv", &full);
    static const double grid[] = {1,    2,    3,    4,    6,    8,    12,    16,    24,    32,
                                  48,   64,   96,   128,  192,  256,  384,   512,   768,   1024,
                                  1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768};
    memset(&r, 0, sizeof(r));
    for (size_t i = 0; i < full.n; i++)
        for (size_t g = 0; g < sizeof(grid) / sizeof(grid[0]); g++)
            if (full.x[i] == grid[g]) {
                r.x[r.n] = full.x[i];
                r.y[r.n++] = full.y[i];
            }
    for (size_t i = 0; i < full.cn; i++)
        for (size_t g = 0; g < sizeof(grid) / sizeof(grid[0]); g++)
            if (full.cx[i] == grid[g]) {
                r.cx[r.cn] = full.cx[i];
                r.cy[r.cn++] = full.cy[i];
            }
    assert_int_equal(r.n, 30);
    struct knee_analysis a;
    analyse(&r, &a);
    struct knee_params p;
    knee_params_default(&p);
    double extra[128];
    size_t m = knees_refine(&a, &p, r.x, r.n, extra, 128);
    int past_2048 = 0;
    for (size_t i = 0; i < m; i++)
        past_2048 += extra[i] > 2048 && extra[i] < 3072;
    assert_true(past_2048 >= 4);
}

/* The 2 MB sweep in that guest: a knee at 6 pages. 2 MB-strided pages share one set of the
 * 6-way L1 DTLB (the host splits them into 4 KB pieces): an associativity, not a level. */
static void intel_vm_2m_set_conflict(void **state)
{
    (void)state;
    struct recorded r;
    load("intel-xeon-m207/tlb-sweep.csv", &r);
    assert_true(r.hn > 20);
    struct tlb_result out;
    struct tlb_thread_result t0;
    finish_both(&r, &out, &t0, NULL);
    assert_true(out.huge.analysed);
    const struct knee_level *c = &out.huge.analysis.levels[0];
    assert_string_equal(c->name, "set conflict");
    assert_int_equal(c->set_conflict_ways, 6);
    assert_true(isnan(c->entries));
    assert_true(isnan(out.huge.reach_bytes[0]));
    /* the 4 KB levels are untouched */
    assert_string_equal(t0.small.analysis.levels[0].name, "L1 DTLB");
    assert_true(t0.small.analysis.levels[0].entries == 96);
    recorded_release(&out);
}

/* What the text and JSON say of those levels. */
static void intel_vm_report(void **state)
{
    (void)state;
    struct recorded r;
    load("intel-xeon-m207/tlb-sweep.csv", &r);
    struct tlb_result out;
    struct tlb_thread_result t0;
    finish_both(&r, &out, &t0, NULL);
    char *text = recorded_report_text(&out);
    assert_non_null(strstr(text, "L1 DTLB: 96 entries (sharp knee), "));
    /* no point between 2048 and 3072: the half-way point (2098) could lie anywhere up to 3072 */
    assert_non_null(strstr(text, "L2 TLB: 1664-3072 entries (the curves do not decide: misses "
                                 "begin at 1664 pages, the cyclic sweep's rise is half-way at "
                                 "2098), "));
    assert_non_null(strstr(text, "set conflict: 6-way set conflict (pages 2 MB apart share one "
                                 "set: the set's associativity, not a TLB size)"));
    /* the level after it is not "when the set conflict misses" */
    assert_null(strstr(text, "when the set conflict misses"));
    free(text);
    json_t *doc = report_tlb_json(&out);
    json_t *l2 = json_array_get(json_object_get(doc, "levels"), 1);
    assert_int_equal(json_integer_value(json_object_get(l2, "entries")), 2098);
    /* the bracket: every size the curves allow; the cyclic rise beside it */
    assert_int_equal(json_integer_value(json_object_get(l2, "entries_low")), 1664);
    assert_int_equal(json_integer_value(json_object_get(l2, "entries_high")), 3072);
    assert_string_equal(json_string_value(json_object_get(l2, "entries_method")), "midpoint");
    assert_true(json_is_false(json_object_get(l2, "entries_decided")));
    assert_int_equal(json_integer_value(json_object_get(l2, "onset_pages")), 1664);
    assert_int_equal(json_integer_value(json_object_get(l2, "entries_midpoint")), 2098);
    assert_int_equal(json_integer_value(json_object_get(l2, "rise_end_pages")), 2846);
    json_t *c = json_array_get(
        json_object_get(json_object_get(json_object_get(doc, "huge"), "sweep"), "levels"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "name")), "set conflict");
    assert_int_equal(json_integer_value(json_object_get(c, "set_conflict_ways")), 6);
    assert_true(json_is_null(json_object_get(c, "entries")));
    json_decref(doc);
    recorded_release(&out);
}

/* A 2 MB knee at 64 pages is no set conflict: that many pages exceed any TLB's ways. */
static void big_2m_knee_is_a_level(void **state)
{
    (void)state;
    struct recorded r;
    load("intel-xeon-m207/tlb-sweep.csv", &r);
    for (size_t i = 0; i < r.hn; i++)
        r.hy[i] = r.hx[i] <= 64 ? 1.7 : r.hx[i] <= 1024 ? 4.1 : 40.0;
    struct tlb_result out;
    struct tlb_thread_result t0;
    finish_both(&r, &out, &t0, NULL);
    const struct knee_level *l1 = &out.huge.analysis.levels[0];
    assert_string_equal(l1->name, "L1 DTLB");
    assert_int_equal(l1->set_conflict_ways, 0);
    assert_true(l1->entries == 64);
    recorded_release(&out);
}

/* AMD Zen 5 guest (family 0x1a model 2), `membench --tlb --format json` at load 6.5-9
 * (tlb-zen-1..4: four consecutive runs; tlb-zen-5: the first of the five in bench/RESULTS.md).
 * AMD documents a 96-entry fully associative L1 DTLB and a 4096-entry L2 DTLB (the hypervisor's
 * CPUID leaf 0x80000006 says 128). L1: a sharp knee at 96 in every run. L2: misses begin at
 * 3456-4096 pages and reach 90% by 6389-7855, a gradual rise whose midpoint (5072-6642) lies
 * 24-62% above 4096: here the documented size sits at the onset end of the range. */
static void zen_levels(void **state)
{
    (void)state;
    for (int f = 1; f <= 5; f++) {
        char name[64];
        snprintf(name, sizeof(name), "zen5-guest/tlb-zen-%d.json", f);
        struct recorded r;
        load(name, &r);
        struct knee_analysis a;
        analyse(&r, &a);
        const struct knee_level *l1 = recorded_level(&a, "L1 DTLB"),
                                *l2 = recorded_level(&a, "L2 TLB");
        assert_non_null(l1);
        assert_non_null(l2);
        print_message("%s: L1 %.0f (%s), L2 %.0f (%.0f-%.0f, %s)\n", name, l1->entries,
                      l1->sharp ? "sharp" : "gradual", l2->entries, l2->entries_low, l2->rise_high,
                      l2->sharp ? "sharp" : "gradual");
        assert_true(l1->sharp && l1->entries == 96);
        assert_false(l2->sharp);
        assert_true(l2->entries_low <= 4096 && 4096 <= l2->rise_high);
        assert_true(l2->entries > 1.2 * 4096 && l2->entries < 1.7 * 4096);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(intel_vm_levels),
        cmocka_unit_test(intel_vm_refines_past_the_bracket),
        cmocka_unit_test(intel_vm_2m_set_conflict),
        cmocka_unit_test(intel_vm_report),
        cmocka_unit_test(big_2m_knee_is_a_level),
        cmocka_unit_test(zen_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
