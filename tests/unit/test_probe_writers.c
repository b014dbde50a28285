/* The probe writers format fixed results byte for byte as the golden files say: all three
 * probes alone (no STREAM run), with skipped rows. Regenerate after an intended change with
 * UPDATE_GOLDEN=1 and review the diff. */
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

#include "src/probes/probes.h"
#include "src/probes/probes_measurement.h"
#include "src/report/report.h"
#include "src/stream/stream_measurement.h"

static struct probe_results probes;
static struct stream_result no_runs; /* STREAM did not run: in the report, as src/node puts it */
static struct shootdown_run sd_runs[4];

static void fill_timer(struct timer_probe_report *t)
{
    snprintf(t->clocksource, sizeof(t->clocksource), "tsc");
    t->precision = TIMER_PRECISION;
    t->op_seconds = TIMER_OP_SECONDS;
    t->n_clocks = TCLOCK_COUNT;
    static const char *const names[] = {"CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW", "gettimeofday",
                                        "rdtsc", "rdtscp"};
    const double res[] = {1e-9, 1e-9, 1e-6, 1.0 / 2.3e9, 1.0 / 2.3e9};
    const double gran[] = {21e-9, 22e-9, 1e-6, 20 / 2.3e9, 34 / 2.3e9};
    const double cost[] = {22.1e-9, 22.4e-9, 23.4e-9, 10.1e-9, 16.8e-9};
    for (int i = 0; i < TCLOCK_COUNT; i++) {
        struct timer_clock_row *c = &t->clocks[i];
        c->name = names[i];
        c->available = i != TCLOCK_RDTSCP;
        if (!c->available) {
            snprintf(c->skipped, sizeof(c->skipped), "this CPU has no rdtscp");
            continue;
        }
        c->resolution_s = res[i];
        c->resolution_from = i < 2    ? "clock_getres"
                             : i == 2 ? "struct timeval (1 us)"
                                      : "1 TSC tick";
        c->granularity_s = gran[i];
        c->call_cost_s = cost[i];
        c->min_interval_s =
            timer_min_interval(gran[i], t->precision, t->op_seconds, &c->reps_for_op);
    }
    t->tsc = (struct tsc_info){.available = true,
                               .hz = 2.3e9,
                               .hz_source = "calibrated against CLOCK_MONOTONIC",
                               .hz_calibrated = 2.3e9,
                               .calibration_s = 0.05,
                               .invariant_known = true,
                               .invariant = true};
}

