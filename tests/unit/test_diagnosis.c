/* The likely causes: each is named when its evidence is there and not when it is absent; the
 * node's own configuration only when the verdict is not PASS or the efficiency is below its
 * typical range; a healthy node gets none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "src/stream/results.h"
#include "src/sys/dimm_inventory.h"
#include "src/sys/run_conditions.h"
#include "src/verdict/acceptance.h"
#include "src/verdict/diagnosis.h"

static struct dimm_inventory inv;
static struct conditions_settings settings;
static struct conditions_delta during;
static struct run_result run;
static struct acceptance_result verdict;
static struct domain_result domains[4];
static struct diagnosis_facts facts;
static struct diagnosis out;

/* A healthy two-socket node: 8 of 8 channels each at their rated speed, a quiet run, PASS. */
static int healthy(void **state)
{
    (void)state;
    memset(&inv, 0, sizeof(inv));
    inv.read = true;
    inv.n_sockets = 2;
    for (int s = 0; s < 2; s++)
        inv.sockets[s] = (struct dimm_socket){.id = s,
                                              .slots = 16,
                                              .dimms = 8,
                                              .bytes = 8ull << 35,
                                              .channels = 8,
                                              .channels_named = 8,
                                              .channels_populated = 8,
                                              .dimms_per_channel_max = 1,
                                              .configured_mts = 4800,
                                              .rated_mts = 4800,
                                              .bus_bits = 64};
    settings = (struct conditions_settings){.numa_balancing = 0, .boost = 1};
    snprintf(settings.thp_enabled, sizeof(settings.thp_enabled), "madvise");
    snprintf(settings.governor, sizeof(settings.governor), "performance");
    during = (struct conditions_delta){.elapsed_s = 10.0};
    memset(&run, 0, sizeof(run));
    run.measured = true;
    run.config.pages = "default";
    memset(&verdict, 0, sizeof(verdict));
    verdict.evaluated = true;
    verdict.passed = true;
    verdict.n_checks = 1;
    verdict.checks[0].passed = true;
    facts = (struct diagnosis_facts){.dimms = &inv,
                                     .settings = &settings,
                                     .during = &during,
                                     .run = &run,
                                     .verdict = &verdict,
                                     .tolerance_pct = 10.0};
    return 0;
}

static void fail_verdict(void)
{
    verdict.passed = false;
    verdict.checks[0].passed = false;
    verdict.checks[0].verdict = CHECK_FAIL;
}

static bool is_named(const char *id)
{
    diagnosis_make(&facts, &out);
    for (int i = 0; i < out.n; i++)
        if (strcmp(out.causes[i].id, id) == 0) return true;
    return false;
}

/* The cause named id; the test fails when it is not named. */
static const struct cause *named(const char *id)
{
    static const struct cause absent = {.id = "", .summary = "", .evidence = ""};
    if (!is_named(id)) fail_msg("%s is not named", id);
    for (int i = 0; i < out.n; i++)
        if (strcmp(out.causes[i].id, id) == 0) return &out.causes[i];
    return &absent;
}

static void healthy_node_names_nothing(void **state)
{
    (void)state;
    diagnosis_make(&facts, &out);
    assert_int_equal(out.n, 0);
    assert_int_equal(out.n_if_short, 0);
    assert_string_equal(out.asked_by, "");
    fail_verdict(); /* a FAIL on a node whose facts are all in order still names nothing */
    diagnosis_make(&facts, &out);
    assert_int_equal(out.n, 0);
    assert_string_equal(out.asked_by, "verdict FAIL");
}

static void empty_channel_named_with_its_name(void **state)
{
    (void)state;
    fail_verdict();
    inv.sockets[1].channels_populated = 7;
    inv.sockets[1].dimms = 7;
    snprintf(inv.sockets[1].empty_channels, sizeof(inv.sockets[1].empty_channels), "C");
    const struct cause *c = named("empty_channel");
    assert_string_equal(c->summary, "socket 1 channel C empty");
    assert_non_null(strstr(c->evidence, "socket 1 has 7 of its 8 channels populated, no DIMM in "
                                        "channel C"));
    assert_non_null(c->remedy);
    /* the same socket is also populated unlike the other: named after the channel */
    assert_true(is_named("unbalanced_sockets"));
    assert_string_equal(out.causes[0].id, "empty_channel");
}

