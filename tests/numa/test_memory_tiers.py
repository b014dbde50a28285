# ctest: LABELS races
"""Every memory of the node: NUMA nodes by their OS numbers, their kind, nearest cores, the
firmware's (HMAT) figures and memory-side caches, grouped in tiers (the header's Memory block,
JSON memory); --matrix tiers, a run per tier from its nearest cores. Planned on the hwloc
project's recorded machines (tests/topologies/README.md names their source), measured here."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, topology  # noqa: E402

GiB = 1024 ** 3
SMALL = ["--size", "2000000", "-n", "3"]
#: KNL in SNC4 hybrid mode: 4 clusters, each a 1 GiB DRAM node with the cores and a 2 GiB
#: MCDRAM node without; a 2 GiB MCDRAM memory-side cache before each DRAM node.
KNL = {"HWLOC_XMLFILE": topology("64intel64-fakeKNL-SNC4-hybrid.xml")}
#: 4 nodes of about 370 GB, each behind a 96 GiB MemCache; hwloc's L#1 is the OS's node 2.
MSC = {"HWLOC_XMLFILE": topology("memorysidecaches.xml")}
#: The issue's QEMU guest (tests/topologies/README.md): node 0 cpu 0, node 1 cpu 1 behind a
#: 64 MiB memory-side cache, node 2 memory-only near node 0; HMAT 20 GiB/s 100 ns local,
#: 40 GiB/s 140 ns from node 0 to node 2. hwloc's L#1 is the OS's node 2.
GUEST = {"HWLOC_XMLFILE": topology("qemu-hmat-3node.xml")}
#: hwloc's own v2 conversion of the KNL: no HMAT, the MCDRAM nodes with an empty cpuset.
KNL_V2 = {"HWLOC_XMLFILE": topology("64intel64-fakeKNL-SNC4-hybrid.v1tov2.xml")}


def nodes_by_os(doc):
    return {n["os_index"]: n for n in doc["memory"]["nodes"]}


class KnlMemoryTest(MembenchTestCase):

    _doc = None

    @property
    def doc(self):
        if KnlMemoryTest._doc is None:
            KnlMemoryTest._doc = self.run_json(["--dry-run"] + SMALL, env_extra=KNL)
        return KnlMemoryTest._doc

    def test_nodes_kinds_and_cores(self):
        nodes = nodes_by_os(self.doc)
        self.assertEqual(sorted(nodes), list(range(8)))
        for os_index in range(4):
            n = nodes[os_index]
            self.assertEqual((n["subtype"], n["has_cpus"], n["bytes"], n["nearest_node"]),
                             ("DRAM", True, GiB, os_index))
            self.assertEqual(n["nearest_from"], "its own cores")
            self.assertEqual(n["has_cpus_source"], "inferred")
        # the XML places MCDRAM P#7 in cluster 0, P#4 in 1, P#5 in 2, P#6 in 3
        for os_index, near in ((4, 1), (5, 2), (6, 3), (7, 0)):
            n = nodes[os_index]
            self.assertEqual((n["subtype"], n["kind"], n["has_cpus"], n["bytes"]),
                             ("MCDRAM", "MCDRAM", False, 2 * GiB))
            self.assertEqual((n["nearest_node"], n["nearest_from"]), (near, "HMAT"))
            self.assertEqual(n["nearest_cpus"], nodes[near]["nearest_cpus"])

    def test_firmware_figures_and_memory_side_caches(self):
        nodes = nodes_by_os(self.doc)
        self.assertIs(self.doc["memory"]["hmat"], True)
        for os_index in range(8):
            fw = nodes[os_index]["firmware"]
            self.assertEqual(fw["bandwidth_mbps"], 22500 if os_index < 4 else 90000)
            self.assertIsNone(fw["latency_ns"], "the XML gives no latency: none invented")
            self.assertEqual(nodes[os_index]["memory_side_cache_bytes"],
                             2 * GiB if os_index < 4 else None)

    def test_tiers(self):
        tiers = [(t["name"], t["kind"], t["nodes"], t["bytes"], t["has_cpus"])
                 for t in self.doc["memory"]["tiers"]]
        self.assertEqual(tiers, [("dram", "DRAM", [0, 1, 2, 3], 4 * GiB, True),
                                 ("mcdram", "MCDRAM", [4, 5, 6, 7], 8 * GiB, False)])

    def test_header_block(self):
        out, _ = self.run_ok(["--dry-run"] + SMALL, env_extra=KNL)
        self.assertIn("Memory nodes: 8 NUMA nodes, 12.0 GiB in all, 2 tiers; the firmware's "
                      "figures (ACPI HMAT, read by hwloc)", out)
        self.assertIn("Tier mcdram (MCDRAM): nodes 4-7, 8.0 GiB", out)
        self.assertRegex(out, r"\n  node 4: 2\.0 GiB, memory only; nearest cores CPUs "
                              r"4-7,20-23,36-39,52-55 \(node 1, from HMAT\); HMAT 90000 MB/s\n")
        self.assertRegex(out, r"\n  node 0: 1\.0 GiB, cores on it \(CPUs [-0-9,]+\); 2\.0 GiB "
                              r"memory-side cache in front; HMAT 22500 MB/s\n")


class TierRunsPlannedTest(MembenchTestCase):

    def test_a_run_per_tier_from_its_nearest_cores(self):
        doc = self.run_json(["--matrix", "tiers", "--dry-run"] + SMALL, env_extra=KNL)
        rows = doc["tiers"]["rows"]
        self.assertEqual([(r["tier"], r["nodes"], r["threads"]) for r in rows],
                         [("dram", [0, 1, 2, 3], 16), ("mcdram", [4, 5, 6, 7], 16)])
        self.assertEqual(doc["tiers"]["kernels"], ["Triad"])
        self.assertEqual(doc["tiers"]["not_measured"], [])
        for row in rows:
            self.assertEqual(row["firmware_mbps"], 4 * (22500 if row["tier"] == "dram" else 90000))
            self.assertIsNone(row["firmware_ratio"])  # nothing measured
            run = doc["runs"][row["run"]]
            self.assertEqual(run["config"]["bind"], "compact:tier=" + row["tier"])
            self.assertEqual(len({p["core"] for p in run["placement"]}), 16, "one per core")

    def test_thread_nodes_in_the_text(self):
        out, _ = self.run_ok(["--matrix", "tiers", "--dry-run"] + SMALL, env_extra=KNL)
        # cluster 0's cores (threads 0-3) stream to MCDRAM node 7, cluster 1's to node 4
        self.assertIn("Tier mcdram: 16 threads, each thread's arrays bound to its nearest "
                      "node of the tier: nodes 4-7 (thread:node 0:7 1:7 2:7 3:7 4:4 5:4", out)

    def test_another_machine_needs_dry_run(self):
        self.assert_error(["--matrix", "tiers"] + SMALL, 2,
                          ["--matrix tiers", "HWLOC_XMLFILE", "--dry-run"], env_extra=KNL)

    def test_options_it_cannot_honour(self):
        for extra, word in ((["-t", "2"], "--threads"), (["--acceptance"], "--acceptance")):
            with self.subTest(extra=extra):
                self.assert_error(["--matrix", "tiers"] + extra, 2, ["--matrix tiers", word])


class MemorySideCacheTest(MembenchTestCase):

    def test_caches_and_os_numbers(self):
        doc = self.run_json(["--dry-run"] + SMALL, env_extra=MSC)
        nodes = nodes_by_os(doc)
        self.assertEqual(sorted(nodes), [0, 1, 2, 3])
        self.assertEqual(nodes[2]["hwloc_logical_index"], 1)
        self.assertEqual(nodes[1]["hwloc_logical_index"], 2)
        for n in nodes.values():
            self.assertEqual(n["memory_side_cache_bytes"], 96 * GiB)
            self.assertEqual(n["memory_side_cache_levels"], 1)
            self.assertEqual(n["firmware"]["bandwidth_mbps"], None)
        self.assertIs(doc["memory"]["hmat"], False)


class GuestTopologyTest(MembenchTestCase):
    """The issue's guest, as hwloc recorded it inside (the guest itself: tests/vm)."""

    def test_nodes_tiers_and_firmware(self):
        doc = self.run_json(["--dry-run"] + SMALL, env_extra=GUEST)
        nodes = nodes_by_os(doc)
        self.assertEqual({o: n["hwloc_logical_index"] for o, n in nodes.items()},
                         {0: 0, 1: 2, 2: 1})
        self.assertEqual({o: n["has_cpus"] for o, n in nodes.items()},
                         {0: True, 1: True, 2: False})
        self.assertEqual((nodes[2]["nearest_node"], nodes[2]["nearest_from"],
                          nodes[2]["nearest_cpus"]), (0, "HMAT", "0"))
        self.assertEqual((nodes[2]["firmware"]["bandwidth_mbps"],
                          nodes[2]["firmware"]["latency_ns"]), (40960, 140))
        self.assertEqual((nodes[0]["firmware"]["bandwidth_mbps"],
                          nodes[0]["firmware"]["latency_ns"]), (20480, 100))
        self.assertEqual([n["memory_side_cache_bytes"] for o, n in sorted(nodes.items())],
                         [None, 64 * 1024 ** 2, None])
        self.assertEqual([(t["name"], t["nodes"]) for t in doc["memory"]["tiers"]],
                         [("local", [0, 1]), ("memory-only", [2])])

    def test_tier_runs(self):
        doc = self.run_json(["--matrix", "tiers", "--dry-run"] + SMALL, env_extra=GUEST)
        self.assertEqual([(r["tier"], r["nodes"], r["threads"], r["firmware_mbps"])
                          for r in doc["tiers"]["rows"]],
                         [("local", [0, 1], 2, 2 * 20480), ("memory-only", [2], 1, 40960)])

    def test_empty_cpuset_takes_the_parents_locality(self):
        nodes = nodes_by_os(self.run_json(["--dry-run"] + SMALL, env_extra=KNL_V2))
        for os_index, near in ((4, 1), (5, 2), (6, 3), (7, 0)):
            self.assertEqual((nodes[os_index]["nearest_node"], nodes[os_index]["nearest_from"]),
                             (near, "hwloc locality"))
            self.assertIs(nodes[os_index]["firmware"]["bandwidth_mbps"], None)


