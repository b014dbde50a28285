# ctest: LABELS mpi
"""The cluster protocol under mpirun (MPI builds only): a hung node cannot hang the job, waiting
ranks leave the CPU to the node being measured, every rank must be given the same options,
and a node's error reaches its row. Several nodes are emulated on one machine with
MEMBENCH_TEST_HOSTNAMES (membench-hooked groups ranks into nodes by these names)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
import cluster_case  # noqa: E402
from cluster_case import CPU_SAMPLER, MpiTestCase  # noqa: E402

SMALL = ["-t", "1", "--size", "2000000", "-n", "3"]
GRACE_S = 5  # MEMBENCH_TEST_CLUSTER_GRACE: the product waits 30 s (CLUSTER_GRACE_S)



class MpiProtocolTest(MpiTestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="membench-mpi-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def mpirun(self, apps, env_extra=None, timeout=60):
        """mpirun with one or more (np, argv) apps (Open MPI's MPMD "A : B" form). Returns
        (rc, stdout, stderr, seconds); a job still running after timeout is killed and fails
        the test."""
        env_extra = dict(env_extra or {})
        binary = membench_test.binary_for(env_extra)
        env = cluster_case.mpi_env(env_extra)
        cmd = ["mpirun", "--bind-to", "none"]
        for i, (np, argv) in enumerate(apps):
            if i:
                cmd.append(":")
            cmd += ["-np", str(np)] + [w for a in argv for w in (
                membench_test.command(binary) if a == "MEMBENCH" else [a])]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()  # mpirun then ends its ranks, stopped ones too
            try:
                proc.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
            self.fail("the job was still running after %d s: %s" % (timeout, " ".join(cmd)))
        return proc.returncode, out, err, time.monotonic() - started

    def membench_lines(self, err):
        return [line for line in err.splitlines() if line.startswith("membench: ")]

    def test_stopped_rank_ends_the_job_by_the_deadline(self):
        """A node that never reports gets a FAIL row with its host; the others are judged,
        the table is written, and the job ends within --time-limit + the grace."""
        out = os.path.join(self.dir, "table.txt")
        rc, stdout, err, seconds = self.mpirun(
            [(3, ["MEMBENCH", "--time-limit", "3", "--tolerance", "90", "-o", out] + SMALL)],
            {"MEMBENCH_TEST_HOSTNAMES": "node-a,node-b,node-c", "MEMBENCH_TEST_STOP_RANK": "1",
             "MEMBENCH_TEST_CLUSTER_GRACE": str(GRACE_S)},
            timeout=90)
        self.assertEqual(rc, 1, err)
        self.assertLess(seconds, 3 + GRACE_S + 12, "the job outlived its deadline")
        with open(out) as f:
            table = f.read()
        self.assertRegex(table, r"(?m)^node-b\s+1\s.*FAIL \(no report within %d s\)" % (3 + GRACE_S))
        self.assertRegex(table, r"(?m)^node-a\s+0\s+[\d.]+")
        self.assertRegex(table, r"(?m)^node-c\s+2\s+[\d.]+")
        self.assertIn("Verdict: FAIL", table)
        self.assertIn("membench: no report from node-b (rank 1) within %d s" % (3 + GRACE_S), err)

    def test_waiting_rank_leaves_the_cpu(self):
        """The rank that shares the leader's node waits without polling the CPU."""
        sampler = os.path.join(self.dir, "sampler.py")
        with open(sampler, "w") as f:
            f.write(CPU_SAMPLER)
        rc, _, err, _ = self.mpirun([(2, [sys.executable, sampler, self.dir, "MEMBENCH",
                                          "--triad", "-t", "1", "--size", "8000000", "-n",
                                          "150"])])
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.dir, "rank1")) as f:
            samples = [tuple(map(float, line.split())) for line in f]
        self.assertGreater(len(samples), 10, "the leader's run was too short to judge")
        # the second half of the wait: after MPI_Init, while rank 0 measures
        (t0, c0), (t1, c1) = samples[len(samples) // 2], samples[-2]
        self.assertGreater(t1 - t0, 0.4)
        self.assertLess((c1 - c0) / (t1 - t0), 0.1,
                        "the waiting rank used %.0f%% of a CPU" % (100 * (c1 - c0) / (t1 - t0)))

    def test_mixed_options_exit_2_before_measuring(self):
        cases = [(["-s", "3000000"], "--size 3000000"), (["-n", "4"], "--ntimes 4"),
                 (["-t", "2"], "--threads 2"), (["--type", "float"], "--type float"),
                 (["--pages", "4k"], "--pages 4k"), (["--expect", "triad=1000"], "--expect"),
                 (["--tolerance", "9"], "--tolerance 9"), (["--mpi-per-rank"], "--mpi-per-rank")]
        base = ["-t", "1", "-s", "2000000", "-n", "3"]
        for extra, named in cases:
            with self.subTest(option=extra[0]):
                out = os.path.join(self.dir, "never.txt")
                given = dict(zip(base[::2], base[1::2]))
                given.update(dict(zip(extra[::2], extra[1::2] or [None])))
                other = [x for k, v in given.items() for x in ([k, v] if v else [k])]
                rc, stdout, err, _ = self.mpirun([(1, ["MEMBENCH", "-o", out] + base),
                                                  (1, ["MEMBENCH", "-o", out] + other)])
                self.assertEqual(rc, 2, err)
                lines = self.membench_lines(err)
                self.assertEqual(len(lines), 1, err)
                self.assertIn("rank 1 was given %s" % named, lines[0])
                self.assertIn("give every rank the same options", lines[0])
                self.assertFalse(os.path.exists(out), "a report was written")
                self.assertNotIn("Cluster:", stdout)

    def test_refused_combinations(self):
        """A sweep and --save-reference are refused before measuring; an unwritable -o fails
        before measuring with the status it has without MPI (2: a path to fix)."""
        ref = os.path.join(self.dir, "ref.json")
        base = ["-n", "3"]
        for args, words, status in [
                (["-t", "1,2", "-s", "2000000"], "--threads with 2 values is a sweep", 2),
                (["-t", "1", "-s", "2000000,3000000"], "--size with 2 values is a sweep", 2),
                (["-t", "1", "-s", "2000000", "--pages", "default,4k"], "--pages with 2", 2),
                (["-t", "1", "-s", "2000000", "--save-reference", ref], "--save-reference", 2),
                (["-t", "1", "-s", "2000000", "-o", os.path.join(self.dir, "no", "x.txt")],
                 "cannot write", 2)]:
            with self.subTest(args=args):
                rc, stdout, err, _ = self.mpirun([(2, ["MEMBENCH"] + base + args)])
                self.assertEqual(rc, status, err)
                lines = self.membench_lines(err)
                self.assertEqual(len(lines), 1, err)
                self.assertIn(words, lines[0])
                self.assertNotIn("Cluster:", stdout)
                self.assertFalse(os.path.exists(ref))

    def test_errored_node_row_keeps_host_and_error(self):
        """One node fails to start its run (its data size is limited there only, so its
        arrays cannot be mapped: exit 3): its row names its host and its error line, in the
        text table and in nodes[].error. (A bad OMP_NUM_THREADS there only is refused before
        measuring: test_mpi_env.py.)"""
        hooks = {"MEMBENCH_TEST_HOSTNAMES": "good-node,bad-node"}
        # 20M elements: 3 arrays of 153 MiB in one private mapping, beyond a 300 MB data limit
        # (RLIMIT_DATA: the MPI library's shared memory does not count, its heap is ~30 MB).
        args = ["-t", "1", "--size", "20000000", "-n", "3", "--tolerance", "90"]
        limited = 'ulimit -d 300000 && exec "$@"'
        apps = [(1, ["MEMBENCH"] + args), (1, ["sh", "-c", limited, "sh", "MEMBENCH"] + args)]
        rc, stdout, err, _ = self.mpirun(apps, hooks)
        self.assertEqual(rc, 3, err)
        self.assertRegex(stdout, r"(?m)^bad-node\s+1\s.*ERROR \(--pages default: mmap of .*"
                                 r"Cannot allocate memory")
        self.assertRegex(stdout, r"(?m)^good-node\s+0\s+[\d.]+")
        rc, stdout, err, _ = self.mpirun([(n, a + ["--format", "json"]) for n, a in apps], hooks)
        self.assertEqual(rc, 3, err)
        bad = json.loads(stdout)["nodes"][1]
        self.assertEqual(bad["hostname"], "bad-node")
        self.assertEqual(bad["verdict"], "ERROR")
        self.assertEqual(bad["exit_status"], 3)
        self.assertIn("Cannot allocate memory", bad["error"])

    def test_emulated_nodes_are_grouped_by_name(self):
        """Three names give three nodes without --mpi-per-rank; ranks with one name share one
        node, whose first rank measures."""
        rc, stdout, err, _ = self.mpirun([(3, ["MEMBENCH", "--format", "json", "--tolerance",
                                               "90"] + SMALL)],
                                         {"MEMBENCH_TEST_HOSTNAMES": "n1,n2,n3"})
        self.assertIn(rc, (0, 1), err)
        nodes = json.loads(stdout)["nodes"]
        self.assertEqual([(n["hostname"], n["rank"]) for n in nodes],
                         [("n1", 0), ("n2", 1), ("n3", 2)])
        self.assertEqual([n["report"]["system"]["hostname"] for n in nodes], ["n1", "n2", "n3"])
        rc, stdout, err, _ = self.mpirun([(3, ["MEMBENCH", "--format", "json"] + SMALL)],
                                         {"MEMBENCH_TEST_HOSTNAMES": "n1,n1,n2"})
        self.assertIn(rc, (0, 1), err)
        self.assertEqual([(n["hostname"], n["rank"]) for n in json.loads(stdout)["nodes"]],
                         [("n1", 0), ("n2", 2)])


if __name__ == "__main__":
    membench_test.main()
