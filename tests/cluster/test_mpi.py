# ctest: LABELS mpi
"""Cluster runs under mpirun (MPI builds only): the per-node table, nodes[] in JSON, the
verdict on every rank, and per-rank mode for tests on one machine."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from cluster_case import MpiTestCase, mpi_env  # noqa: E402

SMALL = ["--size", "2000000", "-n", "4"]


class MpiTest(MpiTestCase):

    def mpirun(self, np, args, extra=()):
        env = mpi_env()
        cmd = (["mpirun", "-np", str(np), *extra] + membench_test.command(membench_test.BIN)
               + list(args))
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)

    def test_one_row_per_node(self):
        """Two ranks on one machine are one node: one leader measures, one row."""
        proc = self.mpirun(2, ["--triad", "--format", "json", "-t", "1"] + SMALL,
                           ["--bind-to", "none"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        doc = json.loads(proc.stdout)
        self.assertEqual(doc["cluster"]["nodes"], 1)
        self.assertEqual(len(doc["nodes"]), 1)
        node = doc["nodes"][0]
        self.assertEqual(node["rank"], 0)
        self.assertEqual(node["verdict"], "OK")  # validated; one node's rates are not judged
        self.assertTrue(doc["cluster"]["passed"])
        self.assertGreater(node["best_rate_mbps"]["Triad"], 0)
        self.assertTrue(node["report"]["runs"][0]["validation"]["passed"])

    def test_per_rank_table(self):
        # Two ranks share one small, noisy VM: a wide tolerance, the statistics have unit tests.
        proc = self.mpirun(2, ["--mpi-per-rank", "-t", "1", "--tolerance", "60"] + SMALL,
                           ["--bind-to", "core"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        out = proc.stdout
        self.assertIn("Cluster: 2 nodes", out)
        # Two nodes are too few to tell which one is wrong: validated, rates not judged.
        self.assertRegex(out, r"(?m)^\S+\s+0\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+OK")
        self.assertRegex(out, r"(?m)^\S+\s+1\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+OK")
        self.assertRegex(out, r"(?m)^median\s")
        self.assertIn("Verdict: PASS: every node validated; rates not judged", out)

    def test_failing_node_fails_every_rank(self):
        proc = self.mpirun(2, ["--mpi-per-rank", "-t", "1", "--expect", "triad=999999999",
                               "--triad"] + SMALL, ["--bind-to", "core"])
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("Verdict: FAIL (2 of 2 nodes failed)", proc.stdout)


if __name__ == "__main__":
    membench_test.main()
