/* Page locality: counting move_pages(2) statuses (OS node numbers) against the expected node
 * (an OS number too), sampling, the NUMA matrix's per-node placement, and the acceptance
 * check. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "affinity/page_locality.h"
#include "affinity/policy.h"
#include "src/report/report.h"
#include "src/verdict/acceptance.h"

/* The node move_pages(2) says a page of this process is on; -1 when it cannot say. */
static int node_of(void *page)
{
    int status = -1;
    if (syscall(SYS_move_pages, 0, 1ul, &page, NULL, &status, 0) != 0) return -1;
    return status;
}

static void counts_local_remote_and_absent_pages(void **state)
{
    (void)state;
    int status[] = {2, 2, 0, -ENOENT, -EFAULT, -EACCES, 1};
    struct page_locality loc;
    page_locality_begin(&loc);
    page_locality_tally(&loc, status, 7, 2); /* node 2 by its OS number, whatever hwloc's index */
    page_locality_end(&loc);
    assert_true(loc.verified);
    assert_int_equal(loc.pages_sampled, 7);
    assert_int_equal(loc.pages_local, 2);
    assert_int_equal(loc.pages_absent, 2);
    assert_true(loc.local_fraction > 2.0 / 7 - 1e-12 && loc.local_fraction < 2.0 / 7 + 1e-12);
}

static void absent_pages_are_never_local(void **state)
{
    (void)state;
    int status[] = {-ENOENT, -ENOENT};
    struct page_locality loc;
    page_locality_begin(&loc);
    page_locality_tally(&loc, status, 2, 0);
    page_locality_end(&loc);
    assert_true(loc.verified);
    assert_int_equal(loc.pages_local, 0);
    assert_int_equal(loc.pages_absent, 2);
    assert_true(loc.local_fraction == 0.0);
}

static void unknown_expected_node_counts_nothing_local(void **state)
{
    (void)state;
    int status[] = {0, 0};
    struct page_locality loc;
    page_locality_begin(&loc);
    page_locality_tally(&loc, status, 2, -1);
    assert_int_equal(loc.pages_local, 0);
}

static void failure_keeps_first_reason_and_no_fraction(void **state)
{
    (void)state;
    struct page_locality loc;
    page_locality_begin(&loc);
    page_locality_fail(&loc, "move_pages: %s", "Function not implemented");
    page_locality_fail(&loc, "second");
    page_locality_end(&loc);
    assert_false(loc.verified);
    assert_string_equal(loc.reason, "move_pages: Function not implemented");
    assert_true(loc.local_fraction == 0.0);

    page_locality_begin(&loc); /* nothing sampled is not verified either */
    page_locality_end(&loc);
    assert_false(loc.verified);
    assert_non_null(strstr(loc.reason, "no pages"));
}

/* A real range of this process: one page per step, at least one, all touched pages present. */
static void samples_one_page_per_step(void **state)
{
    (void)state;
    size_t bytes = 3u << 20;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 1, bytes);
    int node = node_of(p); /* where this process's pages are: presence is tested */
    struct page_locality loc;
    page_locality_begin(&loc);
    page_locality_sample(&loc, p, bytes, LOCALITY_STEP_BYTES, node);
    page_locality_sample(&loc, p + 100, 10, LOCALITY_STEP_BYTES, node);
    page_locality_end(&loc);
    if (!loc.verified) { /* a seccomp profile may forbid move_pages: the reason says so */
        assert_non_null(strstr(loc.reason, "move_pages"));
        munmap(p, bytes);
        skip();
    }
    assert_int_equal(loc.pages_sampled, 4);
    assert_int_equal(loc.pages_local, 4);
    assert_int_equal(loc.pages_absent, 0);
    munmap(p, bytes);
}

/* A thread's share is sampled only on pages wholly inside it: a page it shares with a
 * neighbour was placed by whichever of them touched it first. */
