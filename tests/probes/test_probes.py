# ctest: LABELS hugetlb emulation races
"""The probes on this machine: --faults, --shootdown, --timer (issue 8).

Each test skips, with the reason, where the machine lacks what it needs (one CPU, THP
'never', no 2 MB pool, only tmpfs, a host that defers every TLB flush). The shootdown runs
are shared by the tests of a class so that the file stays fast on a small, noisy VM.
"""

import csv
import io
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import describe, hugepage_pool, run, thp_mode  # noqa: E402

MIB = 1 << 20
PAGES_64MIB = 64 * MIB // 4096
DEFAULT_SHOOTDOWN_PAGES = [1, 2, 8, 32, 33, 34, 64, 512]
THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"


def free_2m_pages():
    """Free minus reserved pages of the 2 MB hugetlb pool (0 without one)."""
    pool = hugepage_pool(2048)
    return pool["available"] if pool else 0


def disk_dir():
    """A fresh directory for the major-fault file, on the same filesystems membench picks."""
    for base in (os.environ.get("TMPDIR"), "/var/tmp", os.path.dirname(membench_test.BIN)):
        if base and os.path.isdir(base) and os.access(base, os.W_OK):
            return tempfile.mkdtemp(prefix="membench-test-", dir=base)
    return tempfile.mkdtemp(prefix="membench-test-")


def run_by_backing(doc):
    return {r["backing"]: r for r in doc["faults"]["runs"]}


class TimerTest(membench_test.MembenchTestCase):
    """--timer: resolution and cost of each clock, TSC facts, repetitions for 1%."""

    @classmethod
    def setUpClass(cls):
        cls.rc, cls.out, cls.err = run(["--timer", "--format", "json"], timeout=60)

    def doc(self):
        import json
        self.assertEqual(self.rc, 0, describe(["--timer"], self.rc, self.out, self.err))
        return json.loads(self.out)

    def test_monotonic_resolution_and_cost(self):
        """CLOCK_MONOTONIC: resolution from clock_getres, a granularity and a per-call cost."""
        doc = self.doc()
        clocks = {c["clock"]: c for c in doc["timer"]["clocks"]}
        mono = clocks["CLOCK_MONOTONIC"]
        self.assertIsNone(mono["skipped"])
        self.assertEqual(mono["resolution_from"], "clock_getres")
        self.assertGreater(mono["resolution_s"], 0)
        self.assertLessEqual(mono["resolution_s"], 1e-3)
        self.assertGreater(mono["call_cost_s"], 0)
        self.assertLess(mono["call_cost_s"], 1e-4)  # a vDSO call, or at worst a syscall
        self.assertGreater(mono["granularity_s"], 0)
        # the 1% rule: granularity / 0.01, filled by that many 1 ns operations
        self.assertAlmostEqual(mono["min_interval_s"], mono["granularity_s"] / 0.01,
                               delta=1e-12)
        self.assertAlmostEqual(mono["reps_for_op"], mono["min_interval_s"] / 1e-9,
                               delta=1.0)
        self.assertEqual(doc["timer"]["precision"], 0.01)

    def test_every_clock_listed(self):
        """MONOTONIC_RAW, gettimeofday (1 us), the architecture's counter rows (x86 rdtsc and
        rdtscp, aarch64 cntvct_el0 plain and isb-ordered), measured or skipped."""
        doc = self.doc()
        clocks = {c["clock"]: c for c in doc["timer"]["clocks"]}
        counters = {"x86-64": ["rdtsc", "rdtscp"],
                    "aarch64": ["cntvct_el0", "isb+cntvct_el0"]}.get(
                        membench_test.BUILD_ARCH, ["cycle counter", "ordered cycle counter"])
        self.assertEqual(list(clocks), ["CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW",
                                        "gettimeofday"] + counters)
        self.assertEqual(clocks["gettimeofday"]["resolution_s"], 1e-6)
        self.assertGreaterEqual(clocks["gettimeofday"]["granularity_s"], 1e-6)
        for c in clocks.values():
            self.assertTrue(c["skipped"] is None or c["skipped"], c)

    def test_tsc_frequency_and_invariance(self):
        """The counter's frequency, labelled by its source (x86: CPUID leaf 0x15 or calibrated;
        aarch64: CNTFRQ_EL0, timer ticks), and the invariance bit."""
        doc = self.doc()
        tsc = doc["timer"]["tsc"]
        if not tsc["available"]:
            self.skipTest("no time-stamp counter on this CPU")
        self.assertIn(tsc["hz_source"], ("CPUID leaf 0x15", "calibrated against CLOCK_MONOTONIC",
                                         "CNTFRQ_EL0 (generic timer ticks, not core cycles)"))
        # an x86 TSC ticks at about the base clock; Arm's generic timer at 1 MHz..1 GHz
        self.assertGreater(tsc["hz"], 1e8 if membench_test.BUILD_ARCH == "x86-64" else 1e6)
        self.assertLess(tsc["hz"], 1e10)
        # the calibration agrees with the declared frequency within 1%
        self.assertAlmostEqual(tsc["hz_calibrated"] / tsc["hz"], 1.0, delta=0.01)
        self.assertIn(tsc["invariant"], (True, False, None))
        self.assertTrue(doc["timer"]["clocksource"])

    def test_stream_does_not_run(self):
        """A probe alone replaces the STREAM kernels; the header timer stays."""
        doc = self.doc()
        self.assertEqual(doc["runs"], [])
        self.assertEqual(doc["probes"], ["timer"])
        self.assertEqual(doc["timer"]["clock"], "CLOCK_MONOTONIC")  # the existing keys

    def test_text_table(self):
        """The text report has the clock table and no STREAM table."""
        out, _ = self.run_ok(["--timer"], timeout=60)
        self.assertIn("Timer probe (--timer)", out)
        self.assertRegex(out, r"CLOCK_MONOTONIC\s+\d")
        self.assertNotIn("Triad:", out)

    def test_with_a_kernel(self):
        """--timer --triad runs both."""
        doc = self.run_json(["--timer", "--triad"] + membench_test.SMALL, timeout=60)
        self.assertEqual(len(doc["runs"]), 1)
        self.assertEqual([r["kernel"] for r in doc["runs"][0]["results"]], ["Triad"])
        self.assertIn("clocks", doc["timer"])


