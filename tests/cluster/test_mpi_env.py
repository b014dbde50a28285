# ctest: LABELS mpi threads
"""A cluster run compares each measuring rank's effective profile, not only its options: ranks
launched with a different OMP_NUM_THREADS, HUGETLB_MORECORE or HWLOC_XMLFILE (or any variable
of the table in src/cluster/cluster_env.c) are refused with exit 2 on every rank before
anything is measured, naming the rank, the variable and both values. What may differ: a
thread count that follows each node's cores, and ranks that only wait."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
import cluster_case  # noqa: E402
from cluster_case import MpiTestCase  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL = ["--mpi-per-rank", "-s", "2000000", "-n", "3", "--tolerance", "90"]
#: Each rank writes its own exit status into $1/rc.RANK, then exits with it.
RANK_STATUS = 'd=$1; shift; "$@"; rc=$?; echo $rc > "$d/rc.$OMPI_COMM_WORLD_RANK"; exit $rc'
XML_A = membench_test.topology("two-socket-ccx.xml")
XML_B = membench_test.topology("xeon-e5-2670-2s.xml")


class MpiEnvironmentTest(MpiTestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="membench-mpi-env-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def mpirun(self, apps, env_extra=None, timeout=90):
        """mpirun, one app context per (env, argv[, wrapper]): env is a dict for `-x NAME=value`
        (a None value leaves the variable out of that rank's environment), wrapper a command
        that runs membench (taskset). Every rank runs
        membench-hooked announcing its points (MEMBENCH_TEST_ANNOUNCE) and records its exit
        status: mpirun then lets every rank finish (it would kill the others when one exits
        non-zero first) and exits 0 itself. Returns (stdout, stderr, {rank: status})."""
        env = cluster_case.mpi_env({"MEMBENCH_TEST_ANNOUNCE": "1",
                                    "OMPI_MCA_orte_abort_on_non_zero_status": "0",
                                    **(env_extra or {})})
        names = {k for app in apps for k in app[0]}
        for k in names:  # set per rank only, with -x
            env.pop(k, None)
        binary = membench_test.binary_for({"MEMBENCH_TEST_ANNOUNCE": "1"})
        cmd = ["mpirun", "--bind-to", "none"]
        for i, (app_env, argv, *wrapper) in enumerate(apps):
            if i:
                cmd.append(":")
            cmd += ["-np", "1"]
            for k, v in app_env.items():
                if v is not None:
                    cmd += ["-x", "%s=%s" % (k, v)]
            cmd += ["sh", "-c", RANK_STATUS, "sh", self.dir] + (wrapper[0] if wrapper else [])
            cmd += membench_test.command(binary) + argv
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            self.fail("the job was still running after %d s: %s" % (timeout, " ".join(cmd)))
        status = {}
        for name in os.listdir(self.dir):
            if name.startswith("rc."):
                with open(os.path.join(self.dir, name)) as f:
                    status[int(name[3:])] = int(f.read())
                os.unlink(os.path.join(self.dir, name))
        return out, err, status

    def assert_refused(self, apps, variable, mine, rank0, env_extra=None):
        report = os.path.join(self.dir, "never.txt")
        apps = [(e, ["-o", report] + a) for e, a in apps]
        out, err, status = self.mpirun(apps, env_extra)
        self.assertEqual(status, {0: 2, 1: 2}, err)
        lines = [line for line in err.splitlines() if line.startswith("membench: ")]
        self.assertEqual(len(lines), 1, err)
        self.assertIn("rank 1 ", lines[0])
        self.assertIn(variable, lines[0])
        self.assertIn(mine, lines[0])
        self.assertIn(rank0, lines[0])
        self.assertIn("same environment", lines[0])
        self.assertNotIn("membench-test: at run 1", err, "a rank measured")
        self.assertFalse(os.path.exists(report), "a report was written")
        return lines[0]

    def test_different_omp_num_threads_is_refused(self):
        line = self.assert_refused([({"OMP_NUM_THREADS": "1"}, SMALL),
                                    ({"OMP_NUM_THREADS": "2"}, SMALL)],
                                   "OMP_NUM_THREADS", "OMP_NUM_THREADS=2", "OMP_NUM_THREADS=1")
        self.assertRegex(line, r"rank 1 .*OMP_NUM_THREADS=2.* rank 0 .*OMP_NUM_THREADS=1")

    def test_omp_num_threads_is_compared_with_threads_given(self):
        """--threads wins over OMP_NUM_THREADS for the STREAM runs, but libgomp still reads it
        (nested regions, the thread pool): the environment must still be the same."""
        args = SMALL + ["-t", "1"]
        self.assert_refused([({"OMP_NUM_THREADS": "1"}, args), ({"OMP_NUM_THREADS": "2"}, args)],
                            "OMP_NUM_THREADS", "OMP_NUM_THREADS=2", "OMP_NUM_THREADS=1")

    def test_hugetlb_morecore_on_one_rank_is_refused(self):
        args = SMALL + ["-t", "1"]
        self.assert_refused([({"HUGETLB_MORECORE": None}, args),
                             ({"HUGETLB_MORECORE": "yes"}, args)],
                            "HUGETLB_MORECORE", "HUGETLB_MORECORE=yes", "HUGETLB_MORECORE unset")

    def test_different_hwloc_xmlfile_is_refused(self):
        args = SMALL + ["-t", "1"]
        self.assert_refused([({"HWLOC_XMLFILE": XML_A}, args), ({"HWLOC_XMLFILE": XML_B}, args)],
                            "HWLOC_XMLFILE", "HWLOC_XMLFILE=" + XML_B, "HWLOC_XMLFILE=" + XML_A)

    def test_gomp_cpu_affinity_on_one_rank_is_refused(self):
        args = SMALL + ["-t", "1"]
        self.assert_refused([({"GOMP_CPU_AFFINITY": None}, args),
                             ({"GOMP_CPU_AFFINITY": "0"}, args)],
                            "GOMP_CPU_AFFINITY", "GOMP_CPU_AFFINITY=0", "GOMP_CPU_AFFINITY unset")

    def test_membench_isa_is_named_as_the_variable(self):
        """MEMBENCH_ISA also sets --isa: the line names the variable, not the option."""
        args = SMALL + ["-t", "1"]
        line = self.assert_refused([({"MEMBENCH_ISA": "sse2"}, args),
                                    ({"MEMBENCH_ISA": None}, args)],
                                   "MEMBENCH_ISA", "MEMBENCH_ISA unset", "MEMBENCH_ISA=sse2")
        self.assertNotIn("--isa", line)

    def test_same_environment_still_runs(self):
        for name, value in [("OMP_NUM_THREADS", "1"), ("HUGETLB_MORECORE", "no"),
                            ("HWLOC_XMLFILE", XML_A)]:
            with self.subTest(variable=name):
                args = SMALL + ([] if name == "OMP_NUM_THREADS" else ["-t", "1"])
                env = {name: value}
                if name != "OMP_NUM_THREADS":
                    env["OMP_NUM_THREADS"] = "1"
                out, err, status = self.mpirun([(env, args), (env, args)])
                self.assertEqual(status, {0: 0, 1: 0}, err)
                self.assertIn("Cluster: 2 nodes", out)
                self.assertIn("membench-test: at run 1", err)
                self.assertNotIn("same environment", err)

    def test_waiting_rank_may_differ(self):
        """Without --mpi-per-rank two ranks on one machine are one node: the second only
        waits, so its environment changes nothing and is not compared."""
        args = ["-s", "2000000", "-n", "3", "-t", "1"]
        out, err, status = self.mpirun([({"OMP_NUM_THREADS": "1"}, args),
                                        ({"OMP_NUM_THREADS": "2"}, args)])
        self.assertEqual(status, {0: 0, 1: 0}, err)
        self.assertIn("Cluster: 1 node", out)

    def test_thread_count_from_the_cores_may_differ(self):
        """Without OMP_NUM_THREADS and --threads each node runs one thread per core: a node
        with fewer cores (here: a rank limited to one CPU) runs fewer threads, and that is what
        the peer comparison then judges, not a refusal."""
        membench_test.skip_unless_cpus(self, 2, " (one rank on one core, one on two)")
        taskset = shutil.which("taskset")
        if not taskset:
            self.skipTest("taskset not installed (util-linux)")
        args = SMALL + ["--format", "json"]
        out, err, status = self.mpirun([({"OMP_NUM_THREADS": None}, args),
                                        ({"OMP_NUM_THREADS": None}, args, [taskset, "-c", "0"])])
        self.assertNotIn("same environment", err)
        self.assertEqual(status, {0: 0, 1: 0}, err)
        nodes = json.loads(out)["nodes"]
        threads = [n["report"]["runs"][0]["config"]["threads"] for n in nodes]
        cores = nodes[0]["report"]["system"]["cores"]
        if cores < 2:
            self.skipTest("this machine has %d core (SMT siblings are not cores)" % cores)
        self.assertEqual(threads, [cores, 1])
        self.assertEqual([n["threads"] for n in nodes], [cores, 1])
        self.assertEqual([n["cpus_restricted"] for n in nodes], [False, True])
        out, err, status = self.mpirun([({"OMP_NUM_THREADS": None}, SMALL),
                                        ({"OMP_NUM_THREADS": None}, SMALL, [taskset, "-c", "0"])])
        self.assertEqual(status, {0: 0, 1: 0}, err)
        self.assertRegex(out, r"(?m)^Note: node \S+ \(rank 1\) ran 1 thread, most nodes %d: "
                              r"without -t and OMP_NUM_THREADS each node runs one thread per core"
                         % cores)
        self.assertNotIn("(rank 0) ran", out)


def variables_read(text):
    """The variables a C file reads: getenv("NAME"), getenv(list[i]) with list's literals,
    and "NAME=" keys matched against envp/environ."""
    names = set(re.findall(r'getenv\("([A-Z][A-Z0-9_]*)"\)', text))
    for array in re.findall(r'getenv\((\w+)\[\w+\]\)', text):
        decl = re.search(r'\b%s\[\]\s*=\s*\{([^}]*)\}' % array, text)
        if decl:
            names.update(re.findall(r'"([A-Z][A-Z0-9_]*)"', decl.group(1)))
    if re.search(r'\b(envp|environ)\b', text):
        names.update(re.findall(r'"([A-Z][A-Z0-9_]*)="', text))
    return names


class VariableTableTest(unittest.TestCase):
    """Every variable membench reads is in the one table of src/cluster/cluster_env.c: compared
    across the ranks, or named there as each rank's own."""

    def test_every_getenv_is_in_the_table(self):
        with open(os.path.join(ROOT, "src", "cluster", "cluster_env.c")) as f:
            table = f.read()
        compared = re.findall(r'\{"([A-Z_]+)", "', table[:table.index("local_variables[] = {")])
        local = re.findall(r'\{"([A-Z_]+)", "', table[table.index("local_variables[] = {"):])
        self.assertIn("OMP_", compared)
        self.assertIn("HUGETLB_", compared)
        read = set()
        for top in ("src", "affinity", "hugepages", "kernels"):
            for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
                for name in files:
                    if name.endswith((".c", ".h")) and name != "cluster_env.c":
                        with open(os.path.join(dirpath, name)) as f:
                            read.update(variables_read(f.read()))
        self.assertIn("OMP_NUM_THREADS", read)
        missing = sorted(v for v in read
                         if not any(v.startswith(p) for p in compared + local))
        self.assertEqual(missing, [], "read with getenv but not in src/cluster/cluster_env.c")


if __name__ == "__main__":
    membench_test.main()
