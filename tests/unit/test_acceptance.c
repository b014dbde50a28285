/* The acceptance profile judges the whole node: a run that could use only part of the node's
 * PUs (a launcher's binding, taskset, a job's cpuset) fails the "cpus" check with the remedy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "src/verdict/acceptance.h"
#include "src/report/report.h"

static struct report rep;
static struct run_result run;

static void measured_run(bool restricted)
{
    memset(&rep, 0, sizeof(rep));
    memset(&run, 0, sizeof(run));
    rep.topo.pus = restricted ? 1 : 16;
    rep.topo.cores = rep.topo.pus;
    rep.topo.machine_pus = 16;
    rep.topo.restricted = restricted;
    snprintf(rep.topo.restricted_by, sizeof(rep.topo.restricted_by), "%s",
             restricted ? "affinity mask" : "");
    snprintf(rep.topo.cpus, sizeof(rep.topo.cpus), restricted ? "3" : "0-15");
    run.config.pages = "default";
    run.measured = true;
    run.validation.passed = true;
    run.backing.verified = true;
    run.backing.page_size_bytes = 4096;
}

static const struct acceptance_check *find(const struct acceptance_result *a, const char *name)
{
    for (int i = 0; i < a->n_checks; i++)
        if (strcmp(a->checks[i].name, name) == 0) return &a->checks[i];
    return NULL;
}

static void profile_fails_a_run_bound_to_part_of_the_node(void **state)
{
    (void)state;
    struct expectations e = {.hugepages_2m = -1, .whole_node = true};
    struct acceptance_result a;
    measured_run(true);
    acceptance_evaluate(&(struct node_facts){rep.version, &rep.prov, &rep.topo, &rep.sys, NULL, NULL, 0},
                        &run, &e, 5.0, &a);
    const struct acceptance_check *c = find(&a, "cpus");
    assert_non_null(c);
    assert_false(c->passed);
    assert_false(a.passed);
    assert_string_equal(c->measured, "1 of 16 PUs usable (3): affinity mask");
    assert_non_null(strstr(c->expected, "all 16 PUs"));
    assert_non_null(strstr(c->expected, "--bind-to none"));
    assert_non_null(strstr(c->expected, "--cpu-bind=none"));
}

/* A job step's or container's cpuset: the cause is named, and the remedy is to leave it. */
static void profile_names_a_cgroup_cpuset(void **state)
{
    (void)state;
    struct expectations e = {.hugepages_2m = -1, .whole_node = true};
    struct acceptance_result a;
    measured_run(true);
    snprintf(rep.topo.restricted_by, sizeof(rep.topo.restricted_by), "cgroup cpuset");
    acceptance_evaluate(&(struct node_facts){rep.version, &rep.prov, &rep.topo, &rep.sys, NULL, NULL, 0},
                        &run, &e, 5.0, &a);
    const struct acceptance_check *c = find(&a, "cpus");
    assert_non_null(c);
    assert_false(c->passed);
    assert_string_equal(c->measured, "1 of 16 PUs usable (3): a cgroup cpuset");
    assert_non_null(strstr(c->expected, "all 16 PUs"));
    assert_non_null(strstr(c->expected, "outside the job's cpuset"));
}

static void profile_passes_a_run_on_every_pu(void **state)
{
    (void)state;
    struct expectations e = {.hugepages_2m = -1, .whole_node = true};
    struct acceptance_result a;
    measured_run(false);
    acceptance_evaluate(&(struct node_facts){rep.version, &rep.prov, &rep.topo, &rep.sys, NULL, NULL, 0},
                        &run, &e, 5.0, &a);
    const struct acceptance_check *c = find(&a, "cpus");
    assert_non_null(c);
    assert_true(c->passed);
    assert_true(a.passed);
}

static void expectations_alone_judge_the_cpus_given(void **state)
{
    (void)state;
    struct expectations e = {.hugepages_2m = -1};
    struct acceptance_result a;
    measured_run(true);
    acceptance_evaluate(&(struct node_facts){rep.version, &rep.prov, &rep.topo, &rep.sys, NULL, NULL, 0},
                        &run, &e, 5.0, &a);
    assert_null(find(&a, "cpus"));
    assert_true(a.passed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profile_fails_a_run_bound_to_part_of_the_node),
        cmocka_unit_test(profile_names_a_cgroup_cpuset),
        cmocka_unit_test(profile_passes_a_run_on_every_pu),
        cmocka_unit_test(expectations_alone_judge_the_cpus_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
