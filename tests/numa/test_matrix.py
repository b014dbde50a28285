# ctest: LABELS races
"""--matrix numa: a STREAM run for every (cpu node, memory node) pair, threads one per core of
the row's node, arrays bound to the column's node before first touch; planned on fake machines
(--dry-run), measured here (one node: 1x1)."""

import csv
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, run, describe, topology  # noqa: E402

SMALL = ["--size", "2000000", "-n", "3"]
MATRIX = ["--matrix", "numa"] + SMALL


def xml(name):
    return {"HWLOC_XMLFILE": topology(name)}


def node_cpus(doc):
    """OS node number -> the CPUs nearest it (a node with cores: its own), from JSON memory."""
    out = {}
    for n in doc["memory"]["nodes"]:
        cpus = set()
        for part in n["nearest_cpus"].split(","):
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
        out[n["os_index"]] = cpus
    return out


class MatrixOptionsTest(MembenchTestCase):

    def test_unknown_value_names_the_valid_ones(self):
        self.assert_error(["--matrix", "socket"], 2, ["--matrix", "socket", "numa"])

    def test_options_it_cannot_honour(self):
        for extra, word in ((["-t", "2"], "--threads"), (["--bind", "compact"], "--bind"),
                            (["--bind", "0,1"], "--bind"), (["--per-domain", "numa"],
                                                            "--per-domain"),
                            (["--acceptance"], "--acceptance"), (["--expect", "triad=1"],
                                                                 "--expect"),
                            (["--save-reference", "/tmp/x.json"], "--save-reference"),
                            (["--size", "1000000,2000000"], "--size"),
                            (["--pages", "4k,thp"], "--pages"),
                            (["--stores", "nt,normal"], "--stores")):
            with self.subTest(extra=extra):
                self.assert_error(["--matrix", "numa"] + extra, 2, ["--matrix numa", word])

    def test_another_machines_topology_needs_dry_run(self):
        self.assert_error(MATRIX, 2, ["--matrix numa", "HWLOC_XMLFILE", "--dry-run"],
                          env_extra=xml("xeon-e5-2670-2s.xml"))


