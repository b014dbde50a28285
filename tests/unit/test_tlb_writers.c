/* The TLB writers format fixed results byte for byte as the golden files say: a two-thread
 * sweep with its 2 MB sweep, splinter check and page-walk throughput; a single point; a plan
 * (--dry-run). Regenerate after an intended change with UPDATE_GOLDEN=1 and review the diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "src/base/page_sizes.h"
#include "tests/unit/golden.h"
#include "tests/unit/tlb_recorded.h"

#include "src/tlb/report_tlb.h"
#include "src/tlb/tlb_knee_levels.h"

#define MAIN_N 6
static struct tlb_point main_pts[2][MAIN_N], control_pts[2][MAIN_N], huge_pts[4];
static struct tlb_thread_result threads[2];

static void fill_curve(struct tlb_point *pts, size_t n, const double *x, const double *ns,
                       size_t refined_from)
{
    for (size_t i = 0; i < n; i++)
        pts[i] = (struct tlb_point){.pages = x[i],
                                    .min_ns = ns[i],
                                    .median_ns = ns[i] * 1.05,
                                    .ns_per_access = ns[i],
                                    .samples = 5,
                                    .disturbed_chunks = (int)(i % 2),
                                    .refined = i >= refined_from};
}

static void fill_levels(struct tlb_sweep *s, double l1, double l2)
{
    struct knee_analysis *a = &s->analysis;
    s->analysed = true;
    a->has_control = true;
    a->control_clean_until = 4096;
    a->n_levels = 3;
    a->levels[0] = (struct knee_level){.name = "L1 DTLB",
                                       .entries = l1,
                                       .entries_low = l1,
                                       .entries_high = l1 * 1.5,
                                       .size_low = l1,
                                       .size_high = l1 * 1.5,
                                       .rise_high = l1 * 1.5,
                                       .half_x = l1 * 1.25,
                                       .sharp = true,
                                       .complete_x = l1 * 2,
                                       .approx = true,
                                       .hit_ns = 1.25,
                                       .miss_penalty_ns = 2.5,
                                       .max_penalty_ns = NAN,
                                       .at_x = NAN};
    a->levels[1] = (struct knee_level){.name = "L2 TLB",
                                       .entries = l2,
                                       .entries_low = l2,
                                       .entries_high = l2 + 1,
                                       .size_low = l2,
                                       .size_high = l2 + 1,
                                       .rise_high = l2 + 1,
                                       .half_x = l2 + 0.5,
                                       .sharp = true,
                                       .complete_x = NAN,
                                       .hit_ns = 3.75,
                                       .miss_penalty_ns = 9.5,
                                       .max_penalty_ns = NAN,
                                       .at_x = NAN};
    a->levels[2] = (struct knee_level){.name = "page walk",
                                       .entries = NAN,
                                       .size_low = NAN,
                                       .size_high = NAN,
                                       .entries_high = NAN,
                                       .complete_x = NAN,
                                       .hit_ns = NAN,
                                       .miss_penalty_ns = 9.5,
                                       .max_penalty_ns = 31.0,
                                       .at_x = 32768};
    a->n_main_knees = 2;
    a->main_knees[0] = (struct knee){.kind = KNEE_TLB,
                                     .last_low = l1,
                                     .first_high = l1 * 1.5,
                                     .step_ns = 2.5,
                                     .control_step_ns = 0.1,
                                     .tlb_step_ns = 2.4};
    a->main_knees[1] = (struct knee){.kind = KNEE_CACHE,
                                     .last_low = 512,
                                     .first_high = 768,
                                     .step_ns = 1.0,
                                     .control_step_ns = 1.0,
                                     .tlb_step_ns = NAN};
    s->documented[0] = 64;
    s->agrees[0] = knee_level_agrees(&a->levels[0], 64); /* the one rule, as tlb_levels.c */
    s->documented[1] = 2048;
    s->agrees[1] = knee_level_agrees(&a->levels[1], 2048);
    s->agrees[2] = -1;
    s->reach_bytes[0] = l1 * (double)s->page_bytes;
    s->reach_bytes[1] = l2 * (double)s->page_bytes;
    s->reach_bytes[2] = NAN;
    s->n_cache_knees = 1;
    s->cache_knees[0] = (struct tlb_cache_knee){
        .last_low = 512, .first_high = 1024, .step_ns = 1.0, .label = "L1d 48 KiB = 768 lines"};
}