static void shares_sample_only_their_whole_pages(void **state)
{
    (void)state;
    size_t bytes = 4u << 20;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 1, bytes);
    int node = node_of(p);
    struct page_locality loc;
    page_locality_begin(&loc);
    /* 4 KiB pages: 100 bytes into page 0 up to 100 bytes into page 3 holds pages 1 and 2 */
    assert_int_equal(page_locality_sample_share(&loc, p + 100, 3 * 4096, 4096, 4096, node),
                     loc.verified ? 2 : 0);
    /* less than one whole page: nothing */
    assert_int_equal(page_locality_sample_share(&loc, p + 100, 4096, 4096, 4096, node), 0);
    /* 2 MiB pages: a share from 1 MiB to 3 MiB + 1 of a 2 MiB-aligned area holds none */
    char *huge = (char *)(((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
    size_t none = page_locality_sample_share(&loc, huge - (1u << 20), (2u << 20) + 1,
                                             LOCALITY_STEP_BYTES, 2u << 20, node);
    assert_int_equal(none, 0);
    page_locality_end(&loc);
    munmap(p, bytes);
    if (!loc.verified) skip();
    assert_int_equal(loc.pages_sampled, 2);
    assert_int_equal(loc.pages_local, 2);
}

static void untouched_pages_are_absent(void **state)
{
    (void)state;
    size_t bytes = 2u << 20;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    struct page_locality loc;
    page_locality_begin(&loc);
    page_locality_sample(&loc, p, bytes, LOCALITY_STEP_BYTES, 0);
    page_locality_end(&loc);
    munmap(p, bytes);
    if (!loc.verified) skip();
    assert_int_equal(loc.pages_sampled, 2);
    assert_int_equal(loc.pages_absent, 2);
    assert_int_equal(loc.pages_local, 0);
}

/* Two NUMA nodes of 4 cores with 2 PUs each: node 1's row runs on the first PU of its cores,
 * and a PU's node is named by its OS number. */
static void synthetic_numa_nodes(void **state)
{
    (void)state;
    setenv("HWLOC_SYNTHETIC", "numa:2 core:4 pu:2", 1);
    struct topology topo;
    char why[300];
    assert_int_equal(topology_load(&topo, why, sizeof(why)), 0);
    int rows[2];
    assert_int_equal(numa_matrix_rows(&topo, rows), 2);
    assert_int_equal(rows[1], 1);
    int pus[16];
    assert_int_equal(placement_numa_node(&topo, 1, pus, 16), 4);
    assert_int_equal(pus[0], 8);
    assert_int_equal(pus[1], 10);
    assert_int_equal(pus[3], 14);
    assert_int_equal(placement_numa_node(&topo, 0, pus, 2), 2);  /* at most max */
    assert_int_equal(placement_numa_node(&topo, 2, pus, 16), 0); /* no such node */
    assert_int_equal(topology_locate_pu(&topo, 9).numa, 1);
    topology_unload(&topo);
    unsetenv("HWLOC_SYNTHETIC");
}

static const struct acceptance_check *find(const struct acceptance_result *a, const char *name)
{
    for (int i = 0; i < a->n_checks; i++)
        if (strcmp(a->checks[i].name, name) == 0) return &a->checks[i];
    return NULL;
}

static void acceptance_fails_remote_pages_and_skips_unknown(void **state)
{
    (void)state;
    struct report rep;
    struct run_result run;
    memset(&rep, 0, sizeof(rep));
    memset(&run, 0, sizeof(run));
    rep.topo.pus = rep.topo.cores = rep.topo.machine_pus = 4;
    run.config.pages = "default";
    run.measured = true;
    run.validation.passed = true;
    run.backing.verified = true;
    run.backing.page_size_bytes = 4096;
    run.locality.verified = true;
    run.locality.pages_sampled = 100;
    run.locality.pages_local = 50;
    run.locality.local_fraction = 0.5;
    struct expectations e;
    memset(&e, 0, sizeof(e));
    e.whole_node = true;
    struct node_facts node = report_node_facts(&rep);
    struct acceptance_result res;
    acceptance_evaluate(&node, &run, &e, 5.0, &res);
    const struct acceptance_check *c = find(&res, "locality");
    assert_non_null(c);
    assert_false(c->passed);
    assert_false(res.passed);
    assert_non_null(strstr(c->measured, "50.0%"));

    run.locality.pages_local = 100;
    run.locality.local_fraction = 1.0;
    acceptance_evaluate(&node, &run, &e, 5.0, &res);
    assert_true(find(&res, "locality")->passed);
    assert_true(res.passed);

    run.locality.verified = false; /* never judged on a number that was not measured */
    acceptance_evaluate(&node, &run, &e, 5.0, &res);
    assert_null(find(&res, "locality"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_local_remote_and_absent_pages),
        cmocka_unit_test(absent_pages_are_never_local),
        cmocka_unit_test(unknown_expected_node_counts_nothing_local),
        cmocka_unit_test(failure_keeps_first_reason_and_no_fraction),
        cmocka_unit_test(samples_one_page_per_step),
        cmocka_unit_test(shares_sample_only_their_whole_pages),
        cmocka_unit_test(untouched_pages_are_absent),
        cmocka_unit_test(synthetic_numa_nodes),
        cmocka_unit_test(acceptance_fails_remote_pages_and_skips_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
