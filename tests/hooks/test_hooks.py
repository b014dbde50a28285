# ctest: LABELS timing
"""Test hooks live only in membench-hooked, never in the installed membench; a kernel that
computes wrongly (MEMBENCH_TEST_BROKEN_KERNEL) fails validation; the named points
(MEMBENCH_TEST_ANNOUNCE, MEMBENCH_TEST_PAUSE_AT) that the signal tests wait for are reached."""

import json
import os
import sys
import re
import shutil
import signal
import subprocess
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import BIN, HOOKED_BIN, SMALL, describe, run

#: Every hook membench-hooked reads, set as a test would set it.
ALL_HOOKS = {
    "MEMBENCH_TEST_CORRUPT": "1",
    "MEMBENCH_TEST_BROKEN_KERNEL": "triad",
    "MEMBENCH_TEST_VERIFY_AS": "2m",
    "MEMBENCH_TEST_ANNOUNCE": "1",
    "MEMBENCH_TEST_PAUSE_AT": "first touch",
}

#: kernel flag -> (name in the reports, the array it writes; None for a reduction)
KERNELS = {
    "copy": ("Copy", "c"),
    "scale": ("Scale", "b"),
    "add": ("Add", "c"),
    "triad": ("Triad", "a"),
    "write": ("Write", "c"),
    "nstream": ("Nstream", "a"),
    "dot": ("Dot", None),
    "read": ("Read", None),
}

#: Small enough to be quick; a reduction missing one element per thread is far off (double).
SIZE = ["--size", "200000", "-n", "2"]


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def share_end(n, threads, thread, elem_bytes):
    """Where thread's share of n elements ends (stream_chunk_begin of the next thread)."""
    line = 64 // elem_bytes
    lines = (n + line - 1) // line
    end = lines * (thread + 1) // threads * line
    return min(end, n)


class ProductIgnoresHooksTest(membench_test.MembenchTestCase):
    """membench itself has no hooks: no variable changes its numbers or its verdicts."""

    def test_no_hook_names_in_the_product(self):
        """As `strings build/membench | grep MEMBENCH_TEST`: nothing; membench-hooked has them."""
        self.assertNotIn(b"MEMBENCH_TEST", read_bytes(BIN))
        self.assertTrue(os.path.isfile(HOOKED_BIN), "membench-hooked not built: " + HOOKED_BIN)
        hooked = read_bytes(HOOKED_BIN)
        for name in ("MEMBENCH_TEST_CORRUPT", "MEMBENCH_TEST_BROKEN_KERNEL",
                     "MEMBENCH_TEST_VERIFY_AS", "MEMBENCH_TEST_SYS_ROOT",
                     "MEMBENCH_TEST_ANNOUNCE", "MEMBENCH_TEST_PAUSE_AT"):
            self.assertIn(name.encode(), hooked)

    def test_stream_run_ignores_every_hook(self):
        args = SMALL + ["--pages", "4k", "--format", "json"]
        rc, out, err = run(args, env_extra=ALL_HOOKS, binary=BIN)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 0, msg)  # not stopped at the first touch: it ran to the end
        self.assertNotIn("failed validation", err, msg)
        self.assertNotIn("membench-test:", err, msg)
        hooked = json.loads(out)["runs"][0]
        plain = self.run_json(SMALL + ["--pages", "4k"])["runs"][0]
        for r in (hooked, plain):
            self.assertIs(r["validation"]["passed"], True, msg)
            self.assertIs(r["backing"]["verified"], True, msg)
            self.assertIsNone(r["backing"]["mismatch"], msg)
        self.assertEqual([x["kernel"] for x in hooked["results"]],
                         [x["kernel"] for x in plain["results"]])
        self.assertEqual(hooked["config"]["kernels"], plain["config"]["kernels"])

    def test_text_report_validates_under_hooks(self):
        args = SMALL
        rc, out, err = run(args, env_extra=ALL_HOOKS, binary=BIN)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 0, msg)
        self.assertIn("Solution Validates", out, msg)
        self.assertNotIn("Failed Validation", out, msg)

    def test_fault_probe_ignores_hooks(self):
        """MEMBENCH_TEST_VERIFY_AS and a fake sysfs root change nothing in --faults."""
        root = tempfile.mkdtemp(prefix="membench-sysfs-")
        self.addCleanup(shutil.rmtree, root, True)
        thp = os.path.join(root, "kernel", "mm", "transparent_hugepage")
        os.makedirs(thp)
        with open(os.path.join(thp, "enabled"), "w") as f:
            f.write("always madvise [never]\n")
        env = dict(ALL_HOOKS, MEMBENCH_TEST_SYS_ROOT=root)
        args = ["--faults", "--faults-backing", "4k,thp", "--faults-size", "8MiB",
                "--format", "json"]
        rc, out, err = run(args, env_extra=env, binary=BIN, timeout=60)
        msg = describe(args, rc, out, err)
        plain = self.run_json(args[:-2], timeout=60)
        self.assertEqual(rc, 0, msg)
        self.assertNotIn("membench-test:", err, msg)
        rows = {r["backing"]: r for r in json.loads(out)["faults"]["runs"]}
        self.assertTrue(rows["4k"]["smaps"]["verified"], msg)
        want = {r["backing"]: r["skipped"] for r in plain["faults"]["runs"]}
        self.assertEqual({b: r["skipped"] for b, r in rows.items()}, want, msg)

    def test_install_puts_only_membench(self):
        """cmake --install installs membench and no other program of the build (not
        membench-hooked): its programs are membench, membench-plot and the Slurm health check
        script."""
        build = os.path.dirname(BIN)
        cmake = os.environ.get("CMAKE_COMMAND") or shutil.which("cmake")
        if not cmake or not os.path.isfile(os.path.join(build, "cmake_install.cmake")):
            self.skipTest("no cmake or no CMake build directory at " + build)
        self.assertTrue(os.path.isfile(HOOKED_BIN), "membench-hooked not built: " + HOOKED_BIN)
        prefix = tempfile.mkdtemp(prefix="membench-install-")
        self.addCleanup(shutil.rmtree, prefix, True)
        proc = subprocess.run([cmake, "--install", build, "--prefix", prefix],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stdout.decode(errors="replace"))
        installed = sorted(os.path.relpath(os.path.join(d, f), prefix)
                           for d, _, files in os.walk(prefix) for f in files)
        programs = [p for p in installed if p.startswith(("bin/", "sbin/"))]
        self.assertEqual(programs, ["bin/membench", "bin/membench-plot", "sbin/membench-healthcheck"])
        self.assertFalse([p for p in installed if "hooked" in p], installed)
        self.assertNotIn(b"MEMBENCH_TEST", read_bytes(os.path.join(prefix, "bin", "membench")))


