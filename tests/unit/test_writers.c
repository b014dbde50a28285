/* Writers format a fixed report byte for byte as the golden files say.
 * Regenerate the golden files after an intended change with UPDATE_GOLDEN=1 and review them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/golden.h"

#include "src/latency/latency.h"
#include "src/latency/latency_measurement.h"
#include "src/report/report.h"
#include "src/stream/stream_measurement.h"

static struct placement_entry placement[2] = {
    {.thread = 0,
     .planned_pu = 0,
     .pu = 0,
     .core = 0,
     .package = 0,
     .numa = 0,
     .llc = 0,
     .bound = true},
    {.thread = 1,
     .planned_pu = 8,
     .pu = 8,
     .core = 8,
     .package = 1,
     .numa = 1,
     .llc = 1,
     .bound = true},
};
static int planned[2] = {0, 8};

static bool stream_domains_used; /* one run of the fixture shows per-domain rates */

static void fill_run(struct run_result *r, unsigned mask, bool passed)
{
    memset(r, 0, sizeof(*r));
    struct run_config *c = &r->config;
    c->threads = 2;
    c->threads_from = "--threads";
    snprintf(c->bind, sizeof(c->bind), "scatter");
    c->bind_kind = BIND_SCATTER;
    c->pus = planned;
    c->llc_count = 2;
    c->llc_bytes = 41943040;
    c->pages = "default";
    c->stores = mask == KERNEL_MASK_STREAM ? "nt" : "normal";
    c->stores_requested = "auto";
    c->stores_kind = mask == KERNEL_MASK_STREAM ? STORES_NT : STORES_NORMAL;
    c->tuned = c->stores_kind == STORES_NT;
    c->isa = ISA_AVX2;
    c->pages_from = "default";
    c->type = TYPE_DOUBLE;
    c->elements = 20971520;
    c->array_bytes = 167772160;
    c->total_bytes = 503316480;
    snprintf(c->size_label, sizeof(c->size_label), "4xLLC (STREAM rule)");
    c->ntimes = 10;
    c->kernel_mask = mask;
    c->tier = -1; /* not a tier run */
    c->cpu_node = c->mem_node = -1;
    r->measured = true;
    r->reps_done = 10;
    r->warm_up_passes = 12;
    r->warm_up_s = 1.0625;
    r->warm_up_own_passes = 8;
    r->warm_up_own_s = 1.03125;
    r->n_placement = 2;
    r->placement = placement;
    r->backing = (struct backing_info){
        .page_size_bytes = 4096, .verified = true, .thp_fraction = 0.0, .rss_bytes = 503316480};
    snprintf(r->backing.how, sizeof(r->backing.how), "anonymous mmap");
    r->locality = (struct page_locality){
        .verified = true, .pages_sampled = 480, .pages_local = 480, .local_fraction = 1.0};
    c->cpu_node = c->mem_node = -1;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(mask & (1u << k))) continue;
        struct kernel_result *x = &r->results[r->n_results++];
        x->kernel = (enum kernel_id)k;
        x->stores = c->kernel_stores[k] = c->stores_kind;
        x->bytes_counted = kernel_bytes_counted(&kernel_table[k], c->elements, c->type);
        x->bytes_estimated_traffic =
            kernel_bytes_traffic(&kernel_table[k], c->elements, c->type, 0);
        x->min_time_s = 0.029557 + 0.001 * k;
        x->avg_time_s = 0.033877 + 0.001 * k;
        x->max_time_s = 0.043512 + 0.001 * k;
        x->best_rate_mbps = 1e-6 * (double)x->bytes_counted / x->min_time_s;
        x->min_ticks = x->min_time_s / 25e-9;
    }
    r->validation = (struct validation_result){.passed = passed,
                                               .max_rel_error = passed ? 0.0 : INFINITY,
                                               .tolerance = 1e-13,
                                               .stream_epsilon = 1e-13,
                                               .arrays = {{.expected = 2.0,
                                                           .avg_abs_error = passed ? 0.0 : INFINITY,
                                                           .avg_rel_error = passed ? 0.0 : INFINITY,
                                                           .n_bad = passed ? 0 : 1},
                                                          {.expected = 0.5},
                                                          {.expected = 1.0}},
                                               .failed_array = passed ? 0 : 'a',
                                               .first_bad_index = 10485760,
                                               .first_bad_value = passed ? 0.0 : NAN,
                                               .first_bad_expected = 2.0};
    if (passed && mask == KERNEL_MASK_STREAM && !stream_domains_used) {
        static struct domain_result domains[2];
        stream_domains_used = true;
        c->per_domain = DOMAIN_NUMA;
        r->n_domains = 2;
        r->domains = domains;
        for (int d = 0; d < 2; d++) {
            domains[d] =
                (struct domain_result){.index = d, .n_threads = 1, .elements = c->elements / 2};
            for (int i = 0; i < r->n_results; i++)
                domains[d].best_rate_mbps[r->results[i].kernel] =
                    r->results[i].best_rate_mbps / 2 - d * 100.0;
        }
    } else if (!passed) {
        r->n_misplaced = 1;
        r->n_warnings = 1;
        snprintf(r->warnings[0], sizeof(r->warnings[0]), "Copy took only 3 clock ticks");
    }
}