/* The L1 DTLB's sharp knee is confirmed by the reuse fit (inside its bracket), so it keeps its
 * onset. The L2 TLB rose gradually: the reuse chase sized it on thread 0; on thread 1 its fit
 * found no size and the midpoint stays. */
#define REUSE_N 4
static struct tlb_point reuse_pts[2][REUSE_N], reuse_control_pts[2][REUSE_N];

static void fill_reuse(struct tlb_sweep *s, int thread)
{
    static const double x[REUSE_N] = {1024, 1536, 2048, 3072};
    static const double ns[REUSE_N] = {6.0, 6.25, 9.5, 30.0};
    static const double cns[REUSE_N] = {4.0, 4.0, 4.0, 4.125};
    fill_curve(reuse_pts[thread], REUSE_N, x, ns, REUSE_N);
    fill_curve(reuse_control_pts[thread], REUSE_N, x, cns, REUSE_N);
    s->reuse_slots = 8;
    s->reuse = (struct tlb_curve){REUSE_N, reuse_pts[thread]};
    s->reuse_control = (struct tlb_curve){REUSE_N, reuse_control_pts[thread]};
    struct knee_level *l2 = &s->analysis.levels[1];
    l2->sharp = false;
    l2->approx = true;
    l2->rise_high = 2846;
    l2->midpoint = 2098;
    l2->entries = thread ? 2098 : 2030;
    l2->size_low = l2->entries_low; /* onset 1536 to the first point past the midpoint */
    l2->size_high = 2304;
    l2->half_x = 2098;
    s->agrees[1] = knee_level_agrees(l2, s->documented[1]); /* 2048 lies in the range */
    l2->reuse_sized = !thread;
    s->reach_bytes[1] = l2->entries * (double)s->page_bytes;
    s->reuse_levels[0] = (struct tlb_reuse_level){.planned = true,
                                                  .pages_low = 38,
                                                  .pages_high = 192,
                                                  .fit = {.ok = true,
                                                          .entries = 66.2,
                                                          .base_ns = 0.0,
                                                          .walk_ns = 2.5,
                                                          .rms_ns = 0.02,
                                                          .points = 30}};
    struct tlb_reuse_level *r = &s->reuse_levels[1];
    r->planned = true;
    r->pages_low = 921;
    r->pages_high = 4608;
    r->fit = (struct reuse_fit){.ok = !thread,
                                .entries = thread ? NAN : 2030.4,
                                .base_ns = 2.0,
                                .walk_ns = 40.5,
                                .rms_ns = 0.25,
                                .points = 3,
                                .dropped = 1};
    if (thread)
        snprintf(r->fit.why, sizeof(r->fit.why),
                 "the fitted rise (0.40 ns) is within 4x the scatter of the points (0.25 ns)");
}

static void fill_cpuid(struct cpuid_tlb_info *c)
{
    snprintf(c->vendor, sizeof(c->vendor), "GenuineIntel");
    c->family = 6;
    c->model = 143;
    c->hypervisor = true;
    snprintf(c->source, sizeof(c->source), "CPUID leaf 0x18");
    c->n = 2;
    c->e[0] = (struct cpuid_tlb_entry){1, 'L', TLB_PAGE_4K | TLB_PAGE_2M, 64, 4};
    c->e[1] = (struct cpuid_tlb_entry){2, 'U', TLB_PAGE_4K | TLB_PAGE_2M, 2048, 16};
}

/* A plan's memory and time: the 4 KB part and the throughput phase of `threads` threads,
 * and a 2 MB sweep of huge_pages when not 0. */
