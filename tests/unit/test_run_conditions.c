/* The run's conditions on fixture trees: /proc/stat shares, membench's own time and wait,
 * swap and EDAC growth, the settings; what cannot be read or is too short to mean anything is
 * unknown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/sys/run_conditions.h"
#include "tests/unit/scratch_tree.h"

static char root[64], proc[128], sys[128];
static struct conditions_roots roots;
static const int run_cpus[] = {0, 1};

static int setup(void **state)
{
    (void)state;
    if (scratch_make(root, sizeof(root), "conditions") != 0) return -1;
    snprintf(proc, sizeof(proc), "%s/proc", root);
    snprintf(sys, sizeof(sys), "%s/sys", root);
    scratch_dirs(proc);
    scratch_dirs(sys);
    roots = (struct conditions_roots){proc, sys};
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove(root);
}

/* ROOT/rel holds text, its folders made. */
static void put(const char *base, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", base, rel);
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = '\0';
    scratch_dirs(dir);
    scratch_write(path, text);
}

/* /proc/stat with cpu0 and cpu1 as given (user system idle steal) and a busy cpu2 outside the
 * run; its nice, iowait, irq and softirq are fixed. */
static void put_stat(unsigned u0, unsigned s0, unsigned i0, unsigned st0, unsigned u1, unsigned s1,
                     unsigned i1, unsigned st1, unsigned cpu2)
{
    char text[512];
    snprintf(text, sizeof(text),
             "cpu  1 2 3 4 5 6 7 8 0 0\n"
             "cpu0 %u 1 %u %u 2 1 1 %u 7 0\n"
             "cpu1 %u 1 %u %u 2 1 1 %u 0 0\n"
             "cpu2 %u 0 0 0 0 0 0 0 0 0\n"
             "intr 12345 0 0\nctxt 999\n",
             u0, s0, i0, st0, u1, s1, i1, st1, cpu2);
    put(proc, "stat", text);
}

/* /proc/self/stat with this utime and stime (a name with a space and a parenthesis). */
static void put_self(unsigned utime, unsigned stime)
{
    char text[256];
    snprintf(text, sizeof(text),
             "4242 (mem bench)) R 1 4242 4242 0 -1 4194304 100 0 0 0 %u %u 0 0 20 0 3 0 99 "
             "1000 200 18446744073709551615\n",
             utime, stime);
    put(proc, "self/stat", text);
}

static void put_task(int tid, unsigned long long run_ns, unsigned long long wait_ns)
{
    char rel[64], text[96];
    snprintf(rel, sizeof(rel), "self/task/%d/schedstat", tid);
    snprintf(text, sizeof(text), "%llu %llu 17\n", run_ns, wait_ns);
    put(proc, rel, text);
}

static void put_vmstat(unsigned in, unsigned out)
{
    char text[256];
    snprintf(text, sizeof(text), "nr_free_pages 100\npswpin %u\npswpout %u\npswpin_zero 9\n", in,
             out);
    put(proc, "vmstat", text);
}

static void put_mc(int mc, unsigned ce, unsigned ue)
{
    char rel[96], text[32];
    snprintf(text, sizeof(text), "%u\n", ce);
    snprintf(rel, sizeof(rel), "devices/system/edac/mc/mc%d/ce_count", mc);
    put(sys, rel, text);
    snprintf(text, sizeof(text), "%u\n", ue);
    snprintf(rel, sizeof(rel), "devices/system/edac/mc/mc%d/ue_count", mc);
    put(sys, rel, text);
}

static struct conditions_snapshot before, after;
static struct conditions_delta d;

static void snap(struct conditions_snapshot *s)
{
    assert_int_equal(conditions_snapshot_read(&roots, run_cpus, 2, s), 0);
}

/* 400 ticks over cpu0 and cpu1: cpu0 busy 160 (of which membench 100) and stolen 40, cpu1
 * idle; cpu2, busy all along, is not the run's. */
static void steal_and_others_over_the_run_cpus(void **state)
{
    (void)state;
    put_stat(100, 50, 800, 50, 10, 10, 900, 0, 5000);
    put_self(30, 5);
    snap(&before);
    assert_true(before.have_stat && before.have_own);
    assert_int_equal(before.ticks_steal, 50);
    assert_int_equal(before.ticks_busy, 100 + 1 + 50 + 1 + 1 + 10 + 1 + 10 + 1 + 1);
    put_stat(250, 60, 800, 90, 10, 10, 1100, 0, 9000);
    put_self(120, 15);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_float_equal(d.steal_share, 40.0 / 400.0, 1e-9);
    assert_float_equal(d.others_share, 60.0 / 400.0, 1e-9);
    /* membench's own time may pass the busy ticks by rounding: no other work, not negative */
    put_self(30 + 165, 5);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_float_equal(d.others_share, 0.0, 1e-9);
}