/* hugetlb 2 MiB pages as asked; set on a run after fill_run */
static void set_hugetlb(struct run_result *r)
{
    r->config.pages = "2m";
    r->config.pages_from = "--pages";
    r->backing = (struct backing_info){
        .page_size_bytes = 2u << 20, .verified = true, .hugetlb_bytes = 503316480};
    snprintf(r->backing.how, sizeof(r->backing.how),
             "mmap MAP_HUGETLB|MAP_HUGE_2MB (libhugetlbfs found no hugetlbfs mount)");
}

static struct run_result runs[4];
static struct page_comparison comparisons[KERNEL_COUNT];
static struct stream_result stream;

static struct report make_report(void)
{
    stream_domains_used = false;
    struct report rep;
    memset(&rep, 0, sizeof(rep));
    rep.version = "0.0.0-test";
    struct topology_facts *t = &rep.topo;
    snprintf(t->cpu_model, sizeof(t->cpu_model), "Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz");
    t->packages = 2;
    t->numa_nodes = 2;
    t->cores = 16;
    t->pus = 32;
    t->machine_pus = 32;
    t->machine_cores = 16;
    t->llc_level = 3;
    t->llc_count = 2;
    t->llc_bytes_total = 41943040;
    t->llc_source = "hwloc";
    t->this_system = true;
    t->is_machine = true;
    snprintf(t->source, sizeof(t->source), "this machine");
    struct sys_info *s = &rep.sys;
    snprintf(s->hostname, sizeof(s->hostname), "node001");
    snprintf(s->kernel, sizeof(s->kernel), "6.1.0-test");
    snprintf(s->thp_enabled, sizeof(s->thp_enabled), "madvise");
    s->mem_available_bytes = 64ull << 30;
    s->n_pools = 2;
    s->pools[0] = (struct hugepage_pool){2u << 20, 512, 500, 0, 0};
    s->pools[1] = (struct hugepage_pool){1u << 30, 0, 0, 0, 0};
    s->default_hugepage_bytes = 2u << 20;
    snprintf(s->glibc_version, sizeof(s->glibc_version), "2.36");
    snprintf(s->hugetlb_morecore, sizeof(s->hugetlb_morecore), "thp");
    snprintf(s->glibc_malloc_hugetlb, sizeof(s->glibc_malloc_hugetlb), "1");
    rep.timer = (struct timer_info){"CLOCK_MONOTONIC", 1e-9, 25e-9, 21e-9};
    /* a run beside other work on a capped node with a corrected error; swap unknown */
    struct run_conditions *c = &rep.conditions;
    c->read = c->measured = true;
    c->n_cpus = 2;
    c->cpus[0] = 0;
    c->cpus[1] = 16;
    c->settings = (struct conditions_settings){.numa_balancing = 1,
                                               .n_cpufreq = 2,
                                               .n_capped = 1,
                                               .capped_mhz = 2000.0,
                                               .max_mhz = 3300.0,
                                               .boost = -1};
    snprintf(c->settings.governor, sizeof(c->settings.governor), "performance");
    snprintf(c->settings.edac_labels, sizeof(c->settings.edac_labels), "DIMM_A1; DIMM_B1");
    c->delta = (struct conditions_delta){.elapsed_s = 12.25,
                                         .steal_share = 0.0,
                                         .others_share = 0.375,
                                         .wait_share = 0.5,
                                         .swapped_pages = -1,
                                         .ce_growth = 1,
                                         .ue_growth = 0,
                                         .have_edac = true,
                                         .ce_total = 3};
    struct provenance *p = &rep.prov;
    snprintf(p->microcode, sizeof(p->microcode), "0x42e");
    snprintf(p->governor, sizeof(p->governor), "performance");
    p->cur_mhz = 2600.0;
    p->max_mhz = 3300.0;
    p->mem_total_bytes = 64ull << 30;
    snprintf(p->compiler, sizeof(p->compiler), "gcc 12.2.0");
    snprintf(p->cflags, sizeof(p->cflags), "-O3 -fopenmp (Release)");
    snprintf(p->omp_env, sizeof(p->omp_env), "OMP_NUM_THREADS=16");
    snprintf(p->start_iso, sizeof(p->start_iso), "2026-11-30T23:00:00Z");
    p->duration_s = 12.5;
    p->peak_mbps = 102400.0;
    snprintf(p->peak_source, sizeof(p->peak_source),
             "SMBIOS estimate: 8 DIMMs x 1600 MT/s x 64 bit, assuming one DIMM per channel");
    fill_run(&runs[0], KERNEL_MASK_STREAM, true);
    fill_run(&runs[1], 1u << KERNEL_COPY | 1u << KERNEL_TRIAD | 1u << KERNEL_DOT, false);
    runs[1].results[2].reduction_checked = true;
    runs[1].results[2].reduction_rel_error = 3e-17;
    set_hugetlb(&runs[1]); /* ... but smaps disagrees */
    runs[1].backing.verified = false;
    runs[1].backing.page_size_bytes = 4096;
    runs[1].backing.hugetlb_bytes = 0;
    runs[1].backing.rss_bytes = 503316480;
    snprintf(runs[1].backing.mismatch, sizeof(runs[1].backing.mismatch),
             "--pages 2m asked for 2 MiB pages but /proc/self/smaps shows KernelPageSize 4 KiB, "
             "AnonHugePages 0 B, Private_Hugetlb 0 B");
    fill_run(&runs[2], KERNEL_MASK_STREAM, true);
    set_hugetlb(&runs[2]);
    for (int k = 0; k < 4; k++) {
        runs[2].results[k].min_time_s *= 0.97;
        runs[2].results[k].best_rate_mbps /= 0.97;
        comparisons[k] = (struct page_comparison){(enum kernel_id)k, 0, 2, 1.0 / 0.97 - 1.0};
    }
    fill_run(&runs[3], 1u << KERNEL_TRIAD, true);
    runs[3].config.pages = "thp";
    runs[3].config.pages_from = "HUGETLB_MORECORE";
    runs[3].config.below_stream_rule = true; /* as --size 160MiB with a larger LLC would be */
    snprintf(runs[3].config.size_label, sizeof(runs[3].config.size_label), "160MiB");
    runs[3].backing.thp_fraction = 0.935;
    runs[3].backing.anon_huge_bytes = 470548480;
    snprintf(runs[3].backing.how, sizeof(runs[3].backing.how),
             "2 MiB-aligned anonymous mmap + MADV_HUGEPAGE");
    stream = (struct stream_result){
        .runs = runs, .n_runs = 4, .comparisons = comparisons, .n_comparisons = 4};
    rep.parts[rep.n_parts++] = (struct measured_part){&stream_measurement, &stream};
    struct acceptance_result *a = &rep.acceptance;
    a->evaluated = true;
    a->passed = false;
    a->tolerance_pct = 5.0;
    a->n_checks = 2;
    a->checks[0] = (struct acceptance_check){.name = "Triad",
                                             .measured = "15459.5",
                                             .expected = ">= 61750.0 (65000.0 - 5%)",
                                             .measured_value = 15459.5,
                                             .expected_value = 61750.0,
                                             .verdict = CHECK_FAIL,
                                             .rate_check = true,
                                             .reference_mbps = 65000.0,
                                             .from_reference = true,
                                             .rep_spread_pct = 2.5,
                                             .ref_spread_pct = 3.0,
                                             .ref_runs = 5};
    a->checks[1] = (struct acceptance_check){.name = "validation",
                                             .measured = "passed",
                                             .expected = "passed",
                                             .passed = true,
                                             .verdict = CHECK_PASS,
                                             .rep_spread_pct = -1.0,
                                             .ref_spread_pct = -1.0};
    rep.efficiency = (struct efficiency){.known = true,
                                         .kernel = "Triad",
                                         .rate_mbps = 15459.5,
                                         .ceiling_mbps = 51200.0,
                                         .pct = 30.2,
                                         .typical_known = true,
                                         .typical_min_pct = 75,
                                         .typical_max_pct = 90,
                                         .cpu_class = "Example class",
                                         .typical_source = "https://example.org/stream"};
    rep.diagnosis = (struct diagnosis){.asked_by = "verdict FAIL", .n = 1, .n_if_short = 1};
    rep.diagnosis.causes[0] = (struct cause){
        .id = "empty_channel",
        .summary = "socket 1 channel C empty",
        .evidence = "SMBIOS: socket 1 has 3 of its 4 channels populated, no DIMM in channel C",
        .remedy = "seat a DIMM in every channel"};
    rep.diagnosis.if_short[0] = rep.diagnosis.causes[0];
    return rep;
}

