/* Parsers of kernel files: cache topology from sysfs, MemAvailable, THP mode, smaps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/scratch_tree.h"

#include "affinity/topology.h"
#include "hugepages/backend.h"
#include "src/sys/cgroup_cpuset.h"
#include "src/sys/provenance.h"
#include "src/base/utf8_text.h"
#include "src/sys/sysinfo.h"

static char tmp_root[64];

static void add_cache(int cpu, int index, const char *level, const char *type, const char *size,
                      const char *shared)
{
    char dir[256], path[300];
    snprintf(dir, sizeof(dir), "%s/cpu%d", tmp_root, cpu);
    mkdir(dir, 0755);
    strcat(dir, "/cache");
    mkdir(dir, 0755);
    snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/index%d", index);
    mkdir(dir, 0755);
    snprintf(path, sizeof(path), "%s/level", dir);
    scratch_write(path, level);
    snprintf(path, sizeof(path), "%s/type", dir);
    scratch_write(path, type);
    snprintf(path, sizeof(path), "%s/size", dir);
    scratch_write(path, size);
    snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
    scratch_write(path, shared);
}

static int make_root(void **state)
{
    (void)state;
    assert_int_equal(scratch_make(tmp_root, sizeof(tmp_root), "test"), 0);
    return 0;
}

static int remove_root(void **state)
{
    (void)state;
    return scratch_remove(tmp_root);
}

/* Two CCXs of two CPUs, each with its own 32 MiB L3: both instances count. */
static void llc_sums_every_instance(void **state)
{
    (void)state;
    const char *shared[] = {"0-1", "0-1", "2-3", "2-3"};
    for (int cpu = 0; cpu < 4; cpu++) {
        add_cache(cpu, 0, "1\n", "Data\n", "32K\n", cpu % 2 ? "1" : "0");
        add_cache(cpu, 1, "1\n", "Instruction\n", "32K\n", "0");
        add_cache(cpu, 2, "2\n", "Unified\n", "1024K\n", "0");
        add_cache(cpu, 3, "3\n", "Unified\n", "32768K\n", shared[cpu]);
    }
    int level = 0, count = 0;
    uint64_t bytes = 0;
    assert_int_equal(llc_from_sysfs(tmp_root, &level, &count, &bytes), 0);
    assert_int_equal(level, 3);
    assert_int_equal(count, 2);
    assert_int_equal(bytes, 64ull << 20);
}

static void llc_unknown_without_caches(void **state)
{
    (void)state;
    int level, count;
    uint64_t bytes;
    assert_int_equal(llc_from_sysfs("/nonexistent/cpu", &level, &count, &bytes), -1);
    char empty[300];
    snprintf(empty, sizeof(empty), "%s/empty", tmp_root);
    mkdir(empty, 0755);
    assert_int_equal(llc_from_sysfs(empty, &level, &count, &bytes), -1);
}

static void meminfo_and_choice_files(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof(path), "%s/meminfo", tmp_root);
    scratch_write(path, "MemTotal:       24576000 kB\nMemFree:        1000 kB\n"
                        "MemAvailable:   24321404 kB\nBuffers: 0 kB\n");
    uint64_t avail = 0;
    assert_int_equal(meminfo_available(path, &avail), 0);
    assert_int_equal(avail, 24321404ull * 1024);
    scratch_write(path, "MemTotal: 1 kB\n");
    assert_int_equal(meminfo_available(path, &avail), -1);

    char word[32];
    scratch_write(path, "always [madvise] never\n");
    assert_int_equal(sysfs_selected_word(path, word, sizeof(word)), 0);
    assert_string_equal(word, "madvise");
    scratch_write(path, "always madvise never\n");
    assert_int_equal(sysfs_selected_word(path, word, sizeof(word)), -1);
}