class AnonymousFaultsTest(membench_test.MembenchTestCase):
    """--faults with 4k and thp: one fault per 4 KB, at most one per 2 MB."""

    @classmethod
    def setUpClass(cls):
        cls.args = ["--faults", "--faults-backing", "4k,thp", "--format", "json"]
        cls.result = run(cls.args, timeout=60)

    def doc(self):
        import json
        rc, out, err = self.result
        if rc == 3 and "--faults-backing thp" in err:
            return None  # THP unavailable: the thp test skips, the 4k test reruns without it
        self.assertEqual(rc, 0, describe(self.args, rc, out, err))
        return json.loads(out)

    def test_4k_one_fault_per_page(self):
        """64 MiB under 4k: 16384 pages touched, minor faults within 5% of 16384."""
        doc = self.doc() or self.run_json(["--faults", "--faults-backing", "4k"], timeout=60)
        self.assertEqual(doc["faults"]["bytes"], 64 * MIB)
        r = run_by_backing(doc)["4k"]
        self.assertIsNone(r["skipped"])
        self.assertEqual(r["pages_touched"], PAGES_64MIB)
        self.assertLessEqual(abs(r["minor_faults"] - PAGES_64MIB), 0.05 * PAGES_64MIB, r)
        self.assertEqual(r["major_faults"], 0)
        self.assertGreater(r["ns_per_fault"], 0)
        self.assertEqual(r["smaps"]["anon_huge_bytes"], 0)
        self.assertTrue(r["smaps"]["verified"])

    def test_thp_at_most_one_fault_per_2mb(self):
        """64 MiB under thp: at most 32 faults, AnonHugePages covering the region."""
        mode = thp_mode()
        if mode in (None, "never"):
            self.skipTest("THP is %s here (%s)" % (mode or "absent", THP_ENABLED))
        doc = self.doc()
        r = run_by_backing(doc)["thp"]
        self.assertIsNone(r["skipped"])
        self.assertEqual(r["pages_touched"], PAGES_64MIB)
        if r["smaps"]["anon_huge_bytes"] < 64 * MIB:
            self.skipTest("the kernel backed only %d MiB with THP (memory fragmented): %s"
                          % (r["smaps"]["anon_huge_bytes"] // MIB, r["note"]))
        self.assertLessEqual(r["minor_faults"], 64 * MIB // (2 * MIB), r)
        self.assertGreater(r["minor_faults"], 0)
        self.assertEqual(r["major_faults"], 0)


class FaultPagesMismatchTest(membench_test.MembenchTestCase):
    """A fault row on pages other than those asked for fails the run (exit 1), as a STREAM run
    does: MEMBENCH_TEST_VERIFY_AS=2m (membench-hooked) judges the 4 KB region as if 2 MB pages
    were asked for."""

    def test_mismatch_exits_1_with_one_error(self):
        import json
        args = ["--faults", "--faults-backing", "4k", "--faults-size", "8MiB", "--format",
                "json"]
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_VERIFY_AS": "2m"}, timeout=60)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 1, msg)
        errors = [line for line in err.splitlines()
                  if line.startswith("membench: ") and not line.startswith("membench: note")
                  and not line.startswith("membench: warning")]
        self.assertEqual(len(errors), 1, msg)
        self.assertIn("--faults 4k:", errors[0])
        self.assertIn("asked for 2 MiB pages", errors[0])
        row = run_by_backing(json.loads(out))["4k"]
        self.assertFalse(row["smaps"]["verified"])
        self.assertGreater(row["minor_faults"], 0)  # measured and reported all the same


class HugetlbFaultsTest(membench_test.MembenchTestCase):
    """--faults-backing 2m: from the pool when there is one, else exit 3 naming the remedy."""

    def test_2m(self):
        args = ["--faults", "--faults-backing", "2m", "--faults-size", "16"]
        if free_2m_pages() >= 8:
            membench_test.skip_under_emulation(self, membench_test.NO_HUGETLB)
        if free_2m_pages() < 8:
            line = self.assert_error(args, 3, ["--faults-backing 2m", "nr_hugepages"])
            self.assertIn("echo", line)
            return
        rc, out, err = run(args + ["--format", "json"], timeout=60)
        if rc == 3 and "nr_hugepages" in err:
            self.skipTest("the 2 MB pool emptied meanwhile (shared machine): " + err.strip())
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        import json
        r = run_by_backing(json.loads(out))["2m"]
        self.assertEqual(r["pages_touched"], 4096)
        # one fault per 2 MB page: the backend maps the pages but never touches them
        self.assertEqual(r["minor_faults"], 8, r)
        self.assertIsNone(r["note"], r)
        self.assertTrue(r["smaps"]["verified"], r)
        self.assertEqual(r["smaps"]["page_size_bytes"], 2 * MIB)
        self.assertEqual(r["smaps"]["hugetlb_bytes"], 16 * MIB)

    def test_default_run_skips_what_cannot_run(self):
        """All five rows in order, each measured or skipped with a reason; exit 0."""
        doc = self.run_json(["--faults", "--faults-size", "4"], timeout=60)
        runs = doc["faults"]["runs"]
        self.assertEqual([r["backing"] for r in runs],
                         ["4k", "thp", "2m", "file", "file-readahead"])
        for r in runs:
            if r["skipped"]:
                self.assertIsNone(r["minor_faults"])
            else:
                self.assertIsInstance(r["minor_faults"], int)
                self.assertEqual(r["pages_touched"], 1024)
        by = run_by_backing(doc)
        if free_2m_pages() == 0 and by["2m"]["skipped"]:
            self.assertIn("nr_hugepages", by["2m"]["skipped"])


class MissingHugePagesTest(membench_test.MembenchTestCase):
    """THP 'never' and no 2 MB pool, shown on any machine through a fake sysfs root
    (membench-hooked's MEMBENCH_TEST_SYS_ROOT=ROOT, read as ROOT/kernel/mm/...). The reasons
    are those of the hugepages/ backends; /proc/meminfo stays the real one."""

    def setUp(self):
        super().setUp()
        self.root = tempfile.mkdtemp(prefix="membench-sysfs-")
        mm = os.path.join(self.root, "kernel", "mm")
        os.makedirs(os.path.join(mm, "transparent_hugepage"))
        with open(os.path.join(mm, "transparent_hugepage", "enabled"), "w") as f:
            f.write("always madvise [never]\n")
        self.pool = os.path.join(mm, "hugepages", "hugepages-2048kB")
        os.makedirs(self.pool)
        for name in ("nr_hugepages", "free_hugepages", "resv_hugepages"):
            with open(os.path.join(self.pool, name), "w") as f:
                f.write("0\n")
        self.env = {"MEMBENCH_TEST_SYS_ROOT": self.root}

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def remedy(self, pages):
        """The command that reserves the pool: /proc/sys/vm/nr_hugepages when 2 MB is the
        default huge page size here, else the pool's own sysfs file (in the fake tree)."""
        if membench_test.default_hugepage_kb() == 2048:
            return "echo %d > /proc/sys/vm/nr_hugepages" % pages
        return "echo %d > %s/nr_hugepages" % (pages, self.pool)

    def test_skipped_with_reasons(self):
        """By default: thp and 2m rows skipped with the reason and the remedy, exit 0."""
        doc = self.run_json(["--faults", "--faults-size", "4"], env_extra=self.env, timeout=60)
        by = run_by_backing(doc)
        self.assertEqual(doc["faults"]["thp_enabled"], "never")
        thp = by["thp"]["skipped"]
        self.assertIn("'never' in %s/kernel/mm/transparent_hugepage/enabled" % self.root, thp)
        self.assertIn("echo madvise > ", thp)
        self.assertNotIn("--pages", thp)  # the fault probe's option names, not STREAM's
        two = by["2m"]["skipped"]
        self.assertIn("the 2 MiB hugetlb pool has too few free pages: 2 needed, 0 available", two)
        self.assertIn(self.remedy(2), two)
        self.assertIsNone(by["4k"]["skipped"])
        out, _ = self.run_ok(["--faults", "--faults-size", "4"], env_extra=self.env, timeout=60)
        lines = [line for line in out.splitlines() if line.startswith("2m ")]
        self.assertEqual(len(lines), 1, out)
        self.assertRegex(lines[0], r"^2m +skipped: the 2 MiB hugetlb pool has too few free pages: 2 needed")
        self.assertIn(self.remedy(2), lines[0])

    def test_listed_backing_exits_3(self):
        """Asked for by name, a backing that cannot run is an error naming the remedy."""
        self.assert_error(["--faults", "--faults-backing", "2m"], 3,
                          ["--faults-backing 2m", "hugetlb pool has too few free pages: 32 needed",
                           self.remedy(32)],
                          env_extra=self.env)
        self.assert_error(["--faults", "--faults-backing", "4k,thp"], 3,
                          ["--faults-backing thp", "'never'", "echo madvise > "],
                          env_extra=self.env)


class MajorFaultsTest(membench_test.MembenchTestCase):
    """An evicted file: every page a major fault with readahead off, few with it on."""

    def setUp(self):
        super().setUp()
        self.dir = disk_dir()

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_major_faults_and_readahead(self):
        membench_test.skip_under_emulation(self, membench_test.NO_MADVISE % "MADV_RANDOM"
                                           + ": readahead makes the cold faults minor ones")
        args = ["--faults", "--faults-backing", "file", "--faults-size", "16",
                "--faults-dir", self.dir, "--format", "json"]
        rc, out, err = run(args, timeout=120)
        if rc == 3 and ("tmpfs" in err or "ramfs" in err):
            self.skipTest("no disk-backed directory: " + err.strip())
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        import json
        by = run_by_backing(json.loads(out))
        cold, ahead = by["file"], by["file-readahead"]
        pages = 16 * MIB // 4096
        self.assertEqual(cold["pages_touched"], pages)
        self.assertEqual(cold["advice"], "MADV_RANDOM")
        if cold["resident_before"] > 0.5:
            self.skipTest("POSIX_FADV_DONTNEED could not evict the file (%.0f%% resident)"
                          % (100 * cold["resident_before"]))
        self.assertGreaterEqual(cold["major_faults"], pages // 2, cold)
        self.assertGreater(cold["us_per_major_fault"], 0)
        # readahead: the same evicted file, far fewer major faults
        self.assertEqual(ahead["advice"], "MADV_SEQUENTIAL")
        if ahead["resident_before"] <= 0.5:
            self.assertLess(ahead["major_faults"], cold["major_faults"] // 4, ahead)
        # the file never had a name there, or lost it: the directory is empty again
        self.assertEqual(os.listdir(self.dir), [])

    def test_tmpfs_is_refused_with_a_reason(self):
        """On tmpfs: skipped rows by default, exit 3 when the file rows were asked for."""
        if not os.path.isdir("/dev/shm") or not os.access("/dev/shm", os.W_OK):
            self.skipTest("/dev/shm is not available")
        rc, out, err = run(["--faults", "--faults-size", "2", "--faults-dir", "/dev/shm",
                            "--format", "json"], timeout=60)
        import json
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        if doc["faults"]["filesystem"] != "tmpfs":
            self.skipTest("/dev/shm is %s, not tmpfs" % doc["faults"]["filesystem"])
        by = run_by_backing(doc)
        self.assertIn("tmpfs", by["file"]["skipped"])
        self.assertIn("--faults-dir", by["file-readahead"]["skipped"])
        self.assertIsNone(by["4k"]["skipped"])
        self.assert_error(["--faults", "--faults-backing", "file", "--faults-dir", "/dev/shm"],
                          3, ["tmpfs", "--faults-dir"])


class ShootdownTest(membench_test.MembenchTestCase):
    """--shootdown: a spinning sibling makes unmapping dearer; interrupts are counted."""

    @classmethod
    def setUpClass(cls):
        cls.cpus = len(os.sched_getaffinity(0))
        cls.result = None
        if cls.cpus >= 2:
            cls.args = ["--shootdown", "--shootdown-remote", "1", "--format", "json"]
            cls.result = run(cls.args, timeout=120)

    def setUp(self):
        super().setUp()
        if self.cpus < 2:
            self.skipTest("one CPU: no remote CPU to interrupt")

    def doc(self):
        import json
        rc, out, err = self.result
        self.assertEqual(rc, 0, describe(self.args, rc, out, err))
        return json.loads(out)

    def test_runs_cover_every_point(self):
        doc = self.doc()["shootdown"]
        points = {(r["mode"], r["pages"], r["remote_threads"]) for r in doc["runs"]}
        want = {(m, p, k) for m in ("munmap", "madv_dontneed")
                for p in DEFAULT_SHOOTDOWN_PAGES for k in (0, 1)}
        self.assertEqual(points, want)
        self.assertTrue(doc["cpu_bound"])
        self.assertEqual(len(doc["remote_cpus"]), self.cpus - 1)
        for r in doc["runs"]:
            self.assertGreater(r["ops"], 0)
            self.assertGreater(r["us_per_op"], 0)
            if r["remote_threads"]:
                self.assertTrue(r["siblings_bound"], r)

    def test_interrupts_are_counted(self):
        """TLB interrupts from /proc/interrupts: none on remote CPUs without siblings."""
        doc = self.doc()["shootdown"]
        if not doc["interrupts"]["available"]:
            self.skipTest(doc["interrupts"]["note"])
        for r in doc["runs"]:
            self.assertIsInstance(r["shootdowns"], int)
            self.assertGreaterEqual(r["shootdowns"], 0)
            if r["remote_threads"] == 0:
                self.assertEqual(r["shootdowns_remote"], 0)
            elif r["attributed"]:
                # every op counted as interrupted raised every sibling CPU's count
                self.assertGreaterEqual(r["shootdowns_remote"], r["ops_interrupted"], r)
        remote = sum(r["shootdowns_remote"] for r in doc["runs"] if r["remote_threads"])
        if remote == 0:
            self.skipTest("no TLB interrupt reached the sibling's CPU in %d points: the "
                          "hypervisor deferred every flush (pv_tlb_flush=%s)"
                          % (len(doc["runs"]) // 2, doc["pv_tlb_flush"]))
        self.assertGreater(remote, 0)

    def test_a_sibling_makes_unmap_dearer(self):
        """With 1 spinning sibling, ops that interrupted it cost more than ops without.

        Compared per (mode, pages) against the same point without siblings, using medians, and
        only over ops that really interrupted the sibling: under KVM's paravirtual TLB flush a
        flush aimed at a preempted vCPU is deferred without an IPI and costs nothing.
        """
        doc = self.doc()["shootdown"]
        base = {(r["mode"], r["pages"]): r["us_per_op"]
                for r in doc["runs"] if r["remote_threads"] == 0}
        diffs, plain = [], []
        for r in doc["runs"]:
            if r["remote_threads"] != 1:
                continue
            plain.append(r["us_per_op"] - base[(r["mode"], r["pages"])])
            if r["attributed"] and r["ops_interrupted"] >= 5:
                diffs.append(r["us_interrupted"] - base[(r["mode"], r["pages"])])
        if not doc["interrupts"]["available"]:
            # no per-op attribution possible: fall back to all ops
            self.assertGreater(statistics.median(plain), 0, plain)
            return
        if len(diffs) < 3:
            self.skipTest("only %d of %d points interrupted the sibling at least 5 times "
                          "(the host deferred the flushes: pv_tlb_flush=%s)"
                          % (len(diffs), len(plain), doc["pv_tlb_flush"]))
        self.assertGreater(statistics.median(diffs), 0, diffs)
        summary = [s for s in doc["summary"] if s["remote_threads"] == 1]
        self.assertEqual(len(summary), 2)

    def test_default_counts_and_skips(self):
        """By default 0, 1, 2, ...; counts beyond the CPUs are skipped with a reason."""
        doc = self.run_json(["--shootdown", "--shootdown-pages", "1"], timeout=60)["shootdown"]
        counts = sorted({r["remote_threads"] for r in doc["runs"]})
        self.assertEqual(counts[:2], [0, 1])
        if self.cpus == 2:
            self.assertEqual([s["remote_threads"] for s in doc["skipped"]], [2])
            self.assertIn("needs 3 usable CPUs", doc["skipped"][0]["reason"])

    def test_text_and_csv(self):
        out, _ = self.run_ok(["--shootdown", "--shootdown-pages", "1,64",
                              "--shootdown-remote", "1"], timeout=60)
        self.assertIn("TLB shootdown (--shootdown)", out)
        self.assertRegex(out, r"munmap\s+1\s+1\s+\d+")
        out, _ = self.run_ok(["--shootdown", "--shootdown-pages", "8",
                              "--shootdown-remote", "1", "--format", "csv"], timeout=60)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(len(rows), 4)  # 2 modes x (0, 1) siblings
        self.assertEqual({r["probe"] for r in rows}, {"shootdown"})

    def test_too_many_siblings_exit_3(self):
        self.assert_error(["--shootdown", "--shootdown-remote", "1000"], 3,
                          ["--shootdown-remote 1000", "CPUs"])

    def test_synthetic_topology_exit_2(self):
        self.assert_error(["--shootdown"], 2, ["--shootdown", "HWLOC_SYNTHETIC"],
                          env_extra={"HWLOC_SYNTHETIC": "pack:1 core:2 pu:1"})


class RestrictedShootdownTest(membench_test.MembenchTestCase):
    """Under `taskset -c <one CPU>` the shootdown probe counts the CPUs this process may use,
    not those of the machine: no sibling can run, so the sibling counts are skipped (exit 0),
    or exit 3 when named."""

    def setUp(self):
        super().setUp()
        taskset = shutil.which("taskset")
        if not taskset:
            self.skipTest("taskset is not installed")
        self.cpu = min(os.sched_getaffinity(0))
        self.wrapper = [taskset, "-c", str(self.cpu)]

    def test_default_counts_skipped(self):
        import json
        args = ["--shootdown", "--shootdown-pages", "1", "--format", "json"]
        rc, out, err = run(args, timeout=60, wrapper=self.wrapper)
        self.assertEqual(rc, 0, describe(self.wrapper + args, rc, out, err))
        doc = json.loads(out)["shootdown"]
        self.assertEqual(doc["cpu"], self.cpu)
        self.assertEqual(doc["remote_cpus"], [])
        self.assertEqual({r["remote_threads"] for r in doc["runs"]}, {0})
        reasons = {s["remote_threads"]: s["reason"] for s in doc["skipped"]}
        self.assertEqual(sorted(reasons), [1, 2])
        self.assertIn("needs 2 usable CPUs", reasons[1])
        self.assertIn("this process may use 1", reasons[1])

    def test_named_sibling_exit_3(self):
        args = ["--shootdown", "--shootdown-remote", "1"]
        rc, out, err = run(args, timeout=30, wrapper=self.wrapper)
        msg = describe(self.wrapper + args, rc, out, err)
        self.assertEqual(rc, 3, msg)
        self.assertEqual(out, "", msg)
        self.assertEqual(len(err.splitlines()), 1, msg)
        for word in ("membench: --shootdown-remote 1", "needs 2 usable CPUs",
                     "this process may use 1 (CPU %d)" % self.cpu):
            self.assertIn(word, err, msg)


class CombinedTest(membench_test.MembenchTestCase):
    """Probes combine with each other and with the kernels, in every format."""

    def test_quiet_lines(self):
        out, _ = self.run_ok(["--faults", "--timer", "--faults-size", "4",
                              "--faults-backing", "4k", "-q"], timeout=60)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2, out)
        self.assertTrue(lines[0].startswith("timer: CLOCK_MONOTONIC"), out)
        self.assertTrue(lines[1].startswith("faults: 4k 1024 minor"), out)

    def test_csv_tables(self):
        out, _ = self.run_ok(["--faults", "--timer", "--faults-size", "4",
                              "--faults-backing", "4k", "--format", "csv"], timeout=60)
        tables = out.split("\n\n")
        self.assertEqual(len(tables), 2, out)
        timer = list(csv.DictReader(io.StringIO(tables[0])))
        faults = list(csv.DictReader(io.StringIO(tables[1])))
        self.assertEqual(timer[0]["clock"], "CLOCK_MONOTONIC")
        self.assertEqual(faults[0]["backing"], "4k")
        self.assertEqual(faults[0]["pages_touched"], "1024")

    def test_dry_run_measures_nothing(self):
        out, _ = self.run_ok(["--faults", "--shootdown", "--dry-run"])
        self.assertIn("Probes requested: faults shootdown (not run under --dry-run)", out)
        doc = self.run_json(["--timer", "--dry-run"])
        self.assertEqual(doc["probes"], ["timer"])
        self.assertNotIn("clocks", doc["timer"])

    def test_output_file(self):
        d = tempfile.mkdtemp(prefix="membench-test-")
        try:
            path = os.path.join(d, "t.json")
            self.run_ok(["--timer", "--format", "json", "-o", path], timeout=60)
            with open(path) as f:
                self.assertIn('"clocks"', f.read())
        finally:
            shutil.rmtree(d)


class BadProbeInputTest(membench_test.MembenchTestCase):
    """Bad probe options: exit 2, one line naming the option."""

    CASES = [
        (["--faults", "--faults-size", "3MiB"], ["--faults-size", "3MiB", "2 MiB"]),
        (["--faults", "--faults-size", "0"], ["--faults-size", "'0'"]),
        (["--faults", "--faults-size", "abc"], ["--faults-size", "'abc'"]),
        (["--faults", "--faults-size", "4xLLC"], ["--faults-size", "4xLLC"]),
        (["--faults", "--faults-size", "2000000"], ["--faults-size", "too large"]),
        (["--faults", "--faults-backing", "3m"], ["--faults-backing", "3m", "unknown"]),
        (["--faults", "--faults-backing", "4k,,thp"], ["--faults-backing", "empty"]),
        (["--faults", "--faults-dir", ""], ["--faults-dir", "empty"]),
        (["--faults", "--faults-dir", "/nonexistent/dir"], ["--faults-dir", "/nonexistent/dir"]),
        (["--faults-size", "64"], ["--faults-size", "--faults"]),
        (["--faults-dir", "/var/tmp"], ["--faults-dir", "--faults"]),
        (["--shootdown-remote", "1"], ["--shootdown-remote", "--shootdown"]),
        (["--shootdown", "--shootdown-remote", "-1"], ["--shootdown-remote", "'-1'"]),
        (["--shootdown", "--shootdown-remote", "x"], ["--shootdown-remote", "'x'"]),
        (["--shootdown", "--shootdown-pages", "0"], ["--shootdown-pages", "'0'"]),
        (["--shootdown", "--shootdown-pages", "1,,2"], ["--shootdown-pages", "empty"]),
        (["--shootdown", "--shootdown-pages", "100000"], ["--shootdown-pages", "100000"]),
        (["--timer", "--bogus"], ["--bogus", "unknown option"]),
        (["--faults", "--faults-size"], ["--faults-size", "value"]),
    ]

    def test_cases(self):
        for args, words in self.CASES:
            with self.subTest(args=args):
                self.assert_error(args, 2, words)


if __name__ == "__main__":
    membench_test.main()
