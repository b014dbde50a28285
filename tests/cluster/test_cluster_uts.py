# ctest: LABELS mpi slurm
"""Many nodes on one machine (MPI builds only): every rank starts in a UTS namespace of its own
(`unshare --uts`) named nodeN, and membench-hooked's MEMBENCH_TEST_GROUP_BY_HOSTNAME=1 groups
the ranks into nodes by gethostname() instead of by shared memory, as ranks on distinct
machines are grouped. Under mpirun and under srun --mpi=pmix (tests/lib/slurm_cluster.py's
LocalSlurm): 3 ranks are 3 nodes node0..2; 6 ranks, 2 per name, are 3 nodes whose second ranks wait;
a node forced slow (MEMBENCH_TEST_RATE_SCALE) is named.

The outlier: below 4 healthy nodes peers are not compared (docs/design.md, cluster verdicts),
and every rank must be given the same options, so no --expect can single out one node. The
3-node run therefore asserts the "not judged" wording and the forced node's own deviating
rate, and a 5-node run shows the verdict that FAILs the forced node by name.

The machine's own name is never changed: `unshare --uts` runs the wrapper only once the new
namespace exists, the wrapper refuses (exit 77) when its namespace is still the test's, and
each test checks that the machine's name is the same afterwards."""

import json
import os
import socket
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402
from cluster_case import MpiTestCase, mpi_env, shortfall  # noqa: E402

import slurm_cluster  # noqa: E402

# As in test_mpi_verdict.py: cache-resident arrays, many repetitions, a tolerance and a
# factor far beyond the noise of ranks that share a small machine.
ARGS = ["-t", "1", "-s", "500000", "-n", "20", "--tolerance", "40", "--format", "json"]
GROUP = {"MEMBENCH_TEST_GROUP_BY_HOSTNAME": "1"}

# sh -c WRAPPER sh PER BINARY ARGS...: inside the new namespace (never the test's, whose id is
# in UTS_OUTER), name it node<world rank / PER>, then run the binary.
WRAPPER = ('[ -n "$UTS_OUTER" ] && [ "$(readlink /proc/self/ns/uts)" != "$UTS_OUTER" ] '
           '|| exit 77; '
           'per=$1; shift; '
           'rank=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:?no world rank}}; '
           'hostname "node$((rank / per))" || exit 77; exec "$@"')


def uts_prefix(per):
    """The command each rank runs before the binary: a new UTS namespace named node<rank/per>."""
    return ["unshare", "--uts", "sh", "-c", WRAPPER, "sh", str(per)]