/* The OS's name for the CPU, as CPUID pads it or not: the same text either way. */
static void cpu_model_name(void **state)
{
    (void)state;
    char path[300], model[128];
    snprintf(path, sizeof(path), "%s/cpuinfo", tmp_root);
    scratch_write(path, "processor\t: 0\nvendor_id\t: GenuineIntel\n"
                        "model name\t:        Intel(R) Xeon(R) CPU   E5-2670 0 @ 2.60GHz  \n"
                        "processor\t: 1\nmodel name\t: other\n");
    assert_int_equal(cpuinfo_model_name(path, model, sizeof(model)), 0);
    assert_string_equal(model, "Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz");
    scratch_write(path, "processor\t: 0\nmodel name\t:   \nmodel name\t: AMD EPYC\n");
    assert_int_equal(cpuinfo_model_name(path, model, sizeof(model)), 0);
    assert_string_equal(model, "AMD EPYC");
    scratch_write(path, "processor\t: 0\nCPU part\t: 0xd40\n");
    assert_int_equal(cpuinfo_model_name(path, model, sizeof(model)), -1);
    char padded[] = "Oxide Virtual Turin-like Processor             ";
    assert_string_equal(text_squeeze_blanks(padded), "Oxide Virtual Turin-like Processor");
    char blank[] = " \t ";
    assert_string_equal(text_squeeze_blanks(blank), "");
}

static const char *smaps_text =
    "55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0                          [heap]\n"
    "Size:                132 kB\n"
    "KernelPageSize:        4 kB\n"
    "Rss:                   8 kB\n"
    "AnonHugePages:         0 kB\n"
    "7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
    "Size:               8192 kB\n"
    "KernelPageSize:        4 kB\n"
    "MMUPageSize:           4 kB\n"
    "Rss:                8192 kB\n"
    "AnonHugePages:      6144 kB\n"
    "Private_Hugetlb:       0 kB\n"
    "7f0000800000-7f0000c00000 rw-p 00000000 00:0f 1234                       /anon_hugepage\n"
    "Size:               4096 kB\n"
    "KernelPageSize:     2048 kB\n"
    "Rss:                   0 kB\n"
    "AnonHugePages:         0 kB\n"
    "Private_Hugetlb:    4096 kB\n";

static void smaps_ranges(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof(path), "%s/smaps", tmp_root);
    scratch_write(path, smaps_text);

    struct backing_info info;
    const struct mem_backend *any = mem_backend_find("default");
    backing_verify(path, any, 0x7f0000000000, 0x7f0000800000, "test", &info);
    assert_true(info.verified);
    assert_int_equal(info.page_size_bytes, 4096); /* 75% THP: not all on 2 MiB */
    assert_true(info.thp_fraction == 0.75);
    assert_int_equal(info.anon_huge_bytes, 6144ull * 1024);

    backing_verify(path, any, 0x7f0000800000, 0x7f0000c00000, "test", &info);
    assert_true(info.verified);
    assert_int_equal(info.page_size_bytes, 2u << 20);
    assert_int_equal(info.hugetlb_bytes, 4096ull * 1024);

    struct smaps_totals t;
    assert_int_equal(smaps_scan(path, 0x1000, 0x2000, &t), 0);
    assert_false(t.found);
    backing_verify(path, any, 0x1000, 0x2000, "test", &info);
    assert_false(info.verified);
    assert_int_equal(info.page_size_bytes, 0);
    assert_string_equal(info.mismatch, ""); /* nothing was promised: no failure */
}

/* Recorded from a real process by tests/fixtures/record_smaps.c (Linux 6.18, x86-64): the
 * region's entry between its real neighbours. */
struct fixture {
    const char *file;
    uintptr_t start, end;
};
static const struct fixture rec_4k = {"smaps-4k.txt", 0x7f5611000000, 0x7f5611800000};
static const struct fixture rec_thp = {"smaps-thp.txt", 0x7f5610400000, 0x7f5610c00000};
static const struct fixture rec_thp_part = {"smaps-thp-partial.txt", 0x7f560f900000,
                                            0x7f5610100000};
static const struct fixture rec_2m = {"smaps-hugetlb-2m.txt", 0x7f560f400000, 0x7f560f800000};

static void verify_as(const struct fixture *f, const char *backing, struct backing_info *info)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/fixtures/%s", TESTS_DIR, f->file);
    const struct mem_backend *b = mem_backend_find(backing);
    assert_non_null(b);
    backing_verify(path, b, f->start, f->end, "recorded", info);
}

static void recorded_4k(void **state)
{
    (void)state;
    struct backing_info info;
    verify_as(&rec_4k, "4k", &info);
    assert_true(info.verified);
    assert_string_equal(info.mismatch, "");
    assert_int_equal(info.page_size_bytes, 4096);
    assert_int_equal(info.rss_bytes, 8u << 20);
    assert_int_equal(info.anon_huge_bytes, 0);
    assert_true(info.thp_fraction == 0.0);
    verify_as(&rec_4k, "default", &info);
    assert_true(info.verified);
}