class BrokenKernelTest(membench_test.MembenchTestCase):
    """membench-hooked with MEMBENCH_TEST_BROKEN_KERNEL=NAME runs a NAME kernel that gets the
    last element of each thread's share wrong (a relative 2^-16; a reduction leaves it out).
    Validation must catch it: exit 1, the array or sum named on stderr, passed false."""

    def check_caught(self, flag, extra=(), elem_bytes=8):
        name, array = KERNELS[flag]
        args = ["--" + flag] + SIZE + list(extra) + ["--format", "json"]
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_BROKEN_KERNEL": flag})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 1, msg)
        errors = [line for line in err.splitlines() if "failed validation" in line]
        self.assertEqual(len(errors), 1, msg)
        self.assertTrue(errors[0].startswith("membench: run 1 failed validation: "), msg)
        r = json.loads(out)["runs"][0]
        self.assertIs(r["validation"]["passed"], False, msg)
        self.assertEqual([x["kernel"] for x in r["results"]], [name], msg)
        if array is None:
            self.assertIn("the %s sum is off its closed form" % name, errors[0], msg)
            return
        # the first wrong element is where the kernel's first share ends: inside the kernel
        n, threads = r["config"]["array_elements"], r["config"]["threads"]
        bad = share_end(n, threads, 0, elem_bytes) - 1
        self.assertIn("array %s[%d] = " % (array, bad), errors[0], msg)
        self.assertGreater(r["validation"]["max_rel_error"], r["validation"]["tolerance"], msg)

    def test_every_kernel_double(self):
        for flag in KERNELS:
            with self.subTest(kernel=flag):
                self.check_caught(flag)

    def test_storing_kernels_float(self):
        for flag in ("copy", "scale", "add", "triad"):
            with self.subTest(kernel=flag):
                self.check_caught(flag, ["--type", "float"], elem_bytes=4)

    def test_nontemporal_stores(self):
        self.check_caught("triad", ["--stores", "nt"])

    def test_default_run_text(self):
        """The four STREAM kernels with a broken Triad: STREAM's own failure text."""
        args = SMALL
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_BROKEN_KERNEL": "Triad"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 1, msg)
        self.assertRegex(err, re.compile(r"^membench: run 1 failed validation: array a\[", re.M))
        self.assertIn("Failed Validation", out, msg)
        self.assertNotIn("Solution Validates", out, msg)

    def test_only_the_named_kernel_is_broken(self):
        """Dot broken but not run: the hooked binary measures and validates as membench."""
        doc = self.run_json(SIZE, env_extra={"MEMBENCH_TEST_BROKEN_KERNEL": "dot"})
        self.assertIs(doc["runs"][0]["validation"]["passed"], True)

    def test_unknown_kernel_is_refused(self):
        self.assert_error(SIZE, 2, ["MEMBENCH_TEST_BROKEN_KERNEL", "trid"],
                          env_extra={"MEMBENCH_TEST_BROKEN_KERNEL": "trid"})


