# ctest: LABELS mpi slurm
"""Issue 14's cluster checks under a real Slurm (MPI builds only): srun --mpi=pmix on the
one-node Slurm of tests/lib/slurm_cluster.py (root, slurm-wlm and munge; skipped without). A
stopped rank ends the whole srun job by its deadline and srun exits with the verdict's status, as mpirun
does; mixed options or a mixed environment across tasks exit 2 before measuring; emulated nodes (MEMBENCH_TEST_HOSTNAMES)
give one row each, a slow node FAILs naming its kernel while a too-fast one blames nobody;
waiting tasks leave the CPU. The same checks under mpirun: test_mpi_protocol.py and
test_mpi_verdict.py.

Every srun is `-O -c CPUS --cpu-bind=none`: --overcommit lets more tasks than CPUs share this
small machine, and with it -c is the allocation of the node, so every task may use all of its
CPUs (with -O alone Slurm allocates, and confines every task to, one CPU)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402
from cluster_case import CPU_SAMPLER, shortfall  # noqa: E402

import slurm_cluster  # noqa: E402

GRACE_S = 5  # MEMBENCH_TEST_CLUSTER_GRACE: the product waits 30 s (CLUSTER_GRACE_S)
SMALL = ["-t", "1", "-s", "2000000", "-n", "3"]
# As in test_mpi_verdict.py: small arrays, many repetitions, a tolerance and factors far
# beyond the noise of ranks that share two CPUs.
VERDICT_ARGS = ["-t", "1", "-s", "500000", "-n", "20", "--tolerance", "40"]



class SrunClusterTest(MembenchTestCase):
    """One local Slurm for the class; every test runs one or more srun --mpi=pmix steps."""

    @classmethod
    def setUpClass(cls):
        if os.environ.get("MEMBENCH_MPI_BUILD") != "1":
            raise unittest.SkipTest("not an MPI build (configure with -DMEMBENCH_MPI=ON)")
        reason = slurm_cluster.pmix_unavailable_reason()
        if reason:
            raise unittest.SkipTest(reason)
        cls.slurm = slurm_cluster.LocalSlurm()
        cls.addClassCleanup(cls.slurm.stop)
        cls.slurm.start()

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="membench-srun-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def srun(self, ntasks, args, hooks=None, timeout=90):
        """srun -n NTASKS --mpi=pmix ARGS (MEMBENCH in ARGS is the binary for hooks);
        returns (rc, stdout, stderr, seconds). A step still running at timeout fails."""
        binary = membench_test.binary_for(hooks)
        cmd = ["-n", str(ntasks), "-O", "-c", str(os.cpu_count() or 1), "--mpi=pmix",
               "--cpu-bind=none"] + [w for a in args for w in (
                   membench_test.command(binary) if a == "MEMBENCH" else [a])]
        started = time.monotonic()
        try:
            proc = self.slurm.srun(cmd, timeout=timeout, base_env=membench_test.make_env(hooks))
        except subprocess.TimeoutExpired:
            self.slurm.run(["scancel", "--full", "--partition", "membench"], timeout=20)
            self.fail("srun %s was still running after %d s" % (" ".join(cmd), timeout))
        return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started

    def multi_prog(self, lines):
        """A --multi-prog configuration file of lines (task ranks, then the command)."""
        path = os.path.join(self.dir, "multi.conf")
        with open(path, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        return path

    def assert_job_ended(self):
        """No job of this Slurm is left running (the stopped task too was ended)."""
        deadline = time.monotonic() + 15
        while True:
            jobs = self.slurm.run(["squeue", "-h", "-o", "%i %T"], timeout=20).stdout.strip()
            if not jobs or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        self.assertEqual(jobs, "", "a job outlived srun")

    def membench_lines(self, err):
        return [line for line in err.splitlines() if line.startswith("membench: ")]

    def test_stopped_rank_ends_the_srun_job(self):
        """Rank 1 stops itself instead of reporting: rank 0 writes the table with a FAIL row
        naming its host by --time-limit + the grace, and its MPI_Abort ends the whole step;
        srun exits with the verdict's status (1), as mpirun does."""
        out = os.path.join(self.dir, "table.txt")
        rc, stdout, err, seconds = self.srun(
            3, ["MEMBENCH", "--time-limit", "3", "--tolerance", "90", "-o", out] + SMALL,
            {"MEMBENCH_TEST_HOSTNAMES": "node-a,node-b,node-c", "MEMBENCH_TEST_STOP_RANK": "1",
             "MEMBENCH_TEST_CLUSTER_GRACE": str(GRACE_S)},
            timeout=60)
        sys.stderr.write("\nsrun exit status (rank 0 aborts with 1): %d after %.1f s\n"
                         % (rc, seconds))
        self.assertEqual(rc, 1, err)
        self.assertLess(seconds, 3 + GRACE_S + 12, "the job outlived its deadline")
        with open(out) as f:
            table = f.read()
        self.assertRegex(table, r"(?m)^node-b\s+1\s.*FAIL \(no report within %d s\)"
                         % (3 + GRACE_S))
        self.assertRegex(table, r"(?m)^node-a\s+0\s+[\d.]+")
        self.assertRegex(table, r"(?m)^node-c\s+2\s+[\d.]+")
        self.assertIn("Verdict: FAIL", table)
        self.assertIn("membench: no report from node-b (rank 1) within %d s" % (3 + GRACE_S), err)
        self.assert_job_ended()

    def test_stopped_rank_and_errored_node_exit_with_the_error(self):
        """A stopped node and a node whose run errored (exit 3: its data size is limited
        there only, so its arrays cannot be mapped): srun exits 3, the status rank 0 gives
        MPI_Abort, not the 137 of the tasks Slurm kills. (A bad OMP_NUM_THREADS on one node
        only is refused before measuring: test_mpi_env.py.)"""
        # 20M elements: 3 arrays of 153 MiB in one private mapping, beyond a 300 MB data limit
        # (RLIMIT_DATA: the MPI library's shared memory does not count, its heap is ~30 MB).
        args = ["--time-limit", "3", "--tolerance", "90", "-s", "20000000", "-n", "3", "-t", "1"]
        hooks = {"MEMBENCH_TEST_HOSTNAMES": "node-a,node-b,node-c",
                 "MEMBENCH_TEST_STOP_RANK": "1", "MEMBENCH_TEST_CLUSTER_GRACE": str(GRACE_S)}
        binary = membench_test.launcher(membench_test.binary_for(hooks))
        limited = os.path.join(self.dir, "limited.sh")
        with open(limited, "w") as f:
            f.write('#!/bin/sh\nulimit -d 300000 && exec "$@"\n')
        os.chmod(limited, 0o755)
        conf = self.multi_prog(["0-1 %s %s" % (binary, " ".join(args)),
                                "2 %s %s %s" % (limited, binary, " ".join(args))])
        rc, stdout, err, seconds = self.srun(3, ["--multi-prog", conf], hooks, timeout=60)
        sys.stderr.write("\nsrun exit status (rank 0 aborts with 3): %d after %.1f s\n"
                         % (rc, seconds))
        self.assertEqual(rc, 3, stdout + err)
        self.assertLess(seconds, 3 + GRACE_S + 12, "the job outlived its deadline")
        self.assertRegex(stdout, r"(?m)^node-b\s+1\s.*FAIL \(no report within %d s\)"
                         % (3 + GRACE_S))
        self.assertRegex(stdout, r"(?m)^node-c\s+2\s.*ERROR \(--pages default: mmap of .*"
                                 r"Cannot allocate memory")
        self.assertIn("the job ends here (MPI_Abort) with exit status 3", err)
        self.assert_job_ended()

    def test_mixed_options_exit_2_before_measuring(self):
        """--multi-prog gives task 1 another --size: every task exits 2, one line from rank 0
        names the rank and the option, nothing is measured or written."""
        out = os.path.join(self.dir, "never.txt")
        base = membench_test.command(membench_test.BIN) + ["-t", "1", "-n", "3", "-o", out]
        conf = self.multi_prog(["0 %s -s 2000000" % " ".join(base),
                                "1 %s -s 3000000" % " ".join(base)])
        rc, stdout, err, _ = self.srun(2, ["--multi-prog", conf])
        self.assertEqual(rc, 2, err)
        lines = self.membench_lines(err)
        self.assertEqual(len(lines), 1, err)
        self.assertIn("rank 1 was given --size 3000000 but rank 0 --size 2000000", lines[0])
        self.assertIn("give every rank the same options", lines[0])
        self.assertFalse(os.path.exists(out), "a report was written")
        self.assertNotIn("Cluster:", stdout)
        self.assertNotIn("Verdict", stdout)

    def test_mixed_environment_exit_2_before_measuring(self):
        """--multi-prog launches task 1 with another OMP_NUM_THREADS: every task exits 2, one
        line from rank 0 names the rank, the variable and both values; nothing is written."""
        out = os.path.join(self.dir, "never.txt")
        base = membench_test.command(membench_test.BIN) + ["--mpi-per-rank", "-s", "2000000",
                                                          "-n", "3", "-o", out]
        conf = self.multi_prog(["0 env OMP_NUM_THREADS=1 %s" % " ".join(base),
                                "1 env OMP_NUM_THREADS=2 %s" % " ".join(base)])
        rc, stdout, err, _ = self.srun(2, ["--multi-prog", conf])
        self.assertEqual(rc, 2, err)
        lines = self.membench_lines(err)
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"rank 1 \(.*\) was launched with OMP_NUM_THREADS=2 but rank 0 "
                                   r"with OMP_NUM_THREADS=1: launch every rank with the same "
                                   r"environment")
        self.assertFalse(os.path.exists(out), "a report was written")
        self.assertNotIn("Cluster:", stdout)

    def test_emulated_nodes_one_row_each(self):
        """Three names, no --mpi-per-rank: three nodes, each named and measured."""
        rc, stdout, err, _ = self.srun(3, ["MEMBENCH", "--format", "json"] + VERDICT_ARGS,
                                       {"MEMBENCH_TEST_HOSTNAMES": "n1,n2,n3"})
        self.assertIn(rc, (0, 1), err)
        doc = json.loads(stdout)
        self.assertEqual(doc["cluster"]["nodes"], 3)
        self.assertEqual([(n["hostname"], n["rank"]) for n in doc["nodes"]],
                         [("n1", 0), ("n2", 1), ("n3", 2)])
        self.assertEqual([n["report"]["system"]["hostname"] for n in doc["nodes"]],
                         ["n1", "n2", "n3"])
        for node in doc["nodes"]:
            self.assertGreater(node["best_rate_mbps"]["Triad"], 0, node)

    def test_slow_node_fails_fast_node_is_not_blamed(self):
        """Five emulated nodes, every one reporting the same rates (MEMBENCH_TEST_RATES, so
        the shared CPUs' noise cannot flag a peer): n3's Scale at 0.2 FAILs naming Scale; n5's
        Triad and Add at 2.5 make it a fast outlier that passes, and no peer FAILs for it."""
        hooks = {"MEMBENCH_TEST_HOSTNAMES": "n1,n2,n3,n4,n5",
                 "MEMBENCH_TEST_RATES": "*:copy=50000,scale=50000,add=50000,triad=50000",
                 "MEMBENCH_TEST_RATE_SCALE": "2:scale=0.2;4:triad=2.5,add=2.5"}
        rc, stdout, err, _ = self.srun(5, ["MEMBENCH", "--format", "json"] + VERDICT_ARGS, hooks)
        try:
            doc = json.loads(stdout)
        except ValueError:
            self.fail("no cluster JSON: rc %d\n%s\n%s" % (rc, stdout, err))
        by_name = {n["hostname"]: n for n in doc["nodes"]}
        self.assertEqual(rc, 1, stdout + err)
        self.assertEqual(sorted(by_name), ["n1", "n2", "n3", "n4", "n5"])
        self.assertTrue(doc["cluster"]["peer_compared"])
        slow = by_name["n3"]
        self.assertEqual(slow["verdict"], "FAIL")
        self.assertEqual(shortfall(slow), "slow: Scale -80.0% vs median")
        fast = by_name["n5"]
        self.assertTrue(fast["outlier"])
        self.assertFalse(fast["slow"])
        self.assertIn("Triad", fast["fast_kernels"])
        self.assertIn("fast outlier", fast["reason"])
        for host in ("n1", "n2", "n4", "n5"):
            self.assertEqual(by_name[host]["verdict"], "PASS", by_name[host])
        self.assertEqual(doc["cluster"]["summary"], "FAIL (1 of 5 nodes failed)")

    def test_waiting_task_leaves_the_cpu(self):
        """Two tasks on the one node: task 1 waits while task 0 measures, without polling."""
        sampler = os.path.join(self.dir, "sampler.py")
        with open(sampler, "w") as f:
            f.write(CPU_SAMPLER)
        rc, _, err, _ = self.srun(2, [sys.executable, sampler, self.dir, "MEMBENCH", "--triad",
                                      "-t", "1", "--size", "8000000", "-n", "150"])
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.dir, "task1")) as f:
            samples = [tuple(map(float, line.split())) for line in f]
        self.assertGreater(len(samples), 10, "the leader's run was too short to judge")
        # the second half of the wait: after MPI_Init, while task 0 measures
        (t0, c0), (t1, c1) = samples[len(samples) // 2], samples[-2]
        self.assertGreater(t1 - t0, 0.4)
        self.assertLess((c1 - c0) / (t1 - t0), 0.1,
                        "the waiting task used %.0f%% of a CPU" % (100 * (c1 - c0) / (t1 - t0)))


if __name__ == "__main__":
    membench_test.main()