static void fill_cost(struct tlb_cost *c, uint64_t basis, int threads, uint64_t pages,
                      uint64_t huge_pages)
{
    *c = (struct tlb_cost){.known = true, .share = 0.10, .basis_bytes = basis};
    c->bound_bytes = basis / 10;
    c->item[TLB_COST_SMALL] = (struct tlb_cost_item){
        true, "4k", 4096, pages, threads, (uint64_t)threads * pages * 4256, 12.5};
    if (huge_pages)
        c->item[TLB_COST_HUGE] = (struct tlb_cost_item){
            true, "thp", 2 << 20, huge_pages, 1, huge_pages * (2 << 20), 6.25};
    c->item[TLB_COST_THROUGHPUT] = (struct tlb_cost_item){
        true, "4k, thp", 4096, 32768, threads, (uint64_t)threads * (256u << 20), 1.5};
    if (threads == 1 && huge_pages) /* a sweep on one thread: the stride probe too */
        c->item[TLB_COST_SETS] =
            (struct tlb_cost_item){true, "4k", 4096, 1229, 1, 2 * 1229 * 4096, 6.0};
    tlb_cost_total(c);
}

static struct tlb_result sweep_result(void)
{
    static const double x[MAIN_N] = {1, 16, 64, 96, 1536, 32768};
    static const double ns[2][MAIN_N] = {{1.25, 1.25, 1.3, 3.75, 4.0, 40.5},
                                         {1.3, 1.25, 1.35, 3.8, 4.1, 41.0}};
    static const double cns[MAIN_N] = {1.2, 1.2, 1.25, 1.3, 2.25, 4.0};
    static const double hx[4] = {1, 8, 32, 1024}, hns[4] = {1.2, 1.25, 2.5, 12.0};
    struct tlb_result t = {0};
    t.measured = true;
    t.opts = (struct tlb_options){.enabled = true,
                                  .cpu = -1,
                                  .order = TLB_ORDER_RANDOM,
                                  .stagger = true,
                                  .mode = TLB_MODE_CHASE,
                                  .repeat = 5,
                                  .max_pages = 32768};
    t.pages_name = "4k";
    t.multi = true;
    t.threads = 2;
    snprintf(t.bind, sizeof(t.bind), "scatter");
    t.max_pages = 32768;
    t.max_huge_pages = 1024;
    t.chunk_target_s = 0.0005;
    t.chunks_per_sample = 20;
    t.seconds = 12.25;
    t.tsc_ghz = 2.1;
    t.core_ghz = 3.0;
    t.timer_call_s = 20e-9;
    t.locality = (struct page_locality){
        .verified = true, .pages_sampled = 16, .pages_local = 16, .local_fraction = 1.0};
    t.backing = (struct backing_info){.page_size_bytes = 4096,
                                      .verified = true,
                                      .thp_fraction = 0,
                                      .rss_bytes = 128 << 20,
                                      .how = "mmap, MADV_NOHUGEPAGE"};
    fill_cpuid(&t.cpuid);
    t.l1d_bytes = 48 << 10;
    t.l2_bytes = 2 << 20;
    t.l3_bytes = 105 << 20;
    for (int i = 0; i < 2; i++) {
        struct tlb_thread_result *r = &threads[i];
        memset(r, 0, sizeof(*r));
        r->thread = i;
        r->planned_pu = r->pu = 2 * i;
        r->core = i;
        r->bound = true;
        r->small.page_bytes = 4096;
        fill_curve(main_pts[i], MAIN_N, x, ns[i], 4);
        fill_curve(control_pts[i], MAIN_N, x, cns, 4);
        r->small.main = (struct tlb_curve){MAIN_N, main_pts[i]};
        r->small.control = (struct tlb_curve){MAIN_N, control_pts[i]};
        r->small.control_owned = true;
        fill_levels(&r->small, i ? 96 : 64, 1536);
        fill_reuse(&r->small, i);
    }
    t.n_threads = 2;
    t.per_thread = threads;
    tlb_compare_threads(&t); /* thread 1's L1 DTLB: 96 entries, documented 64 */
    assert_int_equal(t.n_differ, 1);
    t.huge_measured = true;
    t.huge_backing = (struct backing_info){.page_size_bytes = 2 << 20,
                                           .verified = true,
                                           .thp_fraction = 0.995,
                                           .rss_bytes = 2048ull << 20,
                                           .anon_huge_bytes = 2038ull << 20,
                                           .how = "transparent huge pages (madvise)"};
    t.huge.page_bytes = 2 << 20;
    fill_curve(huge_pts, 4, hx, hns, 3);
    t.huge.main = (struct tlb_curve){4, huge_pts};
    t.huge.control = threads[0].small.control;
    fill_levels(&t.huge, 32, 1024);
    t.huge.n_cache_knees = 0;
    snprintf(t.huge.note, sizeof(t.huge.note),
             "the 2 MB sweep stops at 1024 pages, not 4096: the default probe maps at most "
             "10%% of MemAvailable 21.0 GiB; --tlb-max-pages N takes it to N/8 pages");
    t.splinter = (struct tlb_splinter){
        .measured = true, .at = 512, .huge_ns = 1.5, .small_ns = 4.0, .control_ns = 1.3};
    t.huge_extends_reach = 1;
    snprintf(t.reach_note, sizeof(t.reach_note),
             "2 MB pages are translated whole (512 pieces of one 2 MB page cost 1.50 ns, like "
             "the control's 1.30 ns); first-level reach 64 MiB with 2 MB pages against 256 KiB "
             "with 4 KB pages");
    t.walk[0] = (struct tlb_throughput){.page_bytes = 4096,
                                        .measured = true,
                                        .region_bytes = 128 << 20,
                                        .threads = 2,
                                        .best_accesses_per_s = 2.5e8,
                                        .median_accesses_per_s = 2.25e8};
    t.walk[1] = (struct tlb_throughput){.page_bytes = 2 << 20,
                                        .why = "transparent huge pages are off ([never])"};
    t.n_warnings = 1;
    snprintf(t.warnings[0], sizeof(t.warnings[0]), "thread 1 was not kept on PU 2 (ran on 3)");
    fill_cost(&t.cost, 8ull << 30, 2, 4096, 0);
    t.sets.level = -1;
    t.sets.entries = NAN;
    snprintf(t.sets.why, sizeof(t.sets.why), "not run: --tlb-mode inc");
    return t;
}

