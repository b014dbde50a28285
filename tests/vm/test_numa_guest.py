# ctest: LABELS vm
# ctest: PROCESSORS 2
"""membench on an emulated 2-socket machine (QEMU TCG): 2 packages x 2 cores x 2 hardware
threads, one NUMA node and one L3 per package. hwloc reads the guest kernel's real sysfs;
membench binds for real. Structure, placement and locality only: rates in an emulator mean
nothing."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm_case  # noqa: E402
from vm_case import SMALL, GuestTestCase  # noqa: E402
from vm_harness import Machine  # noqa: E402

JSON = SMALL + " --format json"


class TwoSocketGuest(GuestTestCase):
    """OS CPUs 0-3 are package 0 / node 0, 4-7 package 1 / node 1; SMT pairs 0-1, 2-3, ..."""

    MACHINE = Machine("8,sockets=2,cores=2,threads=2", ["0-3", "4-7"])
    COMMANDS = {
        "sysfs": vm_case.SYSFS_FACTS,
        "numactl_hardware": "numactl --hardware",
        "numactl_membind": "numactl --membind=1 numactl --show",
        "compact4": "membench -t 4 --bind compact " + JSON,
        "scatter4": "membench -t 4 --bind scatter " + JSON,
        "compact8": "membench -t 8 --bind compact " + JSON,
        "scatter6": "membench -t 6 --bind scatter " + JSON,
        "scatter3_package": "membench -t 3 --bind scatter --per-domain package " + JSON,
        "compact5_numa": "membench -t 5 --bind compact --per-domain numa " + JSON,
        "default_numa": "membench --per-domain numa " + JSON,
        "list": "membench -t 3 --bind 5,0,3 --per-domain package " + JSON,
        "text": "membench -t 4 --bind compact " + SMALL,
        "cpunodebind1": "numactl --cpunodebind=1 membench -t 2 " + JSON,
        "membind_other": "numactl --membind=1 membench --bind compact -t 2 " + JSON,
        "matrix": "membench --matrix numa --copy --triad " + JSON,
        "matrix_text": "membench --matrix numa " + SMALL,
        "latency_matrix": "membench --latency --matrix numa --latency-size 8MiB --format json",
    }

    def placement(self, run, *keys):
        return [tuple(p[k] for k in keys) if len(keys) > 1 else p[keys[0]]
                for p in run["placement"]]

    def domains(self, run, kind):
        self.assertEqual(run["config"]["per_domain"], kind)
        self.assertTrue(all(d["kind"] == kind for d in run["domains"]), run["domains"])
        return sorted((d["index"], d["threads"]) for d in run["domains"])

    def test_guest_topology_is_the_one_asked_for(self):
        # The harness's own check: QEMU and the guest kernel built the machine the
        # expectations below are written for.
        facts = self.facts()
        self.assertEqual(facts["cpus"], {
            0: (0, 0, "0-1"), 1: (0, 0, "0-1"), 2: (0, 1, "2-3"), 3: (0, 1, "2-3"),
            4: (1, 0, "4-5"), 5: (1, 0, "4-5"), 6: (1, 1, "6-7"), 7: (1, 1, "6-7")})
        self.assertEqual(facts["nodes"], {0: "0-3", 1: "4-7"})
        self.assertIn(3, facts["caches"], "the guest CPU model reports no L3")
        self.assertEqual(facts["caches"][3][1], "0-3", "one L3 per package")

    def test_numactl_sees_both_nodes(self):
        out = self.result("numactl_hardware").out
        self.assertIn("available: 2 nodes (0-1)", out)
        self.assertIn("node 0 cpus: 0 1 2 3", out)
        self.assertIn("node 1 cpus: 4 5 6 7", out)
        self.assertRegex(out, r"node 1 size: [1-9]\d* MB")
        self.assertIn("membind: 1", self.result("numactl_membind").out)

    def test_hwloc_sees_packages_nodes_and_llc_summed_over_sockets(self):
        doc = self.doc("compact4")
        system = doc["system"]
        l3_bytes = self.facts()["caches"][3][0]
        self.assertEqual((system["packages"], system["numa_nodes"], system["cores"],
                          system["pus"]), (2, 2, 4, 8))
        self.assertEqual((system["llc_level"], system["llc_count"], system["llc_source"]),
                         (3, 2, "hwloc"))
        self.assertEqual(system["llc_bytes_total"], 2 * l3_bytes)
        self.assertEqual((system["cpus_usable"], system["cpus_restricted"]), ("0-7", False))
        config = doc["runs"][0]["config"]
        self.assertEqual((config["llc_count_used"], config["llc_bytes_used"]),
                         (2, 2 * l3_bytes), "4 threads on both sockets use both L3s")
        out = self.result("text").out
        self.assertIn("2 packages, 2 NUMA nodes, 4 cores, 8 PUs", out)
        self.assertRegex(out, r"Last-level cache: L3, 2 instances, [\d.]+ MiB in total")

    def test_compact_fills_package_0_one_thread_per_core(self):
        run = self.run_of("compact4")
        self.assertEqual(self.placement(run, "pu", "core", "package", "numa"),
                         [(0, 0, 0, 0), (2, 1, 0, 0), (4, 2, 1, 1), (6, 3, 1, 1)])
        self.assertIn("Placement: 4 threads on 4 PUs, 4 cores, 2 packages, 2 NUMA nodes "
                      "(bound and verified)", self.result("text").out)

    def test_scatter_alternates_packages(self):
        run = self.run_of("scatter4")
        self.assertEqual(self.placement(run, "pu", "core", "package", "numa"),
                         [(0, 0, 0, 0), (4, 2, 1, 1), (2, 1, 0, 0), (6, 3, 1, 1)])

    def test_smt_siblings_come_last(self):
        run = self.run_of("compact8")
        self.assertEqual(self.placement(run, "pu"), [0, 2, 4, 6, 1, 3, 5, 7])
        self.assertEqual(self.placement(run, "core"), [0, 1, 2, 3, 0, 1, 2, 3])
        run = self.run_of("scatter6")
        self.assertEqual(self.placement(run, "pu"), [0, 4, 2, 6, 1, 5])
        self.assertEqual(self.placement(run, "package"), [0, 1, 0, 1, 0, 1])

    def test_per_domain_package_uneven_threads(self):
        run = self.run_of("scatter3_package")
        self.assertEqual(self.placement(run, "pu", "package"), [(0, 0), (4, 1), (2, 0)])
        self.assertEqual(self.domains(run, "package"), [(0, 2), (1, 1)])

    def test_per_domain_numa_uneven_threads_with_a_sibling(self):
        run = self.run_of("compact5_numa")
        self.assertEqual(self.placement(run, "pu", "numa"),
                         [(0, 0), (2, 0), (4, 1), (6, 1), (1, 0)])
        self.assertEqual(self.domains(run, "numa"), [(0, 3), (1, 2)])

    def test_default_is_one_compact_thread_per_core_and_one_domain_per_node(self):
        run = self.run_of("default_numa")
        self.assertEqual((run["config"]["threads"], run["config"]["threads_from"],
                          run["config"]["bind"]), (4, "physical cores", "compact"))
        self.assertEqual(self.domains(run, "numa"), [(0, 2), (1, 2)])
        for d in run["domains"]:
            self.assertEqual(set(d["best_rate_mbps"]), {"Copy", "Scale", "Add", "Triad"})

    def test_explicit_pu_list(self):
        run = self.run_of("list")
        self.assertEqual(run["config"]["bind"], "5,0,3")
        self.assertEqual(self.placement(run, "pu", "core", "package", "numa"),
                         [(5, 2, 1, 1), (0, 0, 0, 0), (3, 1, 0, 0)])
        self.assertEqual(self.domains(run, "package"), [(0, 2), (1, 1)])

    def test_numactl_cpunodebind_keeps_threads_on_that_node(self):
        doc = self.doc("cpunodebind1")
        system = doc["system"]
        self.assertEqual((system["cpus_usable"], system["cpus_restricted"],
                          system["machine_pus"]), ("4-7", True, 8))
        run = self.run_of("cpunodebind1")
        self.assertEqual(self.placement(run, "pu", "package", "numa"), [(4, 1, 1), (6, 1, 1)])

    # Locality: `numactl --membind=1` puts the arrays on node 1 while --bind compact -t 2 keeps
    # both threads on node 0; the sampled pages say so and the run warns. Without numactl a
    # bound run is 100% local, wherever its threads are.

    def test_memory_bound_to_the_other_node(self):
        run = self.run_of("membind_other")
        self.assertEqual(self.placement(run, "pu", "numa"), [(0, 0), (2, 0)])
        self.assertEqual((run["config"]["llc_count_used"], run["config"]["llc_bytes_used"]),
                         (1, self.facts()["caches"][3][0]), "both threads share one L3")
        locality = run["locality"]
        self.assertTrue(locality["verified"], locality)
        self.assertGreater(locality["pages_sampled"], 0)
        self.assertEqual(locality["local_fraction"], 0.0, locality)
        self.assertTrue(any("NUMA node" in w and "0.0%" in w for w in run["warnings"]),
                        run["warnings"])

    def test_page_locality_with_binding(self):
        for name in ("compact4", "scatter4", "compact8", "scatter6", "compact5_numa", "list"):
            with self.subTest(run=name):
                locality = self.run_of(name)["locality"]
                self.assertTrue(locality["verified"], locality)
                self.assertGreater(locality["pages_sampled"], 0)
                self.assertEqual(locality["local_fraction"], 1.0, locality)
                self.assertEqual(locality["pages_local"], locality["pages_sampled"])
        self.assertRegex(self.result("text").out,
                         r"(?m)^Memory: 100\.0% of sampled pages on their thread's NUMA node "
                         r"\(\d+ pages\)$")

    # --matrix numa: a run per (cpu node, memory node) pair; every cell's pages on its column.

    def test_bandwidth_matrix_binds_memory_to_each_node(self):
        doc = self.doc("matrix")
        matrix = doc["matrix"]
        self.assertEqual((matrix["domain"], matrix["kernels"]), ("numa", ["Copy", "Triad"]))
        cells = sorted((c["cpu_node"], c["mem_node"]) for c in matrix["cells"])
        self.assertEqual(cells, [(0, 0), (0, 1), (1, 0), (1, 1)])
        for cell in matrix["cells"]:
            with self.subTest(cell=(cell["cpu_node"], cell["mem_node"])):
                self.assertTrue(cell["validated"])
                self.assertEqual(cell["threads"], 2, "one thread per core of the row's node")
                self.assertEqual(set(cell["rates"]), {"Copy", "Triad"})
                self.assertTrue(all(v > 0 for v in cell["rates"].values()), cell["rates"])
                self.assertTrue(cell["locality"]["verified"], cell["locality"])
                self.assertEqual(cell["locality"]["local_fraction"], 1.0, cell["locality"])
                run = doc["runs"][cell["run"]]
                self.assertEqual((run["config"]["cpu_node"], run["config"]["mem_node"]),
                                 (cell["cpu_node"], cell["mem_node"]))
                self.assertEqual({p["numa"] for p in run["placement"]}, {cell["cpu_node"]})
                self.assertEqual(sorted({p["core"] for p in run["placement"]}),
                                 [0, 1] if cell["cpu_node"] == 0 else [2, 3])
        text = self.result("matrix_text").out
        self.assertIn("NUMA bandwidth matrix (--matrix numa): 4 cells", text)
        self.assertRegex(text, r"(?m)^Triad best rate, MB/s")
        self.assertNotIn("*", text.split("Triad best rate")[1], "no cell below 99% local")

    def test_latency_matrix_chases_every_node_pair(self):
        latency = self.doc("latency_matrix")["latency"]
        self.assertTrue(latency["validated"], latency["why"])
        self.assertEqual(latency["mem_node"], 0)
        self.assertEqual(latency["locality"]["local_fraction"], 1.0, latency["locality"])
        pairs = sorted((p["cpu_node"], p["mem_node"], p["cpu"]) for p in latency["matrix"])
        self.assertEqual(pairs, [(0, 0, 0), (0, 1, 0), (1, 0, 4), (1, 1, 4)])
        for pair in latency["matrix"]:
            with self.subTest(pair=(pair["cpu_node"], pair["mem_node"])):
                self.assertGreater(pair["ns"], 0)
                self.assertTrue(pair["locality"]["verified"], pair["locality"])
                self.assertEqual(pair["locality"]["local_fraction"], 1.0, pair["locality"])


if __name__ == "__main__":
    vm_case.main()
