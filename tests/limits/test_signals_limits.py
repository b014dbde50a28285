# ctest: LABELS timing hugetlb races
"""Probes and first touch respect signals and memory limits.

- SIGINT/SIGTERM during the TLB probe, the faults probe or the first touch of big arrays ends
  membench within about a second, with 128+sig and a report that says what was kept (none,
  and the previous -o file as it was, when nothing was).
- In a small memory cgroup the faults, TLB and shootdown probes exit 3 with one line and the
  remedy instead of being OOM-killed.
- A sweep whose later run finds its memory taken (by another process of the same cgroup) stops
  with exit 3 and reports the runs that finished.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402

#: Seconds after the signal within which membench must have exited (it answers in ~0.1 s;
#: the rest is slack for a loaded machine).
ANSWER_S = 1.5

CGROUP_LIMIT = 200 << 20


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def error_lines(err):
    """stderr lines that are errors (warnings and notes are not)."""
    return [l for l in err.splitlines()
            if not l.startswith(("membench: warning:", "membench: note:"))]


class SignalTest(MembenchTestCase):
    """A signal while a named phase runs (membench-hooked stops itself there, see
    membench_test.start_paused): how soon membench exits, and what it reports."""

    def interrupt(self, args, sig, point):
        proc, before = membench_test.start_paused(args, point)
        sent = time.monotonic()
        membench_test.resume(proc, sig)
        try:
            out, err = proc.communicate(timeout=90)
        finally:
            if proc.poll() is None:
                proc.kill()
        took = time.monotonic() - sent
        err = before + err
        msg = membench_test.describe(args, proc.returncode, out, err)
        self.assertEqual(proc.returncode, 128 + sig, msg)
        self.assertLess(took, ANSWER_S, "exited %.1f s after the signal\n%s" % (took, msg))
        self.assertNotIn("reporting the 0 runs", err, msg)
        return out, err, msg

    def test_sigint_during_tlb_probe(self):
        """Before its first point the probe has kept nothing: no report."""
        out, err, msg = self.interrupt(["--tlb", "--format", "json"], signal.SIGINT,
                                       "tlb point 0")
        self.assertIn("interrupted by SIGINT before any measurement finished: no report written",
                      err, msg)
        self.assertEqual(out, "", msg)

    def test_sigint_during_tlb_sweep_keeps_its_points(self):
        """Later, in the sweep itself: the three points sampled before the fourth are reported."""
        out, err, msg = self.interrupt(["--tlb"], signal.SIGINT, "tlb point 3")
        m = re.search(r"the TLB probe stopped in (.*?)(?: at (\d+) pages?)?; reporting the "
                      r"(\d+) points? measured", err)
        self.assertIsNotNone(m, msg)
        self.assertEqual(m.group(1), "the 4 KB sweep", msg)
        self.assertEqual(int(m.group(3)), 3, msg)
        self.assertIn("INTERRUPTED by SIGINT: the TLB probe stopped", out, msg)

    def test_sigint_during_faults_probe(self):
        """At its first check no backing is measured: no report (test_stop_early.py has one that
        kept something)."""
        out, err, msg = self.interrupt(
            ["--faults", "--faults-size", "512", "--faults-backing", "4k", "--format", "json"],
            signal.SIGINT, "faults probe")
        self.assertIn("interrupted by SIGINT before any measurement finished: no report written",
                      err, msg)
        self.assertEqual(out, "", msg)

    def test_sigterm_during_first_touch(self):
        if membench_test.THREAD_SANITIZER:
            self.skipTest("ThreadSanitizer releases the arrays' shadow memory slowly: the time to "
                          "answer is measured in the plain build")
        per_array = min(3 << 30, int(0.15 * mem_available() / membench_test.MEMORY_FACTOR))
        if per_array < (512 << 20):
            self.skipTest("too little MemAvailable for big arrays")
        size = "%dMiB" % (per_array >> 20)
        out, err, msg = self.interrupt(["-s", size, "-t", "2", "-n", "2", "-q"], signal.SIGTERM,
                                       "first touch")
        self.assertIn("interrupted by SIGTERM before any run finished: no report written", err,
                      msg)
        self.assertEqual(out, "", msg)


def memory_cgroup_parent():
    """Where a child memory cgroup can be made: (directory, limit file, procs file, v2), or
    (None, reason)."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        return None, "cannot read /proc/self/cgroup (%s)" % exc
    for line in lines:  # cgroup v1: the memory controller's own hierarchy
        parts = line.split(":", 2)
        if len(parts) == 3 and "memory" in parts[1].split(","):
            d = "/sys/fs/cgroup/memory" + parts[2]
            if os.path.isdir(d):
                return (d, "memory.limit_in_bytes", False), None
    try:
        with open("/proc/mounts") as f:
            mounts = f.read()
    except OSError:
        mounts = ""
    if re.search(r"^\S+ /sys/fs/cgroup cgroup2 ", mounts, re.M):
        return ("/sys/fs/cgroup", "memory.max", True), None
    return None, "no writable memory cgroup (neither a v1 memory hierarchy nor cgroup2 at " \
                 "/sys/fs/cgroup)"


