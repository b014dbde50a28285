/* Pure pieces of the probes: filesystem classification, the repetition maths, getrusage deltas, the
 * anonymous rows' checks on fake sysfs trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <cmocka.h>

#include "tests/unit/scratch_tree.h"

#include "src/probes/fault_probe.h"
#include "src/probes/shootdown_probe.h"
#include "src/probes/timer_probe.h"

static void memory_backed_filesystems(void **state)
{
    (void)state;
    assert_string_equal(fs_memory_backed_name(0x01021994), "tmpfs");
    assert_string_equal(fs_memory_backed_name(0x858458f6), "ramfs");
    assert_null(fs_memory_backed_name(0xef53));     /* ext2/3/4 */
    assert_null(fs_memory_backed_name(0x58465342)); /* xfs */
    assert_null(fs_memory_backed_name(0x6969));     /* nfs: slow, but it has a disk behind */
    char name[32];
    fs_type_name(0xef53, name, sizeof(name));
    assert_string_equal(name, "ext4");
    fs_type_name(0x12345678, name, sizeof(name));
    assert_string_equal(name, "0x12345678");
    /* the real thing, where a tmpfs is mounted */
    struct statfs sf;
    if (statfs("/dev/shm", &sf) == 0 && sf.f_type == 0x01021994) {
        assert_string_equal(fs_memory_backed_name((long)sf.f_type), "tmpfs");
        struct fault_config cfg = {.bytes = 2u << 20, .mask = FAULT_MASK_ALL, .dir = "/dev/shm"};
        char why[300];
        assert_int_equal(fault_backing_check(FAULT_FILE, &cfg, why, sizeof(why)), -1);
        assert_non_null(strstr(why, "tmpfs"));
        assert_non_null(strstr(why, "--faults-dir"));
    }
}

static void missing_directory(void **state)
{
    (void)state;
    struct fault_config cfg = {.bytes = 2u << 20, .mask = FAULT_MASK_ALL, .dir = "/nonexistent/x"};
    char why[300];
    assert_int_equal(fault_backing_check(FAULT_FILE_READAHEAD, &cfg, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "/nonexistent/x"));
}

static void repetitions_for_one_percent(void **state)
{
    (void)state;
    double reps;
    /* clock_gettime: 25 ns steps -> 2.5 us, filled by 2500 operations of 1 ns */
    assert_true(fabs(timer_min_interval(25e-9, 0.01, 1e-9, &reps) - 2.5e-6) < 1e-15);
    assert_true(reps == 2500.0);
    /* gettimeofday: 1 us -> 100 us; a 10 ns operation 10000 times */
    assert_true(fabs(timer_min_interval(1e-6, 0.01, 10e-9, &reps) - 1e-4) < 1e-15);
    assert_true(reps == 10000.0);
    /* 5% (STREAM's 20 ticks) needs 20 steps */
    assert_true(fabs(timer_min_interval(1e-6, 0.05, 1e-6, &reps) - 20e-6) < 1e-15);
    assert_true(reps == 20.0);
    /* a fraction of an operation rounds up */
    timer_min_interval(25e-9, 0.01, 3e-9, &reps);
    assert_true(reps == 834.0);
    /* unknown granularity: no advice */
    assert_true(timer_min_interval(0.0, 0.01, 1e-9, &reps) == 0.0);
    assert_true(reps == 0.0);
    assert_true(timer_min_interval(NAN, 0.01, 1e-9, &reps) == 0.0);
}

static void tsc_from_cpuid_leaf15(void **state)
{
    (void)state;
    /* Skylake servers give the ratio but no crystal frequency (ECX = 0): not enumerated */
    assert_true(tsc_hz_from_leaf15(2, 176, 0) == 0.0);
    /* a client part: 24 MHz crystal x 184/2 = 2208 MHz */
    assert_true(tsc_hz_from_leaf15(2, 184, 24000000) == 2208e6);
    assert_true(tsc_hz_from_leaf15(0, 0, 0) == 0.0);
}

/* One store per page. Not instrumented: under AddressSanitizer (ThreadSanitizer) every checked
 * store also reads (writes) its shadow memory, and the first touch of each shadow page is a
 * fault of its own. */
__attribute__((no_sanitize_address, no_sanitize_thread)) static void touch_pages(char *p, int pages)
{
    for (int i = 0; i < pages; i++)
        ((volatile char *)p)[i * 4096] = 1;
}