/* A stride probe that found a low-bit index: 1536 entries from two scans, the sweep's L2 TLB
 * resized from the 1400 it read. */
static void fill_sets(struct tlb_sets *s)
{
    memset(s, 0, sizeof(*s));
    s->run = true;
    s->pages = 256;
    for (unsigned k = 1; k <= 256; k *= 2) {
        s->stride[s->n_strides] = k;
        s->ns[s->n_strides++] = k < 8 ? 4.0 : 24.0;
    }
    s->base_ns = 4.0;
    s->full_ns = 24.0;
    s->conflict_stride = 8;
    for (int i = 0; i < 2; i++) {
        struct tlb_sets_scan *sc = &s->scan[i];
        sc->stride = i ? 4 : 8;
        sc->n = 2;
        sc->pages[0] = i ? 380 : 190;
        sc->pages[1] = i ? 390 : 195;
        sc->ns[0] = 4.0;
        sc->ns[1] = 24.0;
        sc->capacity = i ? 384.5 : 192;
        sc->entries = sc->capacity * sc->stride;
    }
    s->index = TLB_SETS_LOW_BITS;
    s->entries = 1537;
    s->level = 1;
    s->level_was = 1400;
    s->seconds = 2.5;
}

static void stride_probe(void **state)
{
    (void)state;
    struct tlb_result t = sweep_result();
    fill_sets(&t.sets);
    struct knee_level *l2 = &threads[0].small.analysis.levels[1];
    l2->entries = 1537;
    l2->stride_sized = true;
    size_t len;
    char *text = tlb_written(report_tlb_text, &t, &len);
    assert_non_null(strstr(text, "L2 TLB: 1537 entries (stride probe: low-bit set index)"));
    assert_non_null(strstr(text, "misses from stride 8: +20.0 ns a page"));
    assert_non_null(strstr(text, "set index: the low page-number bits (192 pages 8 apart and 384 "
                                 "pages 4 apart fill the level: 1536 and 1538 entries): 1537 "
                                 "entries = L2 TLB (the sweep read 1400)"));
    free(text);
    json_t *doc = report_tlb_json(&t), *sets = json_object_get(doc, "sets");
    assert_string_equal(json_string_value(json_object_get(sets, "index")), "low bits");
    assert_int_equal(json_integer_value(json_object_get(sets, "entries")), 1537);
    assert_string_equal(json_string_value(json_object_get(sets, "level")), "L2 TLB");
    assert_int_equal(json_integer_value(json_object_get(sets, "level_was")), 1400);
    assert_int_equal(json_array_size(json_object_get(sets, "scans")), 2);
    assert_int_equal(json_array_size(json_object_get(sets, "strides")), 9);
    json_t *level = json_array_get(json_object_get(doc, "levels"), 1);
    assert_string_equal(json_string_value(json_object_get(level, "entries_method")),
                        "stride probe");
    json_decref(doc);
    /* a hashed index: the sweep's sizes stand, and why */
    t.sets.index = TLB_SETS_NOT_LOW_BITS;
    t.sets.conflict_stride = 0;
    t.sets.entries = NAN;
    t.sets.level = -1;
    snprintf(t.sets.why, sizeof(t.sets.why), "no stride made them miss");
    l2->stride_sized = false;
    doc = report_tlb_json(&t);
    sets = json_object_get(doc, "sets");
    assert_string_equal(json_string_value(json_object_get(sets, "index")), "not low bits");
    assert_true(json_is_null(json_object_get(sets, "entries")));
    assert_true(json_is_null(json_object_get(sets, "conflict_stride")));
    assert_string_equal(json_string_value(json_object_get(sets, "why")),
                        "no stride made them miss");
    json_decref(doc);
}

