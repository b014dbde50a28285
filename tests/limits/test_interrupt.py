# ctest: LABELS timing races
"""SIGINT/SIGTERM during a sweep: the finished runs are written, valid and marked, the
unfinished one is dropped, memory is given back, and the exit status is 130/143.

The signal comes while run 3 starts (membench-hooked stops itself at "run 3"): exactly runs 1
and 2 have finished, on any machine."""

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402

SWEEP = ["--triad", "-t", ",".join(["1", "2"] * 30), "--size", "4000000", "-n", "8"]


class InterruptTest(MembenchTestCase):

    def interrupt(self, sig, fmt, point="run 3"):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "sweep." + fmt)
            proc, before = membench_test.start_paused(SWEEP + ["--format", fmt, "-o", out], point)
            membench_test.resume(proc, sig)
            _, err = proc.communicate(timeout=60)
            err = before + err
            left = sorted(os.listdir(d))
            with open(out) as f:
                text = f.read()
            return proc.returncode, err, text, left

    def test_sigint_keeps_finished_runs_as_valid_json(self):
        rc, err, text, left = self.interrupt(signal.SIGINT, "json")
        self.assertEqual(rc, 130, err)
        self.assertEqual(left, ["sweep.json"], "no temporary file left behind")
        doc = json.loads(text)
        self.assertTrue(doc["interrupted"])
        self.assertEqual(doc["interrupted_by"], "SIGINT")
        self.assertEqual(len(doc["runs"]), 2, "runs 1 and 2 finished")
        for run in doc["runs"]:
            self.assertTrue(run["validation"]["passed"])
            self.assertGreater(run["results"][0]["best_rate_mbps"], 0)
        self.assertIn("interrupted by SIGINT", err)

    def test_sigterm_keeps_finished_runs_as_valid_csv(self):
        rc, err, text, _ = self.interrupt(signal.SIGTERM, "csv")
        self.assertEqual(rc, 143, err)
        rows = list(csv.DictReader(text.splitlines()))
        self.assertTrue(all(r["validated"] == "true" for r in rows))
        self.assertEqual({r["run"] for r in rows}, {"1", "2"})

    def test_text_report_says_interrupted(self):
        rc, _, text, _ = self.interrupt(signal.SIGINT, "text")
        self.assertEqual(rc, 130)
        self.assertIn("INTERRUPTED by SIGINT: only the 2 runs that finished", text)
        self.assertIn("Solution Validates", text)

    def test_reference_runs_keep_the_last_finished_run(self):
        """SIGINT as reference run 3 of 3 starts: runs 1 and 2 finished, so the report holds run
        2 and says so; no reference is saved."""
        with tempfile.TemporaryDirectory() as d:
            out, ref = os.path.join(d, "r.json"), os.path.join(d, "ref.json")
            args = ["--triad"] + membench_test.SMALL + [
                "--save-reference", ref, "--reference-runs", "3", "--format", "json", "-o", out]
            proc, before = membench_test.start_paused(args, "reference run 3")
            membench_test.resume(proc, signal.SIGINT)
            _, err = proc.communicate(timeout=60)
            err = before + err
            msg = membench_test.describe(args, proc.returncode, "", err)
            self.assertEqual(proc.returncode, 130, msg)
            kept = ("reference run 3 of 3 did not finish; the report holds run 2, the last that "
                    "finished")
            self.assertIn("membench: interrupted by SIGINT: " + kept, err, msg)
            self.assertNotIn("before any run finished", err, msg)
            self.assertIn("no reference written to %s" % ref, err, msg)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["kept"], kept, msg)
            self.assertEqual(len(doc["runs"]), 1, msg)
            self.assertTrue(doc["runs"][0]["validation"]["passed"], msg)
            self.assertGreater(doc["runs"][0]["results"][0]["best_rate_mbps"], 0, msg)
            self.assertEqual(sorted(os.listdir(d)), ["r.json"], msg)

    def test_membench_itself_answers_sigint(self):
        """The product binary, without hooks: the signal once run 1 has touched its arrays (its
        resident memory says so: an event, not a delay)."""
        args = ["--triad", "-t", "1", "--size", "20000000", "-n", "100000"]
        proc = subprocess.Popen(membench_test.command(membench_test.BIN) + args,
                                env=membench_test.make_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.kill)
        arrays = 3 * 20000000 * 8
        deadline = time.monotonic() + 120
        while resident_bytes(proc.pid) < arrays:
            self.assertIsNone(proc.poll(), "membench ended before its arrays were touched")
            self.assertLess(time.monotonic(), deadline, "run 1 never touched its arrays")
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, membench_test.describe(args, proc.returncode,
                                                                      out, err))
        self.assertIn("interrupted by SIGINT", err)
        self.assertNotIn("membench-test:", err)


def resident_bytes(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) << 10
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    membench_test.main()