/* A quiet run: everything busy on the run's CPUs was membench's own, nothing stolen. */
static void quiet_run_shows_none(void **state)
{
    (void)state;
    put_stat(100, 50, 800, 0, 10, 10, 900, 0, 0);
    put_self(10, 0);
    put_task(10, 1000000000ull, 0);
    snap(&before);
    put_stat(300, 50, 800, 0, 10, 10, 1100, 0, 0);
    put_self(210, 0);
    put_task(10, 3000000000ull, 0);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_float_equal(d.steal_share, 0.0, 1e-9);
    assert_float_equal(d.others_share, 0.0, 1e-9);
    assert_float_equal(d.wait_share, 0.0, 1e-9);
}

/* The wait of several threads, one of them started during the run (all of its time is the
 * run's). */
static void wait_share_of_several_threads(void **state)
{
    (void)state;
    put_task(10, 1000000000ull, 100000000ull);
    put_task(11, 500000000ull, 0);
    snap(&before);
    assert_true(before.have_schedstat);
    assert_int_equal(before.own_run_ns, 1500000000ull);
    put_task(10, 2000000000ull, 400000000ull); /* +1 s run, +0.3 s wait */
    put_task(11, 1000000000ull, 500000000ull); /* +0.5 s, +0.5 s */
    put_task(12, 500000000ull, 200000000ull);  /* new: 0.5 s, 0.2 s */
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_float_equal(d.wait_share, 1.0 / (1.0 + 2.0), 1e-9);
}

static void swap_growth(void **state)
{
    (void)state;
    put_vmstat(10, 20);
    snap(&before);
    put_vmstat(15, 27);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_int_equal(d.swapped_pages, 12);
}

/* Two controllers' counts grow; the labels come from dimmN/dimm_label, or from
 * csrowN/chM_dimm_label. */
static void edac_growth_and_labels(void **state)
{
    (void)state;
    put_mc(0, 3, 0);
    put_mc(1, 1, 0);
    snap(&before);
    assert_int_equal(before.n_mc, 2);
    put_mc(0, 5, 0);
    put_mc(1, 1, 1);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_true(d.have_edac);
    assert_int_equal(d.ce_growth, 2);
    assert_int_equal(d.ue_growth, 1);
    assert_int_equal(d.ce_total, 6);
    assert_int_equal(d.ue_total, 1);
    put(sys, "devices/system/edac/mc/mc0/dimm0/dimm_label", "CPU_SrcID#0_MC#0_Chan#0_DIMM#0\n");
    put(sys, "devices/system/edac/mc/mc1/csrow0/ch1_dimm_label", "DIMM_B2\n");
    put(sys, "devices/system/edac/mc/mc1/csrow1/ch1_dimm_label", "DIMM_B2\n");
    put(sys, "devices/system/edac/mc/mc1/csrow2/ch0_dimm_label", "DIMM_B\n");
    struct conditions_settings s;
    conditions_settings_read(&roots, run_cpus, 2, &s);
    /* each label once; "DIMM_B" is a label of its own, not a part of "DIMM_B2" */
    assert_string_equal(s.edac_labels, "CPU_SrcID#0_MC#0_Chan#0_DIMM#0; DIMM_B2; DIMM_B");
    /* a controller reset meanwhile: its whole count is new */
    put_mc(0, 1, 0);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_int_equal(d.ce_growth, 1);
}

static void put_cpufreq(int cpu, const char *governor, unsigned scaling_khz, unsigned max_khz)
{
    char rel[128], text[64];
    snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
    snprintf(text, sizeof(text), "%s\n", governor);
    put(sys, rel, text);
    snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/scaling_max_freq", cpu);
    snprintf(text, sizeof(text), "%u\n", scaling_khz);
    put(sys, rel, text);
    snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
    snprintf(text, sizeof(text), "%u\n", max_khz);
    put(sys, rel, text);
}