static struct tlb_result point_result(void)
{
    static const double x[1] = {64}, ns[1] = {1.5};
    struct tlb_result t = sweep_result();
    t.opts.pages = 64;
    t.opts.trials = 2000;
    t.opts.order = TLB_ORDER_SEQ;
    t.opts.mode = TLB_MODE_INC;
    t.opts.cpu = 3;
    t.opts.cpu_given = true;
    t.single_point = true;
    t.multi = false;
    t.threads = 1;
    t.n_threads = 1;
    snprintf(t.bind, sizeof(t.bind), "PU 3 (--cpu)");
    threads[0].planned_pu = threads[0].pu = 3;
    fill_curve(main_pts[0], 1, x, ns, 1);
    threads[0].small.main.n = 1;
    threads[0].small.control.n = 0;
    threads[0].small.reuse.n = threads[0].small.reuse_control.n = 0;
    threads[0].small.reuse_slots = 0;
    threads[0].small.analysed = false;
    threads[0].small.analysis.n_levels = 0;
    t.trials = 2000;
    t.sample_s = 0.002;
    t.core_ghz = 0;
    t.huge_measured = false;
    t.walk[0].measured = false;
    fill_cost(&t.cost, 0, 1, 64, 0); /* MemAvailable unknown */
    t.cost.single_point = t.cost.explicit_size = true;
    t.cost.item[TLB_COST_THROUGHPUT].planned = false;
    tlb_cost_total(&t.cost);
    return t;
}

static struct tlb_result planned_result(void)
{
    struct tlb_result t = {0};
    t.opts = (struct tlb_options){.enabled = true,
                                  .cpu = -1,
                                  .order = TLB_ORDER_RANDOM,
                                  .stagger = false,
                                  .mode = TLB_MODE_CHASE,
                                  .repeat = 5,
                                  .max_pages = 4096};
    t.pages_name = "default";
    t.threads = 1;
    snprintf(t.bind, sizeof(t.bind), "PU 0 (first planned PU)");
    t.max_pages = 4096;
    t.chunk_target_s = 0.0005;
    t.chunks_per_sample = 20;
    snprintf(t.huge_why, sizeof(t.huge_why), "the sweep itself uses --pages default");
    snprintf(t.cpuid.vendor, sizeof(t.cpuid.vendor), "AuthenticAMD");
    snprintf(t.cpuid.why, sizeof(t.cpuid.why), "CPUID reports no TLB under this hypervisor");
    threads[0] = (struct tlb_thread_result){.thread = 0, .planned_pu = 0, .pu = 0, .core = 0};
    t.n_threads = 1;
    t.per_thread = threads;
    fill_cost(&t.cost, 3ull << 30, 1, 4096, 140); /* a cgroup's headroom, the 2 MB sweep cut */
    t.cost.by_cgroup = true;
    snprintf(t.cost.note, sizeof(t.cost.note),
             "the 2 MB sweep stops at 140 pages, not 512: the default probe maps at most 10%% of "
             "the 3.0 GiB this process's memory cgroup still allows; --tlb-max-pages N takes it "
             "to N/8 pages");
    return t;
}

