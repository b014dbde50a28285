# ctest: LABELS mpi threads
"""Cluster verdicts under mpirun (MPI builds only), each rank a node (--mpi-per-rank): failed
nodes out of the statistics, peers compared only with 4 healthy nodes, a too-fast node never
blamed on a peer, the worst kernel named; and hostnames (long, multibyte, comma, not UTF-8)
that keep the text, CSV and JSON valid. MEMBENCH_TEST_RATE_SCALE (membench-hooked) makes a
rank slow or fast by a factor far beyond the rate noise of ranks sharing a small machine."""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402
from cluster_case import MpiTestCase, mpi_env, shortfall  # noqa: E402
import smbios_fixture  # noqa: E402
from node_fixture import quiet_node  # noqa: E402

# Small cache-resident arrays and many repetitions: the best rates of ranks that share two
# CPUs stay within about 10% of each other; the tolerance (40%) and factors are far beyond.
ARGS = ["--mpi-per-rank", "-t", "1", "--size", "500000", "-n", "20", "--tolerance", "40"]
BIND = ["--bind-to", "core:overload-allowed"]
# Every rank reports these rates (MEMBENCH_TEST_RATES), so that the peer statistics see no
# noise from ranks that share two CPUs; RATE_SCALE then makes one rank slow or fast.
EVEN = {"MEMBENCH_TEST_RATES": "*:copy=50000,scale=50000,add=50000,triad=50000"}

# Runs argv[3:] in a new UTS namespace of its own, named by the hex name of this world rank
# (OMPI_COMM_WORLD_RANK). It unshares first and never names the machine's own namespace.
SETHOST = r"""
import ctypes, os, sys
CLONE_NEWUTS = 0x04000000
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(CLONE_NEWUTS) != 0:
    sys.exit(77)
names = sys.argv[1].split(",")
name = bytes.fromhex(names[int(os.environ.get("OMPI_COMM_WORLD_RANK", "0")) % len(names)])
if libc.sethostname(name, len(name)) != 0:
    sys.exit(77)
os.execv(sys.argv[2], sys.argv[2:])
"""