static void fill_faults(struct fault_report *f)
{
    f->bytes = 64ull << 20;
    f->reps = 3;
    snprintf(f->thp_enabled, sizeof(f->thp_enabled), "madvise");
    snprintf(f->dir, sizeof(f->dir), "/var/tmp");
    snprintf(f->fs_type, sizeof(f->fs_type), "ext4");
    f->n_runs = FAULT_BACKING_COUNT;
    for (int i = 0; i < FAULT_BACKING_COUNT; i++) {
        struct fault_run *r = &f->runs[i];
        r->backing = (enum fault_backing)i;
        r->bytes = f->bytes;
        r->pages_touched = 16384;
        r->reps = i < FAULT_FILE ? 3 : 1;
        r->resident_before = NAN;
        r->us_per_major_fault = NAN;
    }
    struct fault_run *r = &f->runs[FAULT_4K];
    r->minor_faults = 16384;
    r->seconds = r->seconds_min = 0.0357;
    r->smaps =
        (struct backing_info){.verified = true, .page_size_bytes = 4096, .rss_bytes = 64ull << 20};
    snprintf(r->smaps.how, sizeof(r->smaps.how), "anonymous mmap + MADV_NOHUGEPAGE");
    r = &f->runs[FAULT_THP];
    r->minor_faults = 32;
    r->seconds = r->seconds_min = 0.0119;
    r->smaps = (struct backing_info){.verified = true,
                                     .page_size_bytes = 2u << 20,
                                     .thp_fraction = 1.0,
                                     .rss_bytes = 64ull << 20,
                                     .anon_huge_bytes = 64ull << 20};
    snprintf(r->smaps.how, sizeof(r->smaps.how), "2 MiB-aligned anonymous mmap + MADV_HUGEPAGE");
    r = &f->runs[FAULT_2M];
    snprintf(r->skipped, sizeof(r->skipped),
             "the 2 MiB hugetlb pool has too few free pages: 32 needed, 0 available "
             "(free_hugepages 0 - resv_hugepages 0 in /sys/kernel/mm/hugepages/hugepages-2048kB); "
             "reserve them as "
             "root with `echo 32 > /proc/sys/vm/nr_hugepages` or `hugeadm --pool-pages-min "
             "2MB:32`");
    r = &f->runs[FAULT_FILE];
    r->advice = "MADV_RANDOM";
    r->resident_before = 0.0;
    r->major_faults = 16384;
    r->seconds = r->seconds_min = 1.60728;
    r = &f->runs[FAULT_FILE_READAHEAD];
    r->advice = "MADV_SEQUENTIAL";
    r->resident_before = 0.0;
    r->major_faults = 1;
    r->minor_faults = 436;
    r->seconds = r->seconds_min = 0.0472;
    snprintf(r->note, sizeof(r->note), "readahead: 1 major fault for 16384 pages");
    for (int i = 0; i < FAULT_BACKING_COUNT; i++) {
        r = &f->runs[i];
        if (r->skipped[0]) continue;
        uint64_t faults = r->minor_faults + r->major_faults;
        r->ns_per_fault = 1e9 * r->seconds / (double)faults;
        r->ns_per_page = 1e9 * r->seconds / (double)r->pages_touched;
        if (r->major_faults) r->us_per_major_fault = 1e6 * r->seconds / (double)r->major_faults;
    }
}

static void fill_shootdown(struct shootdown_report *s)
{
    s->measure_pu = 0;
    s->measure_bound = true;
    s->n_remote_pus = 1;
    s->remote_pus[0] = 1;
    s->interrupts_available = true;
    snprintf(s->hypervisor, sizeof(s->hypervisor), "KVMKVMKVM");
    s->pv_tlb_flush = 1;
    s->flush_ceiling = -1;
    const unsigned pages[] = {1, 1, 34, 34};
    const unsigned remote[] = {0, 1, 0, 1};
    const double us[] = {3.66, 26.63, 7.38, 34.71};
    for (int i = 0; i < 4; i++) {
        struct shootdown_run *r = &sd_runs[i];
        r->mode = SHOOTDOWN_MUNMAP;
        r->pages = pages[i];
        r->remote_threads = remote[i];
        r->ops = 100 + i;
        r->us_per_op = us[i];
        r->us_min = us[i] * 0.8;
        r->us_mean = us[i] * 1.1;
        r->us_per_cycle = us[i] * 2.5;
        r->shootdowns = remote[i] ? 90 + i : 1;
        r->shootdowns_remote = remote[i] ? 90 + i : 0;
        r->shootdowns_per_op = remote[i] ? (double)r->shootdowns_remote / r->ops : NAN;
        r->siblings_bound = true;
        r->attributed = remote[i] > 0;
        r->ops_interrupted = remote[i] ? 90 : 0;
        r->ops_not_interrupted = remote[i] ? 10 + i : 0;
        r->us_interrupted = remote[i] ? us[i] + 2.0 : NAN;
        r->us_not_interrupted = remote[i] ? us[i - 1] : NAN;
        r->added_us_per_remote = remote[i] ? us[i] - us[i - 1] : NAN;
        r->added_us_per_remote_interrupted = remote[i] ? us[i] + 2.0 - us[i - 1] : NAN;
    }
    s->runs = sd_runs;
    s->n_runs = 4;
    s->n_summary = 2;
    s->summary[0] = (struct shootdown_summary){SHOOTDOWN_MUNMAP, 0, NAN, NAN, NAN};
    s->summary[1] = (struct shootdown_summary){SHOOTDOWN_MUNMAP, 1, 25.15, 0.90, 27.15};
    s->n_skipped = 1;
    s->skipped[0].remote_threads = 2;
    snprintf(s->skipped[0].reason, sizeof(s->skipped[0].reason),
             "needs 3 usable CPUs (1 measuring + 2 remote), this process may use 2");
}