static void configuration_waits_for_a_reason(void **state)
{
    (void)state; /* PASS: the empty channel is a fact, but the node delivered what it should */
    inv.sockets[0].channels_populated = 7;
    snprintf(inv.sockets[0].empty_channels, sizeof(inv.sockets[0].empty_channels), "A");
    during.steal_share = 0.31;
    assert_false(is_named("empty_channel"));
    /* what a shortfall judged later (a cluster's peers) would name: the disturbance, then the
     * configuration, worst first */
    assert_int_equal(out.n, 1);
    assert_int_equal(out.n_if_short, 2);
    assert_string_equal(out.if_short[0].id, "empty_channel");
    assert_string_equal(out.if_short[0].summary, "socket 0 channel A empty");
    assert_string_equal(out.if_short[1].id, "cpu_steal");
    fail_verdict(); /* asked: the same list */
    diagnosis_make(&facts, &out);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.n_if_short, 2);
    for (int i = 0; i < 2; i++)
        assert_string_equal(out.if_short[i].summary, out.causes[i].summary);
}

static void fewer_channels_without_names(void **state)
{
    (void)state;
    fail_verdict();
    inv.sockets[0].channels_named = 0;
    inv.sockets[0].channels_populated = 6;
    const struct cause *c = named("empty_channel");
    assert_string_equal(c->summary, "socket 0: 6 of 8 channels populated");
    inv.sockets[0].channels_populated = -1; /* unknown: nothing is claimed */
    inv.sockets[1].channels_populated = -1;
    assert_false(is_named("empty_channel"));
}

static void below_rated_speed(void **state)
{
    (void)state;
    fail_verdict();
    assert_false(is_named("dimms_below_rated_speed"));
    inv.sockets[0].configured_mts = 4400;
    inv.sockets[0].dimms_per_channel_max = 2;
    const struct cause *c = named("dimms_below_rated_speed");
    assert_string_equal(c->summary, "DIMMs at 4400 of their rated 4800 MT/s");
    assert_non_null(strstr(c->evidence, "(2 DIMMs per channel): 92%"));
}

static void mixed_dimms(void **state)
{
    (void)state;
    fail_verdict();
    assert_false(is_named("mixed_dimms"));
    inv.sockets[1].mixed_sizes = true;
    assert_non_null(strstr(named("mixed_dimms")->evidence, "differ in size:"));
    inv.sockets[1].mixed_speeds = true;
    assert_non_null(
        strstr(named("mixed_dimms")->evidence, "socket 1's DIMMs differ in size and speed:"));
    inv.sockets[1].mixed_ranks = true;
    assert_non_null(strstr(named("mixed_dimms")->evidence, "differ in size, ranks and speed:"));
    /* the slots give each kind, counted; a size that is not whole GiB in MiB */
    inv.n_slots = 3;
    for (int i = 0; i < 3; i++)
        inv.slots[i] = (struct dimm_slot){.populated = true,
                                          .size_bytes = i ? 512ull << 20 : 8ull << 30,
                                          .type = "DDR3",
                                          .configured_mts = 1333,
                                          .rated_mts = i ? 1333 : 1600,
                                          .socket = 1};
    assert_non_null(strstr(named("mixed_dimms")->evidence,
                           "speed: 1 x 8 GiB DDR3 at 1333 MT/s (rated 1600), 2 x 512 MiB DDR3 at "
                           "1333 MT/s; channels"));
}

static void steal_named_whatever_the_verdict(void **state)
{
    (void)state;
    during.steal_share = 0.049;
    assert_false(is_named("cpu_steal"));
    during.steal_share = 0.31;
    const struct cause *c = named("cpu_steal");
    assert_non_null(strstr(c->evidence, "31% of the run's CPU time"));
    assert_string_equal(out.asked_by, ""); /* named on a PASS: it concerns the measurement */
}

static void other_work_by_either_share(void **state)
{
    (void)state;
    during.others_share = 0.02;
    during.wait_share = 0.01;
    assert_false(is_named("other_work"));
    during.wait_share = 0.48;
    const struct cause *c = named("other_work");
    assert_non_null(strstr(c->evidence, "other processes used 2%"));
    assert_non_null(strstr(c->evidence, "waited 48% of their time"));
    during.others_share = -1; /* unknown: only the share that was read is said */
    c = named("other_work");
    assert_null(strstr(c->evidence, "other processes"));
    during.wait_share = -1;
    assert_false(is_named("other_work"));
}

static void swapping(void **state)
{
    (void)state;
    during.swapped_pages = -1;
    assert_false(is_named("swapping"));
    during.swapped_pages = 1200;
    assert_string_equal(named("swapping")->summary, "1200 pages swapped during the run");
}