class PlannedMatrixTest(MembenchTestCase):
    """The cells on the committed topologies, without running anything."""

    def check_plan(self, name, nodes, cores_per_node):
        doc = self.run_json(MATRIX + ["--dry-run"], env_extra=xml(name))
        m = doc["matrix"]
        self.assertEqual(m["domain"], "numa")
        self.assertEqual(m["nodes"], nodes)
        self.assertIsNone(m["note"])
        self.assertEqual(m["kernels"], ["Triad"])  # Triad without a kernel option
        self.assertEqual(len(m["cells"]), nodes * nodes)
        self.assertEqual(len(doc["runs"]), nodes * nodes)
        pairs = [(c["cpu_node"], c["mem_node"]) for c in m["cells"]]
        self.assertEqual(pairs, [(i, j) for i in range(nodes) for j in range(nodes)])
        sizes = set()
        for c in m["cells"]:
            r = doc["runs"][c["run"]]
            self.assertEqual(r["config"]["cpu_node"], c["cpu_node"])
            self.assertEqual(r["config"]["mem_node"], c["mem_node"])
            self.assertEqual(c["threads"], cores_per_node)
            self.assertEqual(r["config"]["threads"], cores_per_node)
            self.assertEqual({p["numa"] for p in r["placement"]}, {c["cpu_node"]})
            self.assertEqual(len({p["core"] for p in r["placement"]}), cores_per_node,
                             "one thread per core")
            self.assertEqual(c["rates"], {"Triad": None})
            self.assertIsNone(c["locality"])
            sizes.add(r["config"]["array_elements"])
        self.assertEqual(sizes, {2000000})
        return doc

    def test_two_sockets(self):
        self.check_plan("xeon-e5-2670-2s.xml", 2, 8)

    def test_epyc_nps4(self):
        self.check_plan("epyc-7763-2s-nps4.xml", 8, 16)

    def test_sapphire_rapids_snc4(self):
        self.check_plan("xeon-8480-2s-snc4.xml", 8, 14)

    def test_stream_rule_size_for_the_threads_of_a_row(self):
        doc = self.run_json(["--matrix", "numa", "--dry-run"], env_extra=xml("xeon-e5-2670-2s.xml"))
        r = doc["runs"][0]["config"]
        self.assertEqual(r["size_rule"].split(" ")[0], "4xLLC")
        self.assertGreaterEqual(r["array_bytes"], 4 * r["llc_bytes_used"])
        self.assertEqual(len({x["config"]["array_elements"] for x in doc["runs"]}), 1)

    def test_memory_only_nodes_are_columns_never_rows(self):
        """KNL SNC4 hybrid: 4 DRAM nodes with cores (P#0-3), 4 MCDRAM nodes without (P#4-7,
        hwloc's L#1,3,5,7 = P#7,4,5,6): 4 rows x 8 columns, OS numbers, OS order."""
        doc = self.run_json(MATRIX + ["--dry-run"],
                            env_extra=xml("64intel64-fakeKNL-SNC4-hybrid.xml"))
        m = doc["matrix"]
        self.assertEqual(m["rows"], [0, 1, 2, 3])
        self.assertEqual(m["columns"], list(range(8)))
        self.assertEqual(m["nodes"], 8)
        self.assertEqual(len(m["cells"]), 32)
        self.assertEqual([(c["cpu_node"], c["mem_node"]) for c in m["cells"]],
                         [(i, j) for i in range(4) for j in range(8)])
        cpus = node_cpus(doc)
        pus = set()
        for c in m["cells"]:
            r = doc["runs"][c["run"]]
            self.assertEqual({p["numa"] for p in r["placement"]}, {c["cpu_node"]})
            row_pus = tuple(p["pu"] for p in r["placement"])
            self.assertTrue(set(row_pus) <= cpus[c["cpu_node"]], (c, cpus))
            pus.add(row_pus)
        self.assertEqual(len(pus), 4, "each row on its own node's cores, none repeated")
        # the firmware's figures: each DRAM node and its cluster's MCDRAM node (P#7 is node
        # 0's) from the row's cores; hwloc knows no other pair
        fw = {(c["cpu_node"], c["mem_node"]): c["firmware_mbps"] for c in m["cells"]}
        near = {0: 7, 1: 4, 2: 5, 3: 6}
        for (cpu, mem), v in fw.items():
            want = 22500 if mem == cpu else 90000 if mem == near[cpu] else None
            self.assertEqual(v, want, (cpu, mem))
        for c in m["cells"]:
            self.assertEqual(c["ratio_to_firmware"], {"Triad": None})  # nothing measured
            self.assertEqual(doc["runs"][c["run"]]["config"]["firmware_mbps"],
                             c["firmware_mbps"])

    def test_labels_are_the_os_numbers(self):
        """memorysidecaches.xml: hwloc's NUMANode L#1 is P#2 (and L#2 is P#1)."""
        env = xml("memorysidecaches.xml")
        doc = self.run_json(MATRIX + ["--dry-run"], env_extra=env)
        cpus = node_cpus(doc)
        self.assertIn(1, cpus[1])  # OS node 1 holds CPU 1 (hwloc's L#1, OS node 2, CPU 2)
        for c in doc["matrix"]["cells"]:
            r = doc["runs"][c["run"]]
            self.assertTrue({p["pu"] for p in r["placement"]} <= cpus[c["cpu_node"]], c)
            self.assertEqual({p["numa"] for p in r["placement"]}, {c["cpu_node"]})
        out, _ = self.run_ok(MATRIX + ["--dry-run"], env_extra=env)
        self.assertIn("Cell cpu 1 mem 2: 10 threads on PUs 1,5,9,", out)
        self.assertIn("no HMAT figure for any cell", out)
        self.assertEqual({c["firmware_mbps"] for c in doc["matrix"]["cells"]}, {None})
        # a run without --matrix names its threads' node the same way
        doc = self.run_json(["--dry-run", "-s", "1MiB", "--bind", "1,2"], env_extra=env)
        self.assertEqual([p["numa"] for p in doc["runs"][0]["placement"]], [1, 2])

    def test_firmware_table_in_text(self):
        out, _ = self.run_ok(MATRIX + ["--dry-run"], env_extra=xml("8intel64-4n2t-memattrs.xml"))
        self.assertIn("Firmware (ACPI HMAT, read by hwloc) bandwidth, MB/s", out)
        self.assertRegex(out, r"\n      2 +- +20 +- +-\n")

    def test_text_plan(self):
        out, _ = self.run_ok(MATRIX + ["--dry-run"], env_extra=xml("xeon-e5-2670-2s.xml"))
        self.assertIn("NUMA bandwidth matrix (--matrix numa): 4 cells", out)
        self.assertIn("Cell cpu 1 mem 0: 8 threads on PUs", out)


