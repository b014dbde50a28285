"""tests/skipped: the reasons of the last ctest run's skips, which ctest itself never shows,
read from ctest's LastTest.log (the unittest and cmocka forms) and named by test file."""

import os
import subprocess
import tempfile
import unittest

import membench_test

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "skipped")

LOG = """Start testing: Dec 03 17:11 UTC
----------------------------------------------------------
48/113 Testing: cluster/test_mpi
48/113 Test: cluster/test_mpi
Output:
----------------------------------------------------------
test_failing (__main__.MpiTest.test_failing) ... skipped 'not an MPI build (configure)'
test_one_row (__main__.MpiTest.test_one_row)
Two ranks on one machine are one node. ... skipped 'not an MPI build (configure)'
test_pool (__main__.MpiTest.test_pool) ... skipped 'no 2 MB pool: echo 8 > nr_hugepages'
test_ran (__main__.MpiTest.test_ran) ... ok
<end of output>
Test Passed.
----------------------------------------------------------

50/113 Testing: output/test_plots
50/113 Test: output/test_plots
Output:
----------------------------------------------------------
test_draws (__main__.PlotTest.test_draws) ... ok
<end of output>
Test Passed.
----------------------------------------------------------

70/113 Testing: unit/test_pool
70/113 Test: unit/test_pool
Output:
----------------------------------------------------------
[ RUN      ] reserve
[  SKIPPED ] reserve
<end of output>
"""


class SkippedTest(unittest.TestCase):
    def run_script(self, build):
        return subprocess.run([SCRIPT, build], capture_output=True, text=True, timeout=60)

    def test_reasons_by_file(self):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "Testing", "Temporary"))
            with open(os.path.join(build, "Testing", "Temporary", "LastTest.log"), "w") as f:
                f.write(LOG)
            p = self.run_script(build)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines(), [
            "cluster/test_mpi: 2 cases skipped: not an MPI build (configure)",
            "cluster/test_mpi: 1 case skipped: no 2 MB pool: echo 8 > nr_hugepages",
            "unit/test_pool: 1 case skipped: reserve: cmocka gives no reason (see its skip() in"
            " the source)"])

    def test_no_log_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as build:
            p = self.run_script(build)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertRegex(p.stderr, r"cannot read .*LastTest\.log.*run ctest")


if __name__ == "__main__":
    membench_test.main()