static struct report make_report(void)
{
    struct report rep;
    memset(&rep, 0, sizeof(rep));
    rep.version = "0.0.0-test";
    struct topology_facts *t = &rep.topo;
    snprintf(t->cpu_model, sizeof(t->cpu_model), "Intel(R) Xeon(R) Processor");
    t->packages = 1;
    t->numa_nodes = 1;
    t->cores = 2;
    t->pus = 2;
    t->machine_pus = 2;
    t->machine_cores = 2;
    t->llc_level = 3;
    t->llc_count = 1;
    t->llc_bytes_total = 272629760;
    t->llc_source = "hwloc";
    t->this_system = true;
    t->is_machine = true;
    snprintf(t->source, sizeof(t->source), "this machine");
    struct sys_info *s = &rep.sys;
    snprintf(s->hostname, sizeof(s->hostname), "vm");
    snprintf(s->kernel, sizeof(s->kernel), "6.1.0-test");
    snprintf(s->thp_enabled, sizeof(s->thp_enabled), "madvise");
    s->mem_available_bytes = 24ull << 30;
    rep.timer = (struct timer_info){"CLOCK_MONOTONIC", 1e-9, 25e-9, 21e-9};
    memset(&probes, 0, sizeof(probes));
    probes.requested = probes.ran =
        PROBE_BIT(PROBE_FAULTS) | PROBE_BIT(PROBE_SHOOTDOWN) | PROBE_BIT(PROBE_TIMER);
    fill_timer(&probes.timer);
    fill_faults(&probes.faults);
    fill_shootdown(&probes.shootdown);
    rep.parts[rep.n_parts++] = (struct measured_part){&probes_measurement, &probes};
    rep.parts[rep.n_parts++] = (struct measured_part){&stream_measurement, &no_runs};
    return rep;
}

GOLDEN_REPORT_TEST(text_report, make_report, report_write_text, "probes.txt")
GOLDEN_REPORT_TEST(quiet_report, make_report, report_write_quiet, "probes-quiet.txt")
GOLDEN_REPORT_TEST(csv_report, make_report, report_write_csv, "probes.csv")
GOLDEN_REPORT_TEST(json_report, make_report, report_write_json, "probes.json")

/* Text: a row whose pages were not what the backend promised says so, and why in its note;
 * a row whose smaps could not be read says that instead. */
static void unverified_pages(void **state)
{
    (void)state;
    struct report rep = make_report();
    struct fault_run *r = &probes.faults.runs[FAULT_4K];
    r->smaps.verified = false;
    r->smaps.anon_huge_bytes = 2u << 20;
    snprintf(r->note, sizeof(r->note),
             "pages not as asked: --faults-backing 4k asked for 4 KiB pages but /proc/self/smaps "
             "shows KernelPageSize 4 KiB, AnonHugePages 2.0 MiB, Private_Hugetlb 0 B");
    probes.faults.runs[FAULT_THP].smaps = (struct backing_info){.verified = false};
    size_t len = 0;
    char *text = written(report_write_text, &rep, &len);
    assert_non_null(strstr(text, "NOT VERIFIED (see the note)"));
    assert_non_null(strstr(text, "Note (4k): pages not as asked: --faults-backing 4k"));
    assert_non_null(strstr(text, "smaps unreadable"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_report),      cmocka_unit_test(quiet_report),
        cmocka_unit_test(csv_report),       cmocka_unit_test(json_report),
        cmocka_unit_test(unverified_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