static void settings_of_a_capped_node(void **state)
{
    (void)state;
    put(proc, "sys/kernel/numa_balancing", "1\n");
    put(sys, "kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
    put_cpufreq(0, "performance", 3500000, 3500000);
    put_cpufreq(1, "powersave", 2000000, 3500000);
    put_cpufreq(2, "powersave", 1000000, 3900000); /* not the run's */
    put(sys, "devices/system/cpu/cpufreq/boost", "0\n");
    struct conditions_settings s;
    conditions_settings_read(&roots, run_cpus, 2, &s);
    assert_int_equal(s.numa_balancing, 1);
    assert_string_equal(s.thp_enabled, "madvise");
    assert_string_equal(s.governor, "performance");
    assert_int_equal(s.n_cpufreq, 2);
    assert_int_equal(s.n_governor_other, 1);
    assert_int_equal(s.n_capped, 1);
    assert_float_equal(s.capped_mhz, 2000.0, 1e-9);
    assert_float_equal(s.max_mhz, 3500.0, 1e-9);
    assert_int_equal(s.boost, 0);
    /* without cpufreq/boost, intel_pstate's no_turbo says it the other way round */
    char path[256];
    snprintf(path, sizeof(path), "%s/devices/system/cpu/cpufreq/boost", sys);
    assert_int_equal(remove(path), 0);
    put(sys, "devices/system/cpu/intel_pstate/no_turbo", "0\n");
    conditions_settings_read(&roots, run_cpus, 2, &s);
    assert_int_equal(s.boost, 1);
    put(sys, "devices/system/cpu/intel_pstate/no_turbo", "1\n");
    conditions_settings_read(&roots, run_cpus, 2, &s);
    assert_int_equal(s.boost, 0);
}

/* Empty trees: nothing read, every figure unknown, nothing fails. */
static void missing_files_are_unknown(void **state)
{
    (void)state;
    struct conditions_roots empty = {"/nonexistent/proc", "/nonexistent/sys"};
    assert_int_equal(conditions_snapshot_read(&empty, run_cpus, 2, &before), 0);
    after = before;
    assert_false(before.have_stat || before.have_own || before.have_schedstat ||
                 before.have_vmstat || before.have_edac);
    conditions_delta_of(&before, &after, &d);
    assert_true(d.steal_share < 0 && d.others_share < 0 && d.wait_share < 0);
    assert_int_equal(d.swapped_pages, -1);
    assert_int_equal(d.ce_growth, -1);
    assert_int_equal(d.ue_growth, -1);
    assert_false(d.have_edac);
    struct conditions_settings s;
    conditions_settings_read(&empty, run_cpus, 2, &s);
    assert_int_equal(s.numa_balancing, -1);
    assert_string_equal(s.thp_enabled, "");
    assert_string_equal(s.governor, "");
    assert_int_equal(s.n_cpufreq, 0);
    assert_int_equal(s.boost, -1);
    assert_string_equal(s.edac_labels, "");
}

/* A CPU of the run without its /proc/stat line (offline): the shares are not guessed from the
 * others. */
static void a_missing_cpu_line_is_unknown(void **state)
{
    (void)state;
    put(proc, "stat", "cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 100 0 50 800 0 0 0 0 0 0\n");
    snap(&before);
    assert_false(before.have_stat);
}

/* 50 ticks over the run's CPUs and 50 ms of the threads' time: too short for a share. */
static void too_short_is_unknown(void **state)
{
    (void)state;
    put_stat(100, 50, 800, 0, 10, 10, 900, 0, 0);
    put_self(10, 0);
    put_task(10, 0, 0);
    snap(&before);
    put_stat(120, 50, 810, 5, 10, 10, 915, 0, 0); /* 20 + 10 + 5 + 15 = 50 ticks */
    put_self(20, 0);
    put_task(10, 25000000ull, 25000000ull);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_true(d.steal_share < 0 && d.others_share < 0 && d.wait_share < 0);
    /* at the minimum they are known */
    put_stat(170, 50, 810, 5, 10, 10, 915, 0, 0);
    put_task(10, 50000000ull, 50000000ull);
    snap(&after);
    conditions_delta_of(&before, &after, &d);
    assert_float_equal(d.steal_share, 5.0 / 100.0, 1e-9);
    assert_float_equal(d.wait_share, 0.5, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(steal_and_others_over_the_run_cpus, setup, teardown),
        cmocka_unit_test_setup_teardown(quiet_run_shows_none, setup, teardown),
        cmocka_unit_test_setup_teardown(wait_share_of_several_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(swap_growth, setup, teardown),
        cmocka_unit_test_setup_teardown(edac_growth_and_labels, setup, teardown),
        cmocka_unit_test_setup_teardown(settings_of_a_capped_node, setup, teardown),
        cmocka_unit_test(missing_files_are_unknown),
        cmocka_unit_test_setup_teardown(a_missing_cpu_line_is_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(too_short_is_unknown, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