static void memory_errors(void **state)
{
    (void)state;
    snprintf(settings.edac_labels, sizeof(settings.edac_labels), "CPU_SrcID#0_Ha#0_Chan#2_DIMM#0");
    during.ce_total = 3;
    during.ce_growth = 0;
    assert_false(is_named("corrected_memory_errors")); /* PASS: a count since boot waits */
    during.ue_growth = 2;
    during.ue_total = 2;
    const struct cause *c = named("memory_errors_during_run");
    assert_non_null(strstr(c->evidence, "CPU_SrcID#0_Ha#0_Chan#2_DIMM#0"));
    assert_false(is_named("memory_errors_uncorrected")); /* not said twice */
    fail_verdict();
    assert_true(is_named("corrected_memory_errors"));
    assert_string_equal(out.causes[0].id, "memory_errors_during_run"); /* worst first */
}

static void settings_causes(void **state)
{
    (void)state;
    fail_verdict();
    assert_false(is_named("frequency_capped"));
    assert_false(is_named("numa_balancing"));
    assert_false(is_named("thp_never"));
    snprintf(settings.governor, sizeof(settings.governor), "powersave");
    settings.n_governor_other = 16;
    assert_string_equal(named("frequency_capped")->summary, "CPU governor not performance");
    snprintf(settings.governor, sizeof(settings.governor), "performance");
    settings.n_capped = 4;
    settings.capped_mhz = 1200;
    settings.max_mhz = 3500;
    assert_non_null(strstr(named("frequency_capped")->evidence, "4 CPUs capped at 1200 MHz"));
    settings.numa_balancing = 1;
    assert_true(is_named("numa_balancing"));
    snprintf(settings.thp_enabled, sizeof(settings.thp_enabled), "never");
    assert_true(is_named("thp_never"));
    run.config.pages = "2m"; /* hugetlb pages: THP's setting does not matter */
    assert_false(is_named("thp_never"));
}

static void slow_domain(void **state)
{
    (void)state;
    fail_verdict();
    run.n_domains = 4;
    run.domains = domains;
    run.config.per_domain = DOMAIN_NUMA;
    for (int d = 0; d < 4; d++)
        domains[d] = (struct domain_result){.index = d, .n_threads = 8};
    for (int d = 0; d < 4; d++)
        domains[d].best_rate_mbps[KERNEL_TRIAD] = 80000;
    domains[2].best_rate_mbps[KERNEL_TRIAD] = 74000; /* 7.5%: within the 10% */
    assert_false(is_named("slow_domain"));
    domains[2].best_rate_mbps[KERNEL_TRIAD] = 50000;
    const struct cause *c = named("slow_domain");
    assert_non_null(strstr(c->summary, " 2 slower than its peers"));
    assert_non_null(strstr(c->evidence, "38% below the median"));
}

static void efficiency_below_typical_asks(void **state)
{
    (void)state;
    snprintf(settings.governor, sizeof(settings.governor), "powersave");
    struct efficiency e = {.known = true,
                           .kernel = "Triad",
                           .pct = 55.0,
                           .typical_known = true,
                           .typical_min_pct = 75,
                           .typical_max_pct = 90,
                           .cpu_class = "X"};
    facts.efficiency = &e;
    assert_true(is_named("frequency_capped"));
    assert_string_equal(out.asked_by,
                        "Triad at 55% of the ceiling, below the typical 75-90% for X");
    e.pct = 80.0;
    assert_false(is_named("frequency_capped"));
    e.typical_known = false; /* no published range: no claim that 55% is low */
    e.pct = 55.0;
    assert_false(is_named("frequency_capped"));
    facts.efficiency = NULL;
}

static void efficiency_of_whole_node_runs_only(void **state)
{
    (void)state;
    struct efficiency e;
    run.n_results = 1;
    run.results[0] = (struct kernel_result){.kernel = KERNEL_TRIAD, .best_rate_mbps = 500000};
    run.config.threads = 64;
    efficiency_of(&run, 64, 614400.0, "SMBIOS: ...", NULL, &e);
    assert_true(e.known);
    assert_true(e.pct > 81.37 && e.pct < 81.39);
    efficiency_of(&run, 128, 614400.0, "SMBIOS: ...", NULL, &e);
    assert_false(e.known);
    assert_non_null(strstr(e.why_unknown, "64 threads of the node's 128 cores"));
    efficiency_of(&run, 64, 0.0, "unknown: no SMBIOS tables", NULL, &e);
    assert_false(e.known);
    assert_string_equal(e.why_unknown, "the ceiling is unknown: no SMBIOS tables");
    run.measured = false;
    efficiency_of(&run, 64, 614400.0, "x", NULL, &e);
    assert_false(e.known);
}

