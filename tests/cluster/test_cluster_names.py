# ctest: LABELS mpi
"""The cluster table (MPI builds only) with host names holding a tab, a newline and a terminal
escape: each node stays one row, its name shown escaped, no escape reaches the terminal; the
JSON keeps the names as they are. Two nodes are emulated on one machine with
MEMBENCH_TEST_HOSTNAMES (as in test_mpi_protocol.py). The code before this test split the row
and printed the escape raw."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
import cluster_case  # noqa: E402
from cluster_case import MpiTestCase  # noqa: E402

SMALL = ["-t", "1", "--size", "500000", "-n", "3", "--tolerance", "90"]
NAMES = ["cn\t1\x1b[31m", "cn\n2"]
SHOWN = ["cn\\t1\\x1B[31m", "cn\\n2"]


class ClusterNamesTest(MpiTestCase):

    def mpirun(self, args):
        env_extra = {"MEMBENCH_TEST_HOSTNAMES": ",".join(NAMES)}
        cmd = (["mpirun", "--bind-to", "none", "-np", "2"]
               + membench_test.command(membench_test.binary_for(env_extra)) + args)
        proc = subprocess.run(cmd, env=cluster_case.mpi_env(env_extra), capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        return proc.stdout

    def test_hostile_names_in_the_table(self):
        table = self.mpirun(SMALL)
        bad = [c for c in table if ord(c) < 0x20 and c != "\n"]
        self.assertEqual(bad, [], table)
        rows = [line for line in table.splitlines() if line.startswith("cn")]
        self.assertEqual(len(rows), 2, table)
        for row, (rank, shown) in zip(rows, enumerate(SHOWN)):
            self.assertTrue(row.startswith(shown + " "), row)
            self.assertRegex(row[len(shown):], r"^\s+%d\s" % rank)
        nodes = json.loads(self.mpirun(SMALL + ["--format", "json"]))["nodes"]
        self.assertEqual([n["hostname"] for n in nodes], NAMES)


if __name__ == "__main__":
    membench_test.main()