class ThisMachineTest(MembenchTestCase):
    """Whatever this machine has: every node listed, nothing invented, the runs say what they
    measured."""

    def test_memory_matches_sysfs(self):
        doc = self.run_json(SMALL)
        root = "/sys/devices/system/node"
        online = sorted(int(d[4:]) for d in os.listdir(root)
                        if d.startswith("node") and d[4:].isdigit()) if os.path.isdir(root) \
            else [0]
        nodes = nodes_by_os(doc)
        self.assertEqual(sorted(nodes), online)
        for os_index, n in nodes.items():
            path = os.path.join(root, "node%d" % os_index, "cpulist")
            if os.path.exists(path):
                with open(path) as f:
                    self.assertEqual(n["has_cpus"], bool(f.read().strip()))
                self.assertEqual(n["has_cpus_source"], "sysfs")
        measured = doc["memory"]["measured_nodes"]
        self.assertEqual(sorted(measured + doc["memory"]["unmeasured_nodes"]), online)
        self.assertTrue(set(measured) <= {o for o, n in nodes.items() if n["has_cpus"]})

    def test_tier_runs_measured_and_verified(self):
        doc = self.run_json(["--matrix", "tiers"] + SMALL)
        rows = doc["tiers"]["rows"]
        self.assertGreaterEqual(len(rows), 1)
        for row in rows:
            self.assertIs(row["validated"], True)
            self.assertGreater(row["rates"]["Triad"], 0)
            loc = row["locality"]
            if loc["verified"]:
                self.assertEqual(loc["local_fraction"], 1.0, row)


if __name__ == "__main__":
    membench_test.main()