static void recorded_thp(void **state)
{
    (void)state;
    struct backing_info info;
    verify_as(&rec_thp, "thp", &info);
    assert_true(info.verified);
    assert_int_equal(info.page_size_bytes, 2u << 20); /* fully covered */
    assert_true(info.thp_fraction == 1.0);
    assert_int_equal(info.anon_huge_bytes, 8u << 20);
}

static void recorded_thp_partial(void **state)
{
    (void)state;
    struct backing_info info;
    verify_as(&rec_thp_part, "thp", &info);
    assert_true(info.verified); /* THP is best effort: partial coverage is reported */
    assert_int_equal(info.page_size_bytes, 4096);
    assert_true(info.thp_fraction == 0.75);
}

static void recorded_hugetlb_2m(void **state)
{
    (void)state;
    struct backing_info info;
    verify_as(&rec_2m, "2m", &info);
    assert_true(info.verified);
    assert_int_equal(info.page_size_bytes, 2u << 20);
    assert_int_equal(info.hugetlb_bytes, 4u << 20);
    assert_int_equal(info.rss_bytes, 0); /* hugetlb pages are not in Rss */
    assert_true(info.thp_fraction == 0.0);
}

/* Pages other than those asked for: not verified, and the reason names what smaps shows. */
static void recorded_mismatches(void **state)
{
    (void)state;
    struct backing_info info;
    verify_as(&rec_4k, "2m", &info);
    assert_false(info.verified);
    assert_int_equal(info.page_size_bytes, 4096); /* what it really is */
    assert_non_null(strstr(info.mismatch, "--pages 2m asked for 2 MiB pages"));
    assert_non_null(strstr(info.mismatch, "KernelPageSize 4 KiB"));
    assert_non_null(strstr(info.mismatch, "Private_Hugetlb 0 B"));

    verify_as(&rec_thp, "4k", &info); /* THP where 4 KiB was asked */
    assert_false(info.verified);
    assert_non_null(strstr(info.mismatch, "AnonHugePages 8.0 MiB"));

    verify_as(&rec_2m, "1g", &info);
    assert_false(info.verified);
    assert_non_null(strstr(info.mismatch, "1 GiB pages"));
    assert_non_null(strstr(info.mismatch, "KernelPageSize 2 MiB"));

    verify_as(&rec_2m, "thp", &info);
    assert_false(info.verified);

    verify_as(&rec_2m, "4k", &info);
    assert_false(info.verified);

    struct fixture nowhere = {"smaps-4k.txt", 0x1000, 0x2000};
    verify_as(&nowhere, "2m", &info);
    assert_false(info.verified);
    assert_non_null(strstr(info.mismatch, "cannot verify"));
}