class MeasuredMatrixTest(MembenchTestCase):
    """On this machine."""

    def setUp(self):
        super().setUp()
        membench_test.skip_under_emulation(self, membench_test.NO_MBIND)

    def test_json_cells_rates_and_locality(self):
        doc = self.run_json(MATRIX)
        nodes = doc["system"]["numa_nodes"]
        m = doc["matrix"]
        self.assertEqual(m["nodes"], nodes)
        self.assertEqual(len(m["cells"]), nodes * nodes)
        for c in m["cells"]:
            self.assertGreater(c["rates"]["Triad"], 0)
            self.assertTrue(c["validated"])
            loc = c["locality"]
            self.assertEqual(loc, doc["runs"][c["run"]]["locality"])
            if loc["verified"]:
                self.assertGreaterEqual(loc["local_fraction"], 0.99, c)
        if nodes == 1:
            self.assertIn("1x1", m["note"])

    def test_text_table_and_one_node_note(self):
        out, _ = self.run_ok(MATRIX + ["--copy", "--triad"])
        self.assertIn("Copy best rate, MB/s", out)
        self.assertIn("Triad best rate, MB/s", out)
        self.assertIn("cpu\\mem", out)
        self.assertNotIn("Summary: best rate per run", out)
        doc = self.run_json(MATRIX)
        if doc["system"]["numa_nodes"] == 1:
            self.assertIn("NOTE: this machine has one NUMA node: the matrix is 1x1", out)
            self.assertRegex(out, r"\n      0 +\d+\.\d\n")

    def test_quiet_line_per_cell(self):
        out, _ = self.run_ok(MATRIX + ["-q"])
        lines = out.splitlines()
        self.assertTrue(lines)
        for line in lines:
            self.assertRegex(line, r"^MB/s Triad=[0-9.]+ threads=\d+ bind=compact:node(\d+) "
                                   r"pages=\S+ elements=2000000 type=double cpu_node=\1 "
                                   r"mem_node=\d+ validated=yes( below_stream_rule=yes)?$")

    def test_csv_names_the_nodes(self):
        out, _ = self.run_ok(MATRIX + ["--format", "csv"])
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertTrue(rows)
        for r in rows:
            self.assertNotEqual(r["cpu_node"], "")
            self.assertNotEqual(r["mem_node"], "")
            self.assertEqual(r["kernel"], "Triad")

    def test_pages_off_the_memory_node_are_marked(self):
        env = {"MEMBENCH_TEST_PAGES_NODE": "7"}
        doc = self.run_json(MATRIX, env_extra=env)
        c = doc["matrix"]["cells"][0]
        if not c["locality"]["verified"]:
            self.skipTest("move_pages(2) is not available here")
        self.assertEqual(c["locality"]["local_fraction"], 0.0)
        warns = doc["runs"][0]["warnings"]
        self.assertTrue(any("where the cell binds them" in w for w in warns), warns)
        out, _ = self.run_ok(MATRIX, env_extra=env)
        self.assertRegex(out, r"\d+\.\d\*")
        self.assertIn("* fewer than 99% of the cell's sampled pages on its memory node", out)

    def test_failed_validation_fails_the_command(self):
        args = MATRIX
        rc, out, err = run(args, {"MEMBENCH_TEST_CORRUPT": "1"})
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        self.assertIn("FAILED validation", out)


if __name__ == "__main__":
    membench_test.main()