GOLDEN_REPORT_TEST(text_report, make_report, report_write_text, "report.txt")
GOLDEN_REPORT_TEST(quiet_report, make_report, report_write_quiet, "report-quiet.txt")
GOLDEN_REPORT_TEST(csv_report, make_report, report_write_csv, "report.csv")
GOLDEN_REPORT_TEST(json_report, make_report, report_write_json, "report.json")
GOLDEN_REPORT_TEST(openmetrics_report, make_report, report_write_openmetrics, "report.prom")

/* Label values escape \\, " and newline; two checks of one name get distinct labels. */
static void openmetrics_escapes(void **state)
{
    (void)state;
    struct report rep = make_report();
    snprintf(rep.sys.hostname, sizeof(rep.sys.hostname), "a\"b\\c\nd");
    rep.acceptance.checks[1] = rep.acceptance.checks[0];
    size_t len;
    char *text = written(report_write_openmetrics, &rep, &len);
    assert_non_null(strstr(text, "membench_build_info{hostname=\"a\\\"b\\\\c\\nd\",version="));
    assert_null(strstr(text, "c\nd"));
    assert_non_null(strstr(text, "check=\"Triad\"} 0\n"));
    assert_non_null(strstr(text, "check=\"Triad#2\"} 0\n"));
    free(text);
}