static void typical_range_only_with_a_published_row(void **state)
{
    (void)state;
    struct cpu_identity milan = {.vendor = "AuthenticAMD", .family = 25, .model = 1};
    const struct typical_efficiency *t = typical_efficiency_of(&milan);
    assert_non_null(t);
    assert_true(t->min_pct == 80 && t->max_pct == 85);
    assert_non_null(strstr(t->source, "https://"));
    struct cpu_identity turin = {.vendor = "AuthenticAMD", .family = 26, .model = 2};
    assert_null(typical_efficiency_of(&turin));
    struct cpu_identity other = {.vendor = "GenuineIntel", .family = 25, .model = 1};
    assert_null(typical_efficiency_of(&other));
    struct efficiency e;
    run.n_results = 1;
    run.results[0] = (struct kernel_result){.kernel = KERNEL_TRIAD, .best_rate_mbps = 300000};
    run.config.threads = 128;
    efficiency_of(&run, 128, 409600.0, "SMBIOS: ...", &milan, &e);
    assert_true(e.known && e.typical_known);
    assert_true(efficiency_below_typical(&e)); /* 73% < 80% */
    assert_string_equal(e.cpu_class, "AMD EPYC 7003 (Milan)");
}

/* Each package against its own socket, the packages in logical order whatever order the run
 * found them in; a run that cannot be compared says why. */
static void efficiency_per_package_run(void **state)
{
    (void)state;
    inv.sockets[0].id = 2; /* the locators' CPU2 before CPU1 in the tables */
    inv.sockets[1].id = 1;
    inv.sockets[0].ceiling_mbps = 300000;
    inv.sockets[1].ceiling_mbps = 400000;
    run.n_results = 1;
    run.results[0] = (struct kernel_result){.kernel = KERNEL_TRIAD, .best_rate_mbps = 500000};
    run.config.threads = 64;
    run.config.per_domain = DOMAIN_PACKAGE;
    run.n_domains = 2;
    run.domains = domains;
    domains[0] = (struct domain_result){.index = 1, .n_threads = 32};
    domains[1] = (struct domain_result){.index = 0, .n_threads = 32};
    domains[0].best_rate_mbps[KERNEL_TRIAD] = 150000;
    domains[1].best_rate_mbps[KERNEL_TRIAD] = 320000;
    struct efficiency e;
    efficiency_of(&run, 64, 700000.0, "SMBIOS: ...", NULL, &e);
    efficiency_per_package(&run, 64, &inv, &e);
    assert_int_equal(e.n_packages, 2);
    assert_string_equal(e.packages_why, "");
    assert_int_equal(e.packages[0].package, 1); /* package 1 is socket 2 */
    assert_int_equal(e.packages[0].socket_id, 2);
    assert_true(e.packages[0].pct == 50.0);
    assert_int_equal(e.packages[1].package, 0);
    assert_int_equal(e.packages[1].socket_id, 1);
    assert_true(e.packages[1].pct == 80.0);
    inv.n_sockets = 1;
    efficiency_per_package(&run, 64, &inv, &e);
    assert_int_equal(e.n_packages, 0);
    assert_string_equal(e.packages_why, "SMBIOS describes 1 socket, the run measured 2 packages");
    inv.n_sockets = 2;
    efficiency_per_package(&run, 128, &inv, &e);
    assert_string_equal(e.packages_why, "the run used 64 threads of the node's 128 cores");
    run.config.per_domain = DOMAIN_NUMA;
    efficiency_per_package(&run, 64, &inv, &e);
    assert_int_equal(e.n_packages, 0);
    assert_string_equal(e.packages_why, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(healthy_node_names_nothing, healthy),
        cmocka_unit_test_setup(empty_channel_named_with_its_name, healthy),
        cmocka_unit_test_setup(configuration_waits_for_a_reason, healthy),
        cmocka_unit_test_setup(fewer_channels_without_names, healthy),
        cmocka_unit_test_setup(below_rated_speed, healthy),
        cmocka_unit_test_setup(mixed_dimms, healthy),
        cmocka_unit_test_setup(steal_named_whatever_the_verdict, healthy),
        cmocka_unit_test_setup(other_work_by_either_share, healthy),
        cmocka_unit_test_setup(swapping, healthy),
        cmocka_unit_test_setup(memory_errors, healthy),
        cmocka_unit_test_setup(settings_causes, healthy),
        cmocka_unit_test_setup(slow_domain, healthy),
        cmocka_unit_test_setup(efficiency_below_typical_asks, healthy),
        cmocka_unit_test_setup(efficiency_of_whole_node_runs_only, healthy),
        cmocka_unit_test_setup(typical_range_only_with_a_published_row, healthy),
        cmocka_unit_test_setup(efficiency_per_package_run, healthy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