typedef void (*file_writer)(FILE *, const struct tlb_result *);

static void check(file_writer writer, const struct tlb_result *t, const char *name)
{
    size_t len = 0;
    char *text = tlb_written(writer, t, &len);
    golden_compare(name, text, len);
    if (strstr(name, ".csv")) { /* unmeasured fields are empty, as in the STREAM CSV */
        assert_null(strstr(text, "nan"));
        assert_null(strstr(text, "inf"));
    }
    free(text);
}

static void json_writer(FILE *out, const struct tlb_result *t)
{
    json_t *o = report_tlb_json(t);
    assert_non_null(o);
    assert_int_equal(
        json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9)), 0);
    fputc('\n', out);
    json_decref(o);
}

/* Every writer of one result against its golden files: STEM.txt, STEM-quiet.txt, STEM.csv,
 * STEM.json. */
static void check_writers(const struct tlb_result *t, const char *stem)
{
    static const struct {
        file_writer writer;
        const char *suffix;
    } writers[] = {{report_tlb_text, ".txt"},
                   {report_tlb_quiet, "-quiet.txt"},
                   {report_tlb_csv, ".csv"},
                   {json_writer, ".json"}};
    for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s%s", stem, writers[i].suffix);
        check(writers[i].writer, t, name);
    }
}

static void sweep(void **state)
{
    (void)state;
    struct tlb_result t = sweep_result();
    check_writers(&t, "tlb");
}

/* A gradual level the reuse chase could not size keeps its midpoint, and says why; its range
 * (onset 1536 to 2304, past the midpoint) is wider than 1.25x, so the text gives the range. */
static void reuse_fit_failed(void **state)
{
    (void)state;
    struct tlb_result t = sweep_result();
    struct tlb_sweep *s = &t.per_thread[0].small;
    s->analysis.levels[1].reuse_sized = false;
    s->analysis.levels[1].entries = 2098;
    s->reuse_levels[1].fit.ok = false;
    snprintf(s->reuse_levels[1].fit.why, sizeof(s->reuse_levels[1].fit.why),
             "3 usable points, 8 needed");
    char *text = tlb_written(report_tlb_text, &t, NULL);
    assert_non_null(strstr(text,
                           "L2 TLB: 1536-2304 entries (the curves do not decide: misses begin "
                           "at 1536 pages, the cyclic sweep's rise is half-way at 2098; no "
                           "reuse fit: 3 usable points, 8 needed)"));
    assert_non_null(
        strstr(text, "  L2 TLB fit: none over 921-4608 pages: 3 usable points, 8 needed"));
    /* a fitted base a hair below zero (a real run's L1 DTLB: -0.001 ns) */
    s->reuse_levels[0].fit.base_ns = -0.001;
    free(text);
    text = tlb_written(report_tlb_text, &t, NULL);
    assert_non_null(strstr(text, "  L1 DTLB fit: 66 entries (+0.00 ns until then, "));
    free(text);
    json_t *o = report_tlb_json(&t);
    json_t *l2 = json_array_get(json_object_get(o, "levels"), 1);
    assert_string_equal(json_string_value(json_object_get(l2, "entries_method")), "midpoint");
    assert_int_equal(json_integer_value(json_object_get(l2, "entries")), 2098);
    assert_true(json_is_false(json_object_get(l2, "entries_decided")));
    assert_int_equal(json_integer_value(json_object_get(l2, "entries_low")), 1536);
    assert_int_equal(json_integer_value(json_object_get(l2, "entries_high")), 2304);
    json_t *fit = json_array_get(json_object_get(json_object_get(o, "reuse"), "fits"), 1);
    assert_true(json_is_false(json_object_get(fit, "ok")));
    assert_true(json_is_null(json_object_get(fit, "entries")));
    json_decref(o);
}