/* Nothing measured (--dry-run): no STREAM sample, and never NaN. */
static void openmetrics_dry_run(void **state)
{
    (void)state;
    struct report rep = make_report();
    rep.dry_run = true;
    for (size_t i = 0; i < stream.n_runs; i++)
        runs[i].measured = false;
    rep.acceptance.evaluated = false;
    rep.prov.duration_s = NAN;
    size_t len;
    char *text = written(report_write_openmetrics, &rep, &len);
    assert_non_null(strstr(text, "membench_build_info{"));
    assert_non_null(strstr(text, "membench_start_time_seconds{hostname=\"node001\"} 1796079600\n"));
    assert_null(strstr(text, "membench_stream"));
    assert_null(strstr(text, "membench_acceptance"));
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "NaN"));
    assert_true(len > 6 && strcmp(text + len - 6, "# EOF\n") == 0);
    free(text);
}

/* A measured latency has its family; one not measured has none. */
static void openmetrics_latency(void **state)
{
    (void)state;
    struct report rep = make_report();
    static struct latency_result lat;
    memset(&lat, 0, sizeof(lat));
    lat.measured = lat.idle.measured = true;
    lat.idle.ns = 85.5;
    rep.parts[rep.n_parts++] = (struct measured_part){&latency_measurement, &lat};
    size_t len;
    char *text = written(report_write_openmetrics, &rep, &len);
    assert_non_null(strstr(text, "# TYPE membench_latency_idle_seconds gauge\n"
                                 "membench_latency_idle_seconds{hostname=\"node001\"} 8.55e-08\n"
                                 "# EOF\n"));
    free(text);
    lat.idle.measured = false;
    text = written(report_write_openmetrics, &rep, &len);
    assert_null(strstr(text, "membench_latency"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(openmetrics_report),  cmocka_unit_test(openmetrics_escapes),
        cmocka_unit_test(openmetrics_dry_run), cmocka_unit_test(openmetrics_latency),
        cmocka_unit_test(text_report),         cmocka_unit_test(quiet_report),
        cmocka_unit_test(csv_report),          cmocka_unit_test(json_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