class CgroupCase(MembenchTestCase):
    """Each test runs membench in a fresh child memory cgroup, removed afterwards."""

    limit = CGROUP_LIMIT

    def setUp(self):
        super().setUp()
        where, why = memory_cgroup_parent()
        if not where:
            self.skipTest(why)
        parent, limit_file, v2 = where
        self.cg = os.path.join(parent, "membench-test-%d-%s"
                               % (os.getpid(), self.id().split(".")[-1][-12:]))
        try:
            if v2:
                with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                    if "memory" not in f.read().split():
                        with open(os.path.join(parent, "cgroup.subtree_control"), "w") as g:
                            g.write("+memory")
            os.mkdir(self.cg)
            with open(os.path.join(self.cg, limit_file), "w") as f:
                f.write(str(self.limit))
        except OSError as exc:
            self.remove_cgroup()
            self.skipTest("cannot make a %d MiB memory cgroup here (%s)"
                          % (self.limit >> 20, exc))
        self.addCleanup(self.remove_cgroup)

    def remove_cgroup(self):
        for _ in range(50):
            try:
                if os.path.isdir(self.cg):
                    os.rmdir(self.cg)
                return
            except OSError:
                time.sleep(0.1)  # its last process is still being reaped

    def in_cgroup(self, argv):
        """argv run inside the cgroup: a shell writes its pid there, then execs."""
        return ["sh", "-c", 'echo $$ > "%s/cgroup.procs" && exec "$@"' % self.cg, "sh"] + argv

    def run_in_cgroup(self, args):
        proc = subprocess.run(self.in_cgroup(membench_test.command(membench_test.BIN) + args),
                              env=membench_test.make_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr


class CgroupProbeTest(CgroupCase):
    """In a 200 MiB memory cgroup: exit 3 with one line and the remedy, not SIGKILL (137)."""

    def assert_refused(self, args, remedy):
        rc, out, err = self.run_in_cgroup(args)
        msg = membench_test.describe(args, rc, out, err)
        self.assertEqual(rc, 3, msg)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, msg)
        self.assertTrue(lines[0].startswith("membench: "), msg)
        self.assertIn("memory cgroup", lines[0], msg)
        self.assertIn("limit 200.0 MiB", lines[0], msg)
        self.assertIn(remedy, lines[0], msg)
        self.assertEqual(out, "", msg)

    def test_faults_size_above_the_cgroup(self):
        self.assert_refused(["--faults", "--faults-size", "256"], "choose a smaller --faults-size")
        rc, out, err = self.run_in_cgroup(["--faults", "--faults-size", "16",
                                           "--faults-backing", "4k", "--format", "json"])
        self.assertEqual(rc, 0, membench_test.describe([], rc, out, err))  # what fits still runs
        self.assertEqual(json.loads(out)["faults"]["runs"][0]["backing"], "4k")

    def test_tlb_max_pages_above_the_cgroup(self):
        self.assert_refused(["--tlb", "--tlb-max-pages", "8192"], "--tlb-pages")

    def test_shootdown_pages_above_the_cgroup(self):
        self.assert_refused(["--shootdown", "--shootdown-pages", "65536"],
                            "choose fewer --shootdown-pages")


#: The hog: allocates and touches N bytes when told to, says so, then waits to be ended.
HOG = ("import sys\n"
       "sys.stdin.readline()\n"
       "hog = b'\\x01' * int(sys.argv[1])\n"
       "print('ok', flush=True)\n"
       "sys.stdin.readline()\n")


class SweepResourceTest(CgroupCase):
    """A sweep -s 16MiB,64MiB in a 256 MiB cgroup: after run 1 (48 MiB), before run 2 starts
    (membench-hooked stops itself at "run 2"), another process of the cgroup takes 120 MiB, so
    run 2 (192 MiB) no longer fits."""

    limit = 256 << 20

    def test_later_run_without_memory_keeps_the_finished_run(self):
        if membench_test.MEMORY_FACTOR > 1:
            self.skipTest("ThreadSanitizer's shadow memory does not fit the 256 MiB cgroup")
        hog = subprocess.Popen(self.in_cgroup([sys.executable, "-c", HOG, str(120 << 20)]),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.addCleanup(hog.wait, 10)
        self.addCleanup(hog.kill)
        args = ["-s", "16MiB,64MiB", "-n", "3", "-t", "1", "--format", "json"]
        proc, before = membench_test.start_paused(args, "run 2", wrapper=self.in_cgroup([]))
        self.addCleanup(proc.kill)
        hog.stdin.write("go\n")
        hog.stdin.flush()
        self.assertEqual(hog.stdout.readline().strip(), "ok")
        membench_test.resume(proc)
        out, err = proc.communicate(timeout=120)
        err = before + err
        hog.stdin.write("end\n")
        hog.stdin.flush()
        msg = membench_test.describe(args, proc.returncode, out, err)
        self.assertEqual(proc.returncode, 3, msg)
        errors = [l for l in error_lines(err) if not l.startswith("membench-test: ")]
        self.assertEqual(len(errors), 1, msg)
        self.assertRegex(errors[0], r"^membench: run 2 of 2: the three arrays need 192\.0 MiB "
                                    r".* memory cgroup .*choose a smaller --size", msg)
        doc = json.loads(out)
        self.assertEqual(len(doc["runs"]), 1, msg)
        self.assertTrue(doc["runs"][0]["validation"]["passed"], msg)
        self.assertFalse(doc["interrupted"], msg)
        self.assertIn("run 2 of 2 could not run", doc["kept"], msg)


if __name__ == "__main__":
    membench_test.main()
