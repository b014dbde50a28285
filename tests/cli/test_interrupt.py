"""SIGINT/SIGTERM during a sweep: the finished runs are written, valid and marked, the
unfinished one is dropped, memory is given back, and the exit status is 130/143."""

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402

SWEEP = ["--triad", "-t", ",".join(["1", "2"] * 30), "--size", "4000000", "-n", "8"]


class InterruptTest(MembenchTestCase):

    def interrupt(self, sig, fmt, after=3.0):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "sweep." + fmt)
            proc = subprocess.Popen([membench_test.BIN] + SWEEP + ["--format", fmt, "-o", out],
                                    env=membench_test.make_env(), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            time.sleep(after)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=60)
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
        self.assertGreaterEqual(len(doc["runs"]), 1, "a few seconds finish some runs")
        self.assertLess(len(doc["runs"]), 60)
        for run in doc["runs"]:
            self.assertTrue(run["validation"]["passed"])
            self.assertGreater(run["results"][0]["best_rate_mbps"], 0)
        self.assertIn("interrupted by SIGINT", err)

    def test_sigterm_keeps_finished_runs_as_valid_csv(self):
        rc, err, text, _ = self.interrupt(signal.SIGTERM, "csv")
        self.assertEqual(rc, 143, err)
        rows = list(csv.DictReader(text.splitlines()))
        self.assertGreaterEqual(len(rows), 1)
        self.assertTrue(all(r["validated"] == "true" for r in rows))
        runs = {r["run"] for r in rows}
        self.assertEqual(runs, {str(i) for i in range(1, len(runs) + 1)})

    def test_text_report_says_interrupted(self):
        rc, _, text, _ = self.interrupt(signal.SIGINT, "text")
        self.assertEqual(rc, 130)
        self.assertRegex(text, r"INTERRUPTED by SIGINT: only the \d+ runs? that finished")
        self.assertIn("Solution Validates", text)


if __name__ == "__main__":
    membench_test.main()