def points(err):
    """The named points membench-hooked announced on stderr, in order."""
    return [line[len("membench-test: "):] for line in err.splitlines()
            if line.startswith("membench-test: ")]


class PointHookTest(membench_test.MembenchTestCase):
    """MEMBENCH_TEST_ANNOUNCE=1 names each point as it is reached; MEMBENCH_TEST_PAUSE_AT=POINT
    stops the process there until SIGCONT, so a signal arrives while that phase runs."""

    ANNOUNCE = {"MEMBENCH_TEST_ANNOUNCE": "1"}

    def test_sweep_announces_each_run_and_its_first_touch(self):
        args = SIZE + ["-t", "1,2", "--format", "json"]
        rc, out, err = run(args, env_extra=self.ANNOUNCE)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 0, msg)
        runs = [p for p in points(err) if p.startswith(("at run ", "at first touch"))]
        self.assertEqual(runs, ["at run 1", "at first touch", "at run 2", "at first touch"], msg)
        self.assertEqual(len(json.loads(out)["runs"]), 2, msg)

    def test_probes_announce_their_points(self):
        for args, point in ((["--faults", "--faults-backing", "4k", "--faults-size", "8MiB"],
                             "at faults probe"),
                            (["--tlb", "--tlb-pages", "16", "--tlb-trials", "1000"],
                             "at tlb point 0")):
            with self.subTest(args=args):
                rc, out, err = run(args + ["-q"], env_extra=self.ANNOUNCE, timeout=60)
                msg = describe(args, rc, out, err)
                self.assertEqual(rc, 0, msg)
                self.assertIn(point, points(err), msg)
                self.assertEqual(len(points(err)), len(set(points(err))), "each once\n" + msg)

    def test_pause_stops_there_until_continued(self):
        args = SIZE + ["-t", "1,2", "--format", "json"]
        proc, before = membench_test.start_paused(args, "run 2")
        self.addCleanup(proc.kill)
        self.assertTrue(before.endswith("membench-test: paused at run 2\n"), before)
        self.assertEqual(points(before), ["paused at run 2"])
        with open("/proc/%d/stat" % proc.pid) as f:
            self.assertEqual(f.read().rsplit(")", 1)[1].split()[0], "T")
        membench_test.resume(proc)
        out, err = proc.communicate(timeout=120)
        msg = describe(args, proc.returncode, out, before + err)
        self.assertEqual(proc.returncode, 0, msg)
        self.assertEqual(points(err), [], "paused once, nothing announced\n" + msg)
        self.assertEqual(len(json.loads(out)["runs"]), 2, msg)

    def test_signal_while_paused_is_answered_there(self):
        """SIGINT sent while stopped at run 2: run 1 is reported, run 2 never starts."""
        args = SIZE + ["-t", "1,2", "--format", "json"]
        proc, _ = membench_test.start_paused(args, "run 2", env_extra=self.ANNOUNCE)
        self.addCleanup(proc.kill)
        membench_test.resume(proc, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        msg = describe(args, proc.returncode, out, err)
        self.assertEqual(proc.returncode, 130, msg)
        self.assertNotIn("at first touch", points(err), msg)
        self.assertEqual(len(json.loads(out)["runs"]), 1, msg)

    def test_point_never_reached_runs_through(self):
        args = SIZE + ["--format", "json"]
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_PAUSE_AT": "no such point"})
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertEqual(points(err), [])

    def test_bad_announce_value_is_refused(self):
        self.assert_error(SIZE, 2, ["MEMBENCH_TEST_ANNOUNCE", "yes"],
                          env_extra={"MEMBENCH_TEST_ANNOUNCE": "yes"})


if __name__ == "__main__":
    membench_test.main()