static void write_dimm(const char *entries, int index, unsigned size_mb, unsigned mts,
                       unsigned configured)
{
    char dir[400], path[420];
    snprintf(dir, sizeof(dir), "%s/17-%d", entries, index);
    mkdir(dir, 0755);
    unsigned char r[0x28] = {0};
    r[0] = 17;
    r[1] = sizeof(r);
    r[0x0A] = 64; /* data width, bits */
    r[0x0C] = (unsigned char)(size_mb & 0xFF);
    r[0x0D] = (unsigned char)(size_mb >> 8);
    r[0x15] = (unsigned char)(mts & 0xFF);
    r[0x16] = (unsigned char)(mts >> 8);
    r[0x20] = (unsigned char)(configured & 0xFF);
    r[0x21] = (unsigned char)(configured >> 8);
    snprintf(path, sizeof(path), "%s/raw", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(r, 1, sizeof(r), f);
    fclose(f);
}

/* The peak as membench reads it: the DIMM inventory of a one-package Xeon Gold (6 channels). */
static void peak_from_smbios(const char *entries, struct provenance *p)
{
    static const struct cpu_identity gold = {"GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6136",
                                             1};
    static struct dimm_inventory inv;
    dimm_inventory_read(entries, &gold, &inv);
    peak_from_inventory(&inv, p);
}

/* Channels populated x the slowest configured MT/s x 8 bytes: 8 DIMMs without named channels
 * on a 6-channel CPU fill its 6 channels. */
static void smbios_peak(void **state)
{
    (void)state;
    char entries[300];
    snprintf(entries, sizeof(entries), "%s/dmi", tmp_root);
    mkdir(entries, 0755);
    struct provenance p;
    memset(&p, 0, sizeof(p));
    peak_from_smbios(entries, &p);
    assert_true(p.peak_mbps == 0.0);
    assert_non_null(strstr(p.peak_source, "unknown"));
    for (int i = 0; i < 8; i++)
        write_dimm(entries, i, 8192, 1866, 1600); /* rated 1866, running at 1600 */
    write_dimm(entries, 8, 0, 0, 0);              /* an empty slot */
    peak_from_smbios(entries, &p);
    assert_true(p.peak_mbps == 76800.0);
    assert_non_null(strstr(p.peak_source, "6 of 6 channels x 1600 MT/s x 64 bit (8 of 9 DIMM"));
    write_dimm(entries, 9, 8192, 0, 0); /* populated, speed unknown: no estimate at all */
    peak_from_smbios(entries, &p);
    assert_true(p.peak_mbps == 0.0);
    assert_non_null(strstr(p.peak_source, "without speed"));
}

/* With no estimate, the reason is the real one: "run as root" only to a user who is not. */
static void smbios_no_peak_reasons(void **state)
{
    (void)state;
    char entries[300];
    struct provenance p;
    memset(&p, 0, sizeof(p));
    snprintf(entries, sizeof(entries), "%s/no-dmi", tmp_root);
    peak_from_smbios(entries, &p); /* no tables at all */
    assert_non_null(strstr(p.peak_source, "unknown: no SMBIOS tables ("));
    assert_null(strstr(p.peak_source, "run as root"));
    mkdir(entries, 0755); /* tables without a memory device, as a VM's */
    peak_from_smbios(entries, &p);
    assert_non_null(strstr(p.peak_source, "SMBIOS lists no memory device (type 17)"));
    assert_null(strstr(p.peak_source, "run as root"));
    write_dimm(entries, 0, 0, 0, 0); /* only empty slots */
    peak_from_smbios(entries, &p);
    assert_non_null(strstr(p.peak_source, "no populated memory device"));
    if (geteuid() == 0) return; /* root reads a file of mode 0 */
    char raw[400];
    snprintf(raw, sizeof(raw), "%s/17-0/raw", entries);
    chmod(raw, 0);
    peak_from_smbios(entries, &p);
    assert_non_null(strstr(p.peak_source, "cannot be read (Permission denied): run as root"));
}

static void write_at(const char *root, const char *rel, const char *text)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    char dir[600];
    snprintf(dir, sizeof(dir), "%s", path);
    mkdir(root, 0755);
    for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(dir, 0755);
        *p = '/';
    }
    scratch_write(path, text);
}

/* The tightest of the cgroup and its ancestors, v1 and v2; "max" and v1's huge number are
 * no limit. */
static void cgroup_headroom(void **state)
{
    (void)state;
    char root[300], proc[320];
    uint64_t room = 0, limit = 0;
    snprintf(root, sizeof(root), "%s/cg2", tmp_root);
    snprintf(proc, sizeof(proc), "%s/cgroup-v2", tmp_root);
    scratch_write(proc, "0::/slurm/job42/step0\n");
    write_at(root, "slurm/job42/step0/memory.max", "max\n");
    write_at(root, "slurm/job42/step0/memory.current", "1000\n");
    write_at(root, "slurm/job42/memory.max", "8589934592\n");
    write_at(root, "slurm/job42/memory.current", "1073741824\n");
    write_at(root, "slurm/memory.max", "max\n");
    assert_int_equal(cgroup_memory_headroom(proc, root, &room, &limit), 0);
    assert_int_equal(limit, 8589934592ull);
    assert_int_equal(room, 8589934592ull - 1073741824ull);

    write_at(root, "slurm/job42/memory.max", "max\n");
    assert_int_equal(cgroup_memory_headroom(proc, root, &room, &limit), -1);

    snprintf(root, sizeof(root), "%s/cg1", tmp_root);
    snprintf(proc, sizeof(proc), "%s/cgroup-v1", tmp_root);
    scratch_write(proc, "9:name=systemd:/\n4:memory:/box/a\n3:cpuset:/\n0::/\n");
    write_at(root, "memory/box/a/memory.limit_in_bytes", "9223372036854771712\n");
    write_at(root, "memory/box/a/memory.usage_in_bytes", "5\n");
    write_at(root, "memory/box/memory.limit_in_bytes", "2147483648\n");
    write_at(root, "memory/box/memory.usage_in_bytes", "2147483648\n");
    assert_int_equal(cgroup_memory_headroom(proc, root, &room, &limit), 0);
    assert_int_equal(room, 0); /* full: nothing more may be allocated */
    assert_int_equal(limit, 2147483648ull);

    assert_int_equal(cgroup_memory_headroom("/nonexistent", root, &room, &limit), -1);
}