/* A sweep on a 64 KB base page with 512 MB PMD pages (arm64): every size in the text, the CSV
 * and the JSON is the machine's; only the CPUID line keeps the sizes CPUID documents. */
static void sweep_64k(void **state)
{
    (void)state;
    page_sizes_inject(65536, "/nonexistent", NULL); /* no hpage_pmd_size: 64 KB -> 512 MB */
    struct tlb_result t = sweep_result();
    for (int i = 0; i < t.n_threads; i++)
        t.per_thread[i].small.page_bytes = 65536;
    t.backing.page_size_bytes = 65536;
    t.huge.page_bytes = t.huge_backing.page_size_bytes = 512ull << 20;
    t.walk[0].page_bytes = 65536;
    t.walk[1].page_bytes = 512ull << 20;
    t.cost.item[TLB_COST_SMALL].page_bytes = t.cost.item[TLB_COST_THROUGHPUT].page_bytes = 65536;
    t.reach_note[0] = '\0'; /* the fixture's own words, of a 4 KB machine */
    t.huge.note[0] = '\0';
    char *text = tlb_written(report_tlb_text, &t, NULL);
    assert_non_null(strstr(text, "(page p uses line p mod 1024)"));
    assert_non_null(strstr(text, "in 1024x fewer 64 KB pages"));
    assert_non_null(strstr(text, "512 MB pages ("));
    assert_non_null(strstr(text, "one per 64 KB page of 128 MiB"));
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "documented TLBs")) continue;
        for (const char *p = line; (p = strstr(p, "4 KB")) != NULL; p++)
            if (!(p > line && p[-1] >= '0' && p[-1] <= '9')) fail_msg("%s", line);
        assert_null(strstr(line, " 2 MB"));
    }
    free(text);
    char *csv = tlb_written(report_tlb_csv, &t, NULL);
    assert_non_null(strstr(csv, "\n4k,0,"));
    assert_non_null(strstr(csv, ",65536,"));
    assert_non_null(strstr(csv, ",536870912,"));
    free(csv);
    page_sizes_inject(4096, NULL, NULL);
}

/* aarch64 names its core by the MIDR (hex, as /proc/cpuinfo shows it), never by x86's family. */
static void midr_model_line(void **state)
{
    (void)state;
    struct tlb_result t = sweep_result();
    memset(&t.cpuid, 0, sizeof(t.cpuid));
    t.cpuid.from_midr = true;
    snprintf(t.cpuid.vendor, sizeof(t.cpuid.vendor), "ARM");
    t.cpuid.family = 0x41;
    t.cpuid.model = 0xd0b;
    snprintf(t.cpuid.why, sizeof(t.cpuid.why), "part not in the table");
    char *text = tlb_written(report_tlb_text, &t, NULL);
    assert_non_null(strstr(text, "CPU model: ARM implementer 0x41 part 0xd0b; documented TLBs: "
                                 "unknown (part not in the table)"));
    assert_null(strstr(text, "family"));
    free(text);
    t.cpuid.vendor[0] = '\0';
    t.cpuid.family = t.cpuid.model = 0;
    text = tlb_written(report_tlb_text, &t, NULL);
    assert_non_null(strstr(text, "CPU model: unknown; documented TLBs: unknown"));
    free(text);
}

static void single_point(void **state)
{
    (void)state;
    struct tlb_result t = point_result();
    check_writers(&t, "tlb-point");
}

static void planned(void **state)
{
    (void)state;
    struct tlb_result t = planned_result();
    check_writers(&t, "tlb-planned");
}

/* Keys of o, and recursively of its objects and of the objects in its arrays, as "a.b[].c"
 * paths, into keys (sorted, unique): what a reader of the JSON may look up. */
static void key_paths(json_t *o, const char *prefix, json_t *keys)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        char path[256];
        snprintf(path, sizeof(path), "%s%s", prefix, key);
        json_object_set_new(keys, path, json_true());
        char sub[260];
        if (json_is_object(v)) {
            snprintf(sub, sizeof(sub), "%s.", path);
            key_paths(v, sub, keys);
        }
        size_t i;
        json_t *e;
        snprintf(sub, sizeof(sub), "%s[].", path);
        json_array_foreach(v, i, e) if (json_is_object(e)) key_paths(e, sub, keys);
    }
}

