# ctest: LABELS timing threads
"""The report's run_conditions: what else ran on the run's CPUs while membench measured, and
the settings a bandwidth figure rests on (docs/design.md, run_conditions), also in a run that
--time-limit cut.

A real STREAM run on one CPU beside a busy loop pinned to the same CPU names the contention:
the loop's ticks in others_share, or membench's wait for the CPU in wait_share. A quiet run is
not asserted here (ctest -j2 runs other tests beside this one): tests/unit/test_run_conditions.c
shows that on fixtures. The settings and EDAC counts come from fixture trees through
membench-hooked's MEMBENCH_TEST_PROC_ROOT and MEMBENCH_TEST_SYS_ROOT."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import run, describe  # noqa: E402

#: A small STREAM run; its repetitions grow until the run is long enough for a share (at least
#: 100 ticks, one CPU-second, on its one CPU), whatever the machine's speed.
SMALL = ["--size", "2MB", "--threads", "1", "--stores", "normal"]
NTIMES = [50, 200, 800, 3200]
#: The hog should take about half the CPU; a fifth is well clear of a quiet run's noise.
CONTENDED = 0.2


def put(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class ContentionCase(membench_test.MembenchTestCase):

    def setUp(self):
        super().setUp()
        membench_test.skip_under_emulation(self, membench_test.TIMING)
        if not shutil.which("taskset"):
            self.skipTest("taskset not installed: apt-get install -y util-linux")
        if not os.path.exists("/proc/self/task/%d/schedstat" % os.getpid()):
            self.skipTest("this kernel has no /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO)")
        self.cpu = max(os.sched_getaffinity(0))

    def run_beside_hog(self, ntimes):
        """The report of a STREAM run on self.cpu beside a busy loop on it."""
        cpu = str(self.cpu)
        hog = subprocess.Popen(["taskset", "-c", cpu, "sh", "-c", "while :; do :; done"])
        try:
            args = SMALL + ["-n", str(ntimes), "--bind", cpu, "--format", "json"]
            rc, out, err = run(args, wrapper=["taskset", "-c", cpu], timeout=240)
        finally:
            hog.kill()
            hog.wait()
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        return json.loads(out)

    def test_a_busy_loop_on_the_same_cpu_is_named(self):
        for ntimes in NTIMES:
            doc = self.run_beside_hog(ntimes)
            cond = doc["run_conditions"]
            if cond["others_share"] is not None or cond["wait_share"] is not None:
                break
        self.assertEqual(cond["cpus"], [self.cpu], cond)
        self.assertIsNotNone(cond["elapsed_s"], cond)
        shares = [s for s in (cond["others_share"], cond["wait_share"]) if s is not None]
        self.assertTrue(shares, "no share known after -n %d: %s" % (ntimes, cond))
        self.assertGreaterEqual(max(shares), CONTENDED, cond)
        for key in ("steal_share", "others_share", "wait_share"):
            if cond[key] is not None:
                self.assertTrue(0.0 <= cond[key] <= 1.0, cond)
        # a disturbance is named whatever the verdict (none asked here), with its share
        self.assertIsNone(doc["diagnosed_because"])
        named = {c["cause"]: c for c in doc["diagnosis"]}
        self.assertIn("other_work", named, doc["diagnosis"])
        share = cond["others_share"] if (cond["others_share"] or 0) >= 0.05 else cond["wait_share"]
        self.assertIn("%.0f%%" % (100 * share), named["other_work"]["summary"])


class FixtureSettingsCase(membench_test.MembenchTestCase):
    """/proc and /sys as fixture trees: NUMA balancing on, one run CPU capped, boost off, EDAC
    counts with their DIMM labels. The fixtures do not move: no share is known."""

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.TemporaryDirectory()
        proc, sys_ = (os.path.join(self.tmp.name, d) for d in ("proc", "sys"))
        self.cpus = sorted(os.sched_getaffinity(0))
        put(proc, "stat", "cpu  1 0 1 9 0 0 0 0 0 0\n" + "".join(
            "cpu%d 100 0 50 900 0 0 0 3 0 0\n" % c for c in self.cpus))
        put(proc, "self/stat", "1 (membench) R 1 1 1 0 -1 0 0 0 0 0 20 5 0 0 20 0 1 0\n")
        put(proc, "self/task/1/schedstat", "1000000 2000 3\n")
        put(proc, "vmstat", "pswpin 4\npswpout 5\n")
        put(proc, "sys/kernel/numa_balancing", "1\n")
        for i, c in enumerate(self.cpus):
            freq = "devices/system/cpu/cpu%d/cpufreq/" % c
            put(sys_, freq + "scaling_governor", "powersave\n")
            put(sys_, freq + "cpuinfo_max_freq", "3000000\n")
            put(sys_, freq + "scaling_max_freq", "1200000\n" if i == 0 else "3000000\n")
        put(sys_, "devices/system/cpu/cpufreq/boost", "0\n")
        put(sys_, "devices/system/edac/mc/mc0/ce_count", "7\n")
        put(sys_, "devices/system/edac/mc/mc0/ue_count", "0\n")
        put(sys_, "devices/system/edac/mc/mc0/dimm0/dimm_label", "DIMM_A1\n")
        self.env = {"MEMBENCH_TEST_PROC_ROOT": proc, "MEMBENCH_TEST_SYS_ROOT": sys_}

    def tearDown(self):
        self.tmp.cleanup()

    def check_settings(self, cond):
        self.assertEqual(cond["cpus"], self.cpus, cond)
        self.assertEqual(cond["numa_balancing"], 1, cond)
        self.assertEqual(cond["governor"], "powersave", cond)
        self.assertEqual(cond["frequency_capped_cpus"], 1, cond)
        self.assertEqual(cond["frequency_cap_mhz"], 1200.0, cond)
        self.assertEqual(cond["max_mhz"], 3000.0, cond)
        self.assertIs(cond["boost"], False, cond)
        self.assertEqual(cond["edac"]["labels"], "DIMM_A1", cond)

    def test_settings_and_edac_from_the_fixture(self):
        doc = self.run_json(membench_test.SMALL + ["--threads", "1"], self.env)
        cond = doc["run_conditions"]
        self.check_settings(cond)
        self.assertEqual(cond["edac"]["corrected"], 7, cond)
        self.assertEqual(cond["edac"]["uncorrected"], 0, cond)
        self.assertEqual(cond["edac"]["corrected_during_run"], 0, cond)
        self.assertEqual(cond["swapped_pages"], 0, cond)
        for key in ("steal_share", "others_share", "wait_share"):
            self.assertIsNone(cond[key], "%s: the fixture's counters do not move" % key)

    def test_a_dry_run_reads_the_settings_only(self):
        doc = self.run_json(membench_test.SMALL + ["--threads", "1", "--dry-run"], self.env)
        cond = doc["run_conditions"]
        self.check_settings(cond)
        for key in ("elapsed_s", "steal_share", "others_share", "wait_share", "swapped_pages"):
            self.assertIsNone(cond[key], key)
        for key in ("corrected", "uncorrected", "corrected_during_run", "uncorrected_during_run"):
            self.assertIsNone(cond["edac"][key], key)


class CutRunCase(membench_test.MembenchTestCase):
    """A run that --time-limit cuts still reports what moved while its measurements ran."""

    def test_a_run_cut_by_the_time_limit_has_its_delta(self):
        args = ["--triad", "--size", "2MB", "-n", "3", "--stores", "normal", "--threads", "1",
                "--timer", "--time-limit", "600", "--format", "json"]
        rc, out, err = run(args, {"MEMBENCH_TEST_TIME_LIMIT_AT": "timer probe"})
        self.assertEqual(rc, 3, describe(args, rc, out, err))
        doc = json.loads(out)
        self.assertIn("timer probe stopped", doc["kept"])
        cond = doc["run_conditions"]
        self.assertGreater(cond["elapsed_s"], 0.0, cond)
        if os.path.exists("/proc/vmstat"):
            self.assertIsNotNone(cond["swapped_pages"], cond)


if __name__ == "__main__":
    membench_test.main()