/* The cpuset cgroup's CPUs: v1 (effective_cpus, or cpuset.cpus on old kernels) wins over v2;
 * v2 at the root or under "unified". */
static void cgroup_cpuset(void **state)
{
    (void)state;
    char root[300], proc[320], cpus[64], file[400];
    snprintf(root, sizeof(root), "%s/cs1", tmp_root);
    snprintf(proc, sizeof(proc), "%s/cpuset-v1", tmp_root);
    scratch_write(proc, "9:name=systemd:/\n3:cpuset:/job7\n1:cpu,cpuacct:/\n0::/\n");
    write_at(root, "cpuset/job7/cpuset.effective_cpus", "0,2\n");
    write_at(root, "cpuset/job7/cpuset.cpus", "0-3\n");
    assert_int_equal(cgroup_cpuset_cpus(proc, root, cpus, sizeof(cpus), file, sizeof(file)), 0);
    assert_string_equal(cpus, "0,2");
    assert_non_null(strstr(file, "cpuset/job7/cpuset.effective_cpus"));
    write_at(root, "cpuset/job7/cpuset.effective_cpus", "");
    assert_int_equal(cgroup_cpuset_cpus(proc, root, cpus, sizeof(cpus), file, sizeof(file)), 0);
    assert_string_equal(cpus, "0-3");

    snprintf(root, sizeof(root), "%s/cs2", tmp_root);
    snprintf(proc, sizeof(proc), "%s/cpuset-v2", tmp_root);
    scratch_write(proc, "0::/slurm/uid_0/job_9/step_0\n");
    write_at(root, "slurm/uid_0/job_9/step_0/cpuset.cpus.effective", "1\n");
    assert_int_equal(cgroup_cpuset_cpus(proc, root, cpus, sizeof(cpus), file, sizeof(file)), 0);
    assert_string_equal(cpus, "1");
    assert_non_null(strstr(file, "job_9/step_0/cpuset.cpus.effective"));

    snprintf(root, sizeof(root), "%s/cs3", tmp_root);
    write_at(root, "unified/slurm/uid_0/job_9/step_0/cpuset.cpus.effective", "4-7\n");
    assert_int_equal(cgroup_cpuset_cpus(proc, root, cpus, sizeof(cpus), file, sizeof(file)), 0);
    assert_string_equal(cpus, "4-7");

    snprintf(root, sizeof(root), "%s/cs4", tmp_root); /* nothing there */
    assert_int_equal(cgroup_cpuset_cpus(proc, root, cpus, sizeof(cpus), file, sizeof(file)), -1);
    assert_int_equal(
        cgroup_cpuset_cpus("/nonexistent", root, cpus, sizeof(cpus), file, sizeof(file)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llc_sums_every_instance),
        cmocka_unit_test(llc_unknown_without_caches),
        cmocka_unit_test(meminfo_and_choice_files),
        cmocka_unit_test(cpu_model_name),
        cmocka_unit_test(smaps_ranges),
        cmocka_unit_test(smbios_peak),
        cmocka_unit_test(smbios_no_peak_reasons),
        cmocka_unit_test(cgroup_headroom),
        cmocka_unit_test(cgroup_cpuset),
        cmocka_unit_test(recorded_4k),
        cmocka_unit_test(recorded_thp),
        cmocka_unit_test(recorded_thp_partial),
        cmocka_unit_test(recorded_hugetlb_2m),
        cmocka_unit_test(recorded_mismatches),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