static bool has_path(json_t *keys, const char *path)
{
    return json_object_get(keys, path) != NULL;
}

/* What a run did not measure is null, never left out: a plan (--dry-run), a single point and
 * a sweep give the same top-level keys; a level, a page-walk entry and a level of the 2 MB
 * sweep the same keys; a measured and an unmeasured throughput or 2 MB sweep the same keys. */
static void nothing_omitted(void **state)
{
    (void)state;
    json_t *keys[3];
    for (int k = 0; k < 3; k++) {
        /* one at a time: they share the fixture's threads */
        struct tlb_result r = k == 0 ? sweep_result() : k == 1 ? point_result() : planned_result();
        json_t *doc = report_tlb_json(&r);
        keys[k] = json_object();
        const char *key;
        json_t *v;
        json_object_foreach(doc, key, v) json_object_set_new(keys[k], key, json_true());
        if (k == 0) {
            json_t *all = json_object();
            key_paths(doc, "", all);
            /* every object of one kind has the same keys wherever it is */
            json_t *levels[3] = {
                json_object_get(doc, "levels"),
                json_object_get(json_object_get(json_object_get(doc, "huge"), "sweep"), "levels"),
                json_object_get(
                    json_object_get(json_array_get(json_object_get(doc, "threads"), 1), "sweep"),
                    "levels")};
            json_t *first = json_array_get(levels[0], 0);
            for (int l = 0; l < 3; l++) {
                size_t i;
                json_t *lv;
                json_array_foreach(levels[l], i, lv)
                {
                    assert_int_equal(json_object_size(lv), json_object_size(first));
                    json_object_foreach(first, key, v) assert_non_null(json_object_get(lv, key));
                }
            }
            json_t *walk = json_object_get(doc, "walk_throughput");
            assert_true(json_is_false(json_object_get(json_array_get(walk, 1), "measured")));
            assert_int_equal(json_object_size(json_array_get(walk, 0)),
                             json_object_size(json_array_get(walk, 1)));
            assert_true(has_path(all, "huge.sweep.control_points"));
            assert_true(has_path(all, "huge.sweep.reuse"));
            assert_true(has_path(all, "huge.why"));
            assert_true(has_path(all, "threads[].sweep"));
            assert_true(has_path(all, "threads[].sweep.note"));
            assert_true(has_path(all, "control_points[].cycles_per_access"));
            json_decref(all);
        }
        json_decref(doc);
    }
    for (int k = 1; k < 3; k++) {
        const char *key;
        json_t *v;
        json_object_foreach(keys[0], key, v) assert_non_null(json_object_get(keys[k], key));
        assert_int_equal(json_object_size(keys[k]), json_object_size(keys[0]));
    }
    for (int k = 0; k < 3; k++)
        json_decref(keys[k]);
    /* a 2 MB sweep that did not run: its keys null */
    struct tlb_result t = sweep_result();
    json_t *doc = report_tlb_json(&t);
    json_t *measured = json_incref(json_object_get(doc, "huge"));
    json_decref(doc);
    t.huge_measured = false;
    snprintf(t.huge_why, sizeof(t.huge_why), "the 2 MB sweep runs single-threaded");
    doc = report_tlb_json(&t);
    json_t *huge = json_object_get(doc, "huge");
    const char *key;
    json_t *v;
    json_object_foreach(huge, key, v) assert_non_null(json_object_get(measured, key));
    assert_int_equal(json_object_size(huge), json_object_size(measured));
    assert_true(json_is_null(json_object_get(huge, "sweep")));
    assert_true(json_is_null(json_object_get(huge, "backing")));
    json_decref(measured);
    json_decref(doc);
}

/* The goldens are of a 4 KB base page, whatever the machine's is. */
int main(void)
{
    page_sizes_inject(4096, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sweep),           cmocka_unit_test(reuse_fit_failed),
        cmocka_unit_test(single_point),    cmocka_unit_test(planned),
        cmocka_unit_test(stride_probe),    cmocka_unit_test(sweep_64k),
        cmocka_unit_test(midr_model_line), cmocka_unit_test(nothing_omitted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