def uts_unavailable():
    """Why a rank cannot get a UTS namespace of its own here, or None."""
    try:
        proc = subprocess.run(["unshare", "--uts", "true"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "unshare --uts cannot run: %s" % e
    if proc.returncode != 0:
        return ("unshare --uts is not permitted here (needs root or user namespaces): %s"
                % proc.stderr.strip())
    return None


class UtsCases:
    """The checks; a subclass gives launch(ranks, per, hooks) -> (rc, stdout, stderr)."""

    def setUp(self):
        super().setUp()
        reason = uts_unavailable()
        if reason:
            self.skipTest(reason)
        self.machine = socket.gethostname()
        self.addCleanup(self.assert_machine_name_kept)

    def assert_machine_name_kept(self):
        self.assertEqual(socket.gethostname(), self.machine, "the machine was renamed")

    def env(self, hooks):
        return {**GROUP, "UTS_OUTER": os.readlink("/proc/self/ns/uts"), **(hooks or {})}

    def cluster_json(self, ranks, per, hooks=None):
        rc, out, err = self.launch(ranks, per, self.env(hooks))
        self.assertNotEqual(rc, 77, "a rank was not in a UTS namespace of its own\n" + err)
        try:
            return rc, json.loads(out), err
        except ValueError:
            self.fail("no cluster JSON: rc %d\n%s\n%s" % (rc, out, err))

    def test_three_namespaces_are_three_nodes(self):
        """node1's Scale forced to 0.2: three rows named node0..2, each its own report; with
        3 healthy nodes the rates are not judged (and it says so), node1's Scale deviates."""
        rc, doc, err = self.cluster_json(3, 1, {"MEMBENCH_TEST_RATE_SCALE": "1:scale=0.2"})
        self.assertEqual(rc, 0, err)
        self.assertEqual(doc["cluster"]["nodes"], 3)
        self.assertEqual([(n["hostname"], n["rank"]) for n in doc["nodes"]],
                         [("node0", 0), ("node1", 1), ("node2", 2)])
        self.assertEqual([n["report"]["system"]["hostname"] for n in doc["nodes"]],
                         ["node0", "node1", "node2"])
        self.assertFalse(doc["cluster"]["peer_compared"])
        self.assertIn("peer comparison needs 4 healthy nodes (3 here)", doc["cluster"]["judged"])
        self.assertEqual([n["verdict"] for n in doc["nodes"]], ["OK"] * 3)
        scale = [n["best_rate_mbps"]["Scale"] for n in doc["nodes"]]
        self.assertLess(scale[1], 0.4 * min(scale[0], scale[2]), scale)

    def test_two_ranks_per_namespace_one_leader_each(self):
        """6 ranks, 2 per name: 3 nodes led by ranks 0, 2, 4; ranks 1, 3, 5 wait."""
        rc, doc, err = self.cluster_json(6, 2)
        self.assertIn(rc, (0, 1), err)
        self.assertEqual(doc["cluster"]["nodes"], 3)
        self.assertEqual([(n["hostname"], n["rank"]) for n in doc["nodes"]],
                         [("node0", 0), ("node1", 2), ("node2", 4)])
        for node in doc["nodes"]:
            self.assertIsNotNone(node["report"], node)
            self.assertGreater(node["best_rate_mbps"]["Triad"], 0, node)

    def test_slow_namespace_is_named(self):
        """5 names (peers are compared from 4 healthy nodes), each reporting the same rates
        (MEMBENCH_TEST_RATES: no noise from the shared CPUs), node2's Scale at 0.2: node2 FAILs
        naming Scale, the others pass."""
        rc, doc, err = self.cluster_json(
            5, 1, {"MEMBENCH_TEST_RATES": "*:copy=50000,scale=50000,add=50000,triad=50000",
                   "MEMBENCH_TEST_RATE_SCALE": "2:scale=0.2"})
        by_name = {n["hostname"]: n for n in doc["nodes"]}
        peers = [by_name.get("node%d" % i, {}).get("verdict") for i in (0, 1, 3, 4)]
        self.assertEqual(rc, 1, err)
        self.assertEqual(sorted(by_name), ["node%d" % i for i in range(5)])
        self.assertTrue(doc["cluster"]["peer_compared"])
        slow = by_name["node2"]
        self.assertEqual(slow["verdict"], "FAIL")
        self.assertEqual(shortfall(slow), "slow: Scale -80.0% vs median")
        self.assertEqual(peers, ["PASS"] * 4, doc["nodes"])
        self.assertEqual(doc["cluster"]["summary"], "FAIL (1 of 5 nodes failed)")


class UtsMpirunTest(UtsCases, MpiTestCase):
    """mpirun --bind-to none -np N unshare --uts sh -c WRAPPER ... membench-hooked ARGS."""

    def launch(self, ranks, per, hooks):
        cmd = (["mpirun", "--bind-to", "none", "-np", str(ranks)] + uts_prefix(per)
               + membench_test.command(membench_test.binary_for(hooks)) + ARGS)
        proc = subprocess.run(cmd, env=mpi_env(hooks), capture_output=True, text=True,
                              timeout=120)
        return proc.returncode, proc.stdout, proc.stderr


class UtsSrunTest(UtsCases, MembenchTestCase):
    """srun -n N --mpi=pmix -O -c CPUS --cpu-bind=none unshare --uts ... on a local Slurm."""

    @classmethod
    def setUpClass(cls):
        if os.environ.get("MEMBENCH_MPI_BUILD") != "1":
            raise unittest.SkipTest("not an MPI build (configure with -DMEMBENCH_MPI=ON)")
        reason = slurm_cluster.pmix_unavailable_reason() or uts_unavailable()
        if reason:
            raise unittest.SkipTest(reason)
        cls.slurm = slurm_cluster.LocalSlurm()
        cls.addClassCleanup(cls.slurm.stop)
        cls.slurm.start()

    def launch(self, ranks, per, hooks):
        cmd = (["-n", str(ranks), "-O", "-c", str(os.cpu_count() or 1), "--mpi=pmix",
                "--cpu-bind=none"] + uts_prefix(per)
               + membench_test.command(membench_test.binary_for(hooks)) + ARGS)
        try:
            proc = self.slurm.srun(cmd, timeout=120, base_env=membench_test.make_env(hooks))
        except subprocess.TimeoutExpired:
            self.slurm.run(["scancel", "--full", "--partition", "membench"], timeout=20)
            self.fail("srun %s was still running after 120 s" % " ".join(cmd))
        return proc.returncode, proc.stdout, proc.stderr


if __name__ == "__main__":
    membench_test.main()
