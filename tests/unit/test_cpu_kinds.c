/* The kind of core a PU sits on (topology_locate_pu's kind), which decides which threads of a
 * `--tlb --threads` run take the stride probe's index: on a hybrid CPU (hwloc's CPU kinds, here
 * tests/topologies/hybrid-2p4e.xml: PUs 0-1 on performance cores, 2-5 on efficiency cores) PUs
 * of one kind share it and the two kinds differ; where hwloc knows no kinds every PU is -1, so
 * every thread takes the index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "affinity/topology.h"

static void load(const char *name, struct topology *topo)
{
    char path[512], why[512] = "";
    snprintf(path, sizeof(path), "%s/topologies/%s", TESTS_DIR, name);
    assert_int_equal(setenv("HWLOC_XMLFILE", path, 1), 0);
    int rc = topology_load(topo, why, sizeof(why));
    if (rc != 0) print_message("%s\n", why);
    assert_int_equal(rc, 0);
}

static void hybrid_kinds_differ(void **state)
{
    (void)state;
    struct topology topo;
    load("hybrid-2p4e.xml", &topo);
    int performance = topology_locate_pu(&topo, 0).kind;
    int efficiency = topology_locate_pu(&topo, 2).kind;
    assert_true(performance >= 0 && efficiency >= 0);
    assert_int_not_equal(performance, efficiency);
    assert_int_equal(topology_locate_pu(&topo, 1).kind, performance);
    for (int pu = 3; pu <= 5; pu++)
        assert_int_equal(topology_locate_pu(&topo, pu).kind, efficiency);
    assert_int_equal(topology_locate_pu(&topo, 6).kind, -1); /* no such PU */
    topology_unload(&topo);
}

static void one_kind_when_hwloc_knows_none(void **state)
{
    (void)state;
    struct topology topo;
    load("xeon-e5-2670-2s.xml", &topo);
    for (int pu = 0; pu < 4; pu++)
        assert_int_equal(topology_locate_pu(&topo, pu).kind, -1);
    topology_unload(&topo);
}

int main(void)
{
    unsetenv("HWLOC_SYNTHETIC");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hybrid_kinds_differ),
        cmocka_unit_test(one_kind_when_hwloc_knows_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