static void rusage_deltas(void **state)
{
    (void)state;
    struct rusage before, after;
    memset(&before, 0, sizeof(before));
    memset(&after, 0, sizeof(after));
    before.ru_minflt = 100;
    before.ru_majflt = 7;
    after.ru_minflt = 16484;
    after.ru_majflt = 7;
    struct fault_counts d = fault_counts_delta(&before, &after);
    assert_int_equal(d.minor, 16384);
    assert_int_equal(d.major, 0);
    d = fault_counts_delta(&after, &before); /* never negative */
    assert_int_equal(d.minor, 0);

    /* and for real: 256 fresh 4 KB pages, THP off, one fault each */
    enum { PAGES = 256 };
    char *p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    madvise(p, PAGES * 4096, MADV_NOHUGEPAGE);
    getrusage(RUSAGE_THREAD, &before);
    touch_pages(p, PAGES);
    getrusage(RUSAGE_THREAD, &after);
    munmap(p, PAGES * 4096);
    d = fault_counts_delta(&before, &after);
    assert_in_range(d.minor, PAGES, PAGES + 16);
    assert_int_equal(d.major, 0);
}

/* A fake sysfs root: THP in the given mode, a 2 MB pool of `free` free pages. */
static void fake_sys_root(char *root, size_t len, const char *thp, int free_pages)
{
    assert_int_equal(scratch_make(root, len, "probes"), 0);
    char path[300], value[64];
    snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage", root);
    scratch_dirs(path);
    snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-2048kB", root);
    scratch_dirs(path);
    static const char *const names[] = {"nr_hugepages", "free_hugepages", "resv_hugepages"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-2048kB/%s", root, names[i]);
        snprintf(value, sizeof(value), "%d\n", i == 2 ? 0 : free_pages);
        scratch_write(path, value);
    }
    snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled", root);
    snprintf(value, sizeof(value), "%s\n", thp);
    scratch_write(path, value);
    snprintf(path, sizeof(path), "%s/meminfo", root);
    scratch_write(path, "Hugepagesize:       2048 kB\n");
}

/* The anonymous rows are checked by hugepages/'s backends, on the env they are given; their
 * remedies name the fault probe's options. */
static void anonymous_checks_use_the_backends(void **state)
{
    (void)state;
    char root[64], meminfo[128], why[600];
    fake_sys_root(root, sizeof(root), "always madvise [never]", 0);
    snprintf(meminfo, sizeof(meminfo), "%s/meminfo", root);
    struct mem_env env = {root, meminfo};
    struct fault_config cfg = {.bytes = 64u << 20, .mask = FAULT_MASK_ALL, .env = &env};
    assert_int_equal(fault_backing_check(FAULT_4K, &cfg, why, sizeof(why)), 0);
    assert_int_equal(fault_backing_check(FAULT_THP, &cfg, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "'never'"));
    assert_non_null(strstr(why, "echo madvise > "));
    assert_non_null(strstr(why, "use --faults-backing 2m"));
    assert_null(strstr(why, "--pages"));
    assert_int_equal(fault_backing_check(FAULT_2M, &cfg, why, sizeof(why)), -1);
    assert_non_null(
        strstr(why, "the 2 MiB hugetlb pool has too few free pages: 32 needed, 0 available"));
    assert_non_null(strstr(why, "echo 32 > /proc/sys/vm/nr_hugepages"));
    assert_int_equal(scratch_remove(root), 0);

    fake_sys_root(root, sizeof(root), "always [madvise] never", 32);
    snprintf(meminfo, sizeof(meminfo), "%s/meminfo", root);
    env = (struct mem_env){root, meminfo};
    assert_int_equal(fault_backing_check(FAULT_THP, &cfg, why, sizeof(why)), 0);
    assert_int_equal(fault_backing_check(FAULT_2M, &cfg, why, sizeof(why)), 0);
    cfg.bytes += 2u << 20; /* one page more than the pool has */
    assert_int_equal(fault_backing_check(FAULT_2M, &cfg, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "echo 33 > /proc/sys/vm/nr_hugepages"));
    assert_int_equal(scratch_remove(root), 0);
}

static void backing_names(void **state)
{
    (void)state;
    assert_string_equal(fault_backing_name(FAULT_4K), "4k");
    assert_string_equal(fault_backing_name(FAULT_THP), "thp");
    assert_string_equal(fault_backing_name(FAULT_2M), "2m");
    assert_string_equal(fault_backing_name(FAULT_FILE), "file");
    assert_string_equal(fault_backing_name(FAULT_FILE_READAHEAD), "file-readahead");
    assert_string_equal(shootdown_mode_name(SHOOTDOWN_MUNMAP), "munmap");
    assert_string_equal(shootdown_mode_name(SHOOTDOWN_DONTNEED), "madv_dontneed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_backed_filesystems),
        cmocka_unit_test(missing_directory),
        cmocka_unit_test(repetitions_for_one_percent),
        cmocka_unit_test(tsc_from_cpuid_leaf15),
        cmocka_unit_test(rusage_deltas),
        cmocka_unit_test(anonymous_checks_use_the_backends),
        cmocka_unit_test(backing_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
