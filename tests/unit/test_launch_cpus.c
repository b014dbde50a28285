/* The CPUs the process was launched on, as opposed to an OpenMP runtime's pin of thread 0. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <omp.h>

#include "affinity/launch_cpus.h"

static const unsigned long all[2] = {0x3, 0}, pu0[2] = {0x1, 0}, pu1[2] = {0x2, 0};

/* Nothing changed, or only the libraries' constructors (libgomp's pin): the launch set. */
static void runtime_pin_is_ignored(void **state)
{
    (void)state;
    assert_ptr_equal(launch_cpus_choose(all, all, all, 2), all);
    assert_ptr_equal(launch_cpus_choose(all, pu0, pu0, 2), all);
    assert_ptr_equal(launch_cpus_choose(pu1, pu1, pu1, 2), pu1); /* taskset -c 1 */
}

/* Rebound after the libraries loaded (MPI_Init binding the rank): that binding counts. */
static void later_rebinding_counts(void **state)
{
    (void)state;
    assert_ptr_equal(launch_cpus_choose(all, all, pu1, 2), pu1);
    assert_ptr_equal(launch_cpus_choose(all, pu0, pu1, 2), pu1);
}

static void missing_snapshots_fall_back_to_now(void **state)
{
    (void)state;
    assert_ptr_equal(launch_cpus_choose(NULL, NULL, pu0, 2), pu0);
    assert_ptr_equal(launch_cpus_choose(NULL, all, pu0, 2), pu0);
    assert_ptr_equal(launch_cpus_choose(all, NULL, pu0, 2), all);
}

/* In this process: the launch set (holding the current binding, which OMP_PROC_BIND may have
 * narrowed) at first, the new binding once the main thread is rebound. */
static void this_process(void **state)
{
    (void)state;
    cpu_set_t start;
    assert_int_equal(sched_getaffinity(0, sizeof(start), &start), 0);
    hwloc_bitmap_t got = hwloc_bitmap_alloc();
    assert_int_equal(launch_cpus(got), 0);
    int last = -1, cpu;
    hwloc_bitmap_foreach_begin(cpu, got)
    {
        if (last < 0 || !CPU_ISSET(cpu, &start)) last = cpu; /* unlike the binding, if we can */
    }
    hwloc_bitmap_foreach_end();
    for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &start)) assert_true(hwloc_bitmap_isset(got, (unsigned)cpu));
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(last, &one);
    assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
    assert_int_equal(launch_cpus(got), 0);
    assert_int_equal(hwloc_bitmap_weight(got), 1);
    assert_true(hwloc_bitmap_isset(got, (unsigned)last));
    assert_int_equal(sched_setaffinity(0, sizeof(start), &start), 0);
    hwloc_bitmap_free(got);
}

int main(void)
{
    (void)omp_get_max_threads(); /* loads libgomp, whose constructor pins under OMP_PROC_BIND */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runtime_pin_is_ignored),
        cmocka_unit_test(later_rebinding_counts),
        cmocka_unit_test(missing_snapshots_fall_back_to_now),
        cmocka_unit_test(this_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