def can_unshare_uts():
    try:
        return subprocess.run(["unshare", "-u", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class MpiVerdictTest(MpiTestCase):

    def mpirun(self, np, args, env=None, contexts=None):
        """mpirun -np NP membench ARGS; contexts: (np, [prefix...]) app contexts instead."""
        binary = membench_test.binary_for(env)
        cmd = ["mpirun"] + BIND
        for i, (n, prefix) in enumerate(contexts or [(np, [])]):
            cmd += (([":"] if i else []) + ["-np", str(n)] + prefix
                    + membench_test.command(binary) + list(args))
        return subprocess.run(cmd, env=mpi_env(env), capture_output=True, text=True,
                              timeout=240)

    def json_run(self, np, args, env=None, contexts=None):
        proc = self.mpirun(np, ARGS + ["--format", "json"] + list(args), env, contexts)
        try:
            return proc, json.loads(proc.stdout)
        except ValueError:
            self.fail("no cluster JSON: rc %d\n%s\n%s" % (proc.returncode, proc.stdout,
                                                          proc.stderr))

    def test_slow_node_fails_naming_its_worst_kernel(self):
        """Copy -50% and Scale -80% on rank 2: it FAILs naming Scale, not the first kernel."""
        proc, doc = self.json_run(5, [], {**EVEN,
                                          "MEMBENCH_TEST_RATE_SCALE": "2:copy=0.5,scale=0.2"})
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertTrue(doc["cluster"]["peer_compared"])
        self.assertEqual(doc["cluster"]["healthy_nodes"], 5)
        by_rank = {n["rank"]: n for n in doc["nodes"]}
        slow = by_rank[2]
        self.assertEqual(slow["verdict"], "FAIL")
        self.assertIn("Scale", slow["slow_kernels"])
        self.assertEqual(shortfall(slow), "slow: Scale -80.0% vs median")
        for rank in (0, 1, 3, 4):
            self.assertEqual(by_rank[rank]["verdict"], "PASS", by_rank[rank])
        self.assertEqual(doc["cluster"]["summary"], "FAIL (1 of 5 nodes failed)")

    def test_slow_node_names_its_configuration(self):
        """Every node's SMBIOS shows three empty channels (a fixture, on a quiet /proc and
        /sys): each passed its own run, which judged nothing, so only the node slower than its
        peers names them, as what its run would have named had it fallen short."""
        with tempfile.TemporaryDirectory() as tmp:
            smbios_fixture.write_entries(smbios_fixture.fixture_path("genoa-1s-9of12ch"), tmp)
            env = {**EVEN, "MEMBENCH_TEST_RATE_SCALE": "2:triad=0.5",
                   "MEMBENCH_TEST_DMI_ENTRIES": os.path.join(tmp, "entries"),
                   "MEMBENCH_TEST_CPUINFO": os.path.join(tmp, "cpuinfo"), **quiet_node(tmp)}
            proc, doc = self.json_run(5, [], env)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        by_rank = {n["rank"]: n for n in doc["nodes"]}
        self.assertEqual(by_rank[2]["reason"],
                         "slow: Triad -50.0% vs median; likely: socket 0 channels F, J, L empty")
        for rank in (0, 1, 3, 4):
            self.assertEqual(by_rank[rank]["verdict"], "PASS", by_rank[rank])
            self.assertNotIn("likely", by_rank[rank].get("reason") or "", by_rank[rank])
            report = by_rank[rank]["report"]
            self.assertEqual(report["diagnosis"], [])
            self.assertEqual([c["cause"] for c in report["diagnosis_if_short"]],
                             ["empty_channel"])

    def test_too_fast_node_is_an_outlier_and_nobody_fails(self):
        proc, doc = self.json_run(5, [], {**EVEN,
                                          "MEMBENCH_TEST_RATE_SCALE": "3:triad=2.5,add=2.5"})
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        by_rank = {n["rank"]: n for n in doc["nodes"]}
        fast = by_rank[3]
        self.assertTrue(fast["outlier"])
        self.assertFalse(fast["slow"])
        self.assertEqual(fast["verdict"], "PASS")
        self.assertIn("Triad", fast["fast_kernels"])
        self.assertIn("fast outlier", fast["reason"])
        for node in doc["nodes"]:
            self.assertEqual(node["verdict"], "PASS", node)
        self.assertTrue(doc["cluster"]["passed"])

    def test_two_nodes_blame_nobody(self):
        """Of two nodes either could be the anomaly: rates are not judged, and it says so."""
        proc = self.mpirun(2, ARGS, {"MEMBENCH_TEST_RATE_SCALE": "1:triad=2.5,copy=2.5"})
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        out = proc.stdout
        self.assertIn("Rates not judged: peer comparison needs 4 healthy nodes (2 here)", out)
        self.assertRegex(out, r"(?m)^\S+\s+0\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+OK\b")
        self.assertRegex(out, r"(?m)^\S+\s+1\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+OK\b")
        self.assertNotIn("slow", out)
        self.assertNotIn("outlier:", out)
        self.assertIn("Verdict: PASS: every node validated; rates not judged", out)

    def test_two_nodes_judged_against_expect(self):
        proc, doc = self.json_run(2, ["--expect", "triad=999999999,copy=1"],
                                  {"MEMBENCH_TEST_RATE_SCALE": "1:triad=2.5"})
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertFalse(doc["cluster"]["peer_compared"])
        self.assertTrue(doc["cluster"]["rates_checked"])
        self.assertIn("against --reference/--expect only", doc["cluster"]["judged"])
        for node in doc["nodes"]:
            self.assertEqual(node["verdict"], "FAIL")
            self.assertRegex(shortfall(node), r"^Triad -\d+\.\d% vs expected$")
        self.assertEqual(doc["cluster"]["summary"], "FAIL (2 of 2 nodes failed)")
        self.assertEqual(doc["cluster"]["healthy_nodes"], 0)
        self.assertEqual(doc["cluster"]["stats"], {})

    def test_failed_node_is_out_of_the_statistics(self):
        """Rank 4 fails validation (and reports Triad 50x): the statistics are the others'."""
        env = {**EVEN, "MEMBENCH_TEST_RATE_SCALE": "4:triad=50"}
        corrupt = ["env", "MEMBENCH_TEST_CORRUPT=1"]
        proc, doc = self.json_run(5, [], env, contexts=[(4, []), (1, corrupt)])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        by_rank = {n["rank"]: n for n in doc["nodes"]}
        bad = by_rank[4]
        self.assertEqual(bad["verdict"], "FAIL")
        self.assertEqual(shortfall(bad), "validation failed")
        self.assertEqual(doc["cluster"]["healthy_nodes"], 4)
        triad = doc["cluster"]["stats"]["Triad"]
        healthy = sorted(by_rank[r]["best_rate_mbps"]["Triad"] for r in range(4))
        self.assertAlmostEqual(triad["max"], healthy[-1], delta=0.01)
        self.assertAlmostEqual(triad["median"], (healthy[1] + healthy[2]) / 2, delta=0.01)
        self.assertGreater(bad["best_rate_mbps"]["Triad"], triad["max"])
        for rank in range(4):
            self.assertNotEqual(by_rank[rank]["verdict"], "FAIL", by_rank[rank])

    def test_every_node_failed_leaves_no_statistics(self):
        proc = self.mpirun(2, ARGS, {"MEMBENCH_TEST_CORRUPT": "1"})
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(proc.stdout.count("FAIL validation failed"), 2, proc.stdout)
        self.assertRegex(proc.stdout, r"(?m)^median\s+-\s+-\s+-\s+-$")
        self.assertIn("Verdict: FAIL (2 of 2 nodes failed)", proc.stdout)

    def test_launcher_binding_is_said(self):
        """--bind-to core leaves each rank one core of the machine: header and rows say so."""
        membench_test.skip_unless_cpus(self, 2, " to restrict a rank to fewer")
        proc = self.mpirun(2, ARGS)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stdout, r"Note: node \S+ \(rank 0\) measured 1 of \d+ cores "
                                      r"\(CPUs \d+\): .*mpirun --bind-to none or srun "
                                      r"--cpu-bind=none")
        self.assertRegex(proc.stdout, r"(?m)^\S+\s+1\s.*OK measured 1 of \d+ cores$")

    def test_hostnames_keep_text_csv_and_json_valid(self):
        """Each rank in its own UTS namespace: 64-character names differing at the end, a
        multibyte name, a comma and quote, and bytes that are not UTF-8."""
        if not can_unshare_uts():
            self.skipTest("cannot create a UTS namespace here (needs root or user namespaces)")
        names = [b"compute-node-with-a-very-long-name-in-a-big-cluster-rack-17-xA",
                 b"compute-node-with-a-very-long-name-in-a-big-cluster-rack-17-xB",
                 "nœud-ノード-é".encode(), b'cn,7 "x"', b"cn\xff-bad"]
        want = [n.decode("utf-8", "backslashreplace").replace("\\xff", "\\xFF")
                for n in names]
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(SETHOST)
        self.addCleanup(os.unlink, f.name)
        hexes = ",".join(n.hex() for n in names)
        prefix = [sys.executable, f.name, hexes]
        outs = {}
        for fmt in ("text", "csv", "json"):
            proc = self.mpirun(5, ARGS + ["--format", fmt], contexts=[(5, prefix)])
            self.assertIn(proc.returncode, (0, 1), proc.stdout + proc.stderr)
            outs[fmt] = proc.stdout
        lines = outs["text"].splitlines()
        rows = {}
        for rank, name in enumerate(want):
            row = [ln for ln in lines if ln.startswith(name + " ")]
            self.assertEqual(len(row), 1, "%r not whole in\n%s" % (name, outs["text"]))
            rows[rank] = row[0]
        # the Rank column starts at the same character on every row
        columns = {row.index(" %5d " % rank, len(want[rank])) for rank, row in rows.items()}
        self.assertEqual(len(columns), 1, outs["text"])
        records = list(csv.reader(io.StringIO(outs["csv"])))
        self.assertEqual(records[0][:4], ["hostname", "rank", "kernel", "best_rate_mbps"])
        self.assertEqual({r[0] for r in records[1:]}, set(want))
        self.assertTrue(all(len(r) == len(records[0]) for r in records))
        doc = json.loads(outs["json"])
        self.assertEqual(sorted(n["hostname"] for n in doc["nodes"]), sorted(want))
        for node in doc["nodes"]:
            self.assertIsNotNone(node["report"])
            self.assertEqual(node["report"]["system"]["hostname"], node["hostname"])


class HostnameTest(MembenchTestCase):
    """Without MPI: a hostname that is not UTF-8 keeps the system object in JSON."""

    def test_non_utf8_hostname_keeps_system(self):
        if not can_unshare_uts():
            self.skipTest("cannot create a UTS namespace here (needs root or user namespaces)")
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(SETHOST)
        self.addCleanup(os.unlink, f.name)
        name = b"cn\xff\xc3-x"
        env = membench_test.make_env()
        proc = subprocess.run([sys.executable, f.name, name.hex()]
                              + membench_test.command(membench_test.BIN)
                              + ["-t", "1", "--size", "500000", "-n", "3",
                               "--format", "json"],
                              env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        doc = json.loads(proc.stdout)
        self.assertEqual(doc["system"]["hostname"], "cn\\xFF\\xC3-x")
        self.assertIn("cpu_model", doc["system"])

    def test_bind_list_is_one_csv_field(self):
        rc, out, err = membench_test.run(["-t", "2", "--bind", "0,1", "--size", "500000",
                                          "-n", "3", "--format", "csv"])
        if rc == 2 and "bind" in err:
            self.skipTest("this machine cannot bind to CPUs 0 and 1: " + err.strip())
        self.assertEqual(rc, 0, err)
        records = list(csv.reader(io.StringIO(out)))
        header = records[0]
        self.assertTrue(all(len(r) == len(header) for r in records[1:]), out)
        self.assertEqual(records[1][header.index("bind")], "0,1")


if __name__ == "__main__":
    membench_test.main()
