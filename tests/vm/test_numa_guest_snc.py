# ctest: LABELS vm
# ctest: PROCESSORS 2
"""membench on an emulated 2-socket machine with two NUMA nodes per socket (as sub-NUMA
clustering or AMD's NPS2 make them): 2 packages x 2 cores, one core and one node per OS CPU,
one L3 per package shared by two nodes (QEMU TCG). Structure and placement only."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm_case  # noqa: E402
from vm_case import SMALL, GuestTestCase  # noqa: E402
from vm_harness import Machine  # noqa: E402

JSON = SMALL + " --format json"


class SplitSocketGuest(GuestTestCase):
    """OS CPU i is core i and NUMA node i; CPUs 0-1 are package 0, 2-3 package 1."""

    MACHINE = Machine("4,sockets=2,cores=2,threads=1", ["0", "1", "2", "3"], mem_mb=128)
    COMMANDS = {
        "sysfs": vm_case.SYSFS_FACTS,
        "numactl_hardware": "numactl --hardware",
        "scatter4_numa": "membench -t 4 --bind scatter --per-domain numa " + JSON,
        "compact4_package": "membench -t 4 --bind compact --per-domain package " + JSON,
        "scatter3_numa": "membench -t 3 --bind scatter --per-domain numa " + JSON,
        "list_numa": "membench -t 2 --bind 3,0 --per-domain numa " + JSON,
        "text": "membench -t 4 --bind scatter --per-domain numa " + SMALL,
        "cpunodebind01": "numactl --cpunodebind=0,1 membench -t 2 " + JSON,
        "exit_status": "echo out; echo err >&2; exit 3",
    }

    def placement(self, run, *keys):
        return [tuple(p[k] for k in keys) for p in run["placement"]]

    def domains(self, run, kind):
        self.assertEqual(run["config"]["per_domain"], kind)
        self.assertTrue(all(d["kind"] == kind for d in run["domains"]), run["domains"])
        return sorted((d["index"], d["threads"]) for d in run["domains"])

    def test_guest_topology_is_the_one_asked_for(self):
        facts = self.facts()
        self.assertEqual(facts["cpus"], {0: (0, 0, "0"), 1: (0, 1, "1"), 2: (1, 0, "2"),
                                         3: (1, 1, "3")})
        self.assertEqual(facts["nodes"], {0: "0", 1: "1", 2: "2", 3: "3"})
        self.assertIn(3, facts["caches"], "the guest CPU model reports no L3")
        self.assertEqual(facts["caches"][3][1], "0-1", "one L3 per package, over two nodes")

    def test_numactl_sees_four_nodes(self):
        out = self.result("numactl_hardware").out
        self.assertIn("available: 4 nodes (0-3)", out)
        self.assertIn("node 3 cpus: 3\n", out)

    def test_harness_reports_output_and_exit_status(self):
        res = self.result("exit_status", rc=3)
        self.assertEqual((res.out, res.err), ("out\n", "err\n"))

    def test_hwloc_sees_four_nodes_in_two_packages(self):
        system = self.doc("scatter4_numa")["system"]
        self.assertEqual((system["packages"], system["numa_nodes"], system["cores"],
                          system["pus"]), (2, 4, 4, 4))
        self.assertEqual((system["llc_level"], system["llc_count"], system["llc_bytes_total"]),
                         (3, 2, 2 * self.facts()["caches"][3][0]))

    def test_scatter_deals_packages_then_nodes(self):
        run = self.run_of("scatter4_numa")
        self.assertEqual(self.placement(run, "pu", "package", "numa"),
                         [(0, 0, 0), (2, 1, 2), (1, 0, 1), (3, 1, 3)])
        self.assertEqual(self.domains(run, "numa"), [(0, 1), (1, 1), (2, 1), (3, 1)])
        out = self.result("text").out
        self.assertIn("Per-numa best rates", out)
        self.assertRegex(out, r"(?m)^numa 3 +1 ")

    def test_per_domain_package_spans_two_nodes(self):
        run = self.run_of("compact4_package")
        self.assertEqual(self.placement(run, "pu", "package", "numa"),
                         [(0, 0, 0), (1, 0, 1), (2, 1, 2), (3, 1, 3)])
        self.assertEqual(self.domains(run, "package"), [(0, 2), (1, 2)])

    def test_uneven_threads_leave_a_node_without_a_domain_thread(self):
        run = self.run_of("scatter3_numa")
        self.assertEqual(self.placement(run, "pu", "package", "numa"),
                         [(0, 0, 0), (2, 1, 2), (1, 0, 1)])
        self.assertEqual([(i, t) for i, t in self.domains(run, "numa") if t],
                         [(0, 1), (1, 1), (2, 1)])

    def test_explicit_list_across_sockets(self):
        run = self.run_of("list_numa")
        self.assertEqual(self.placement(run, "pu", "package", "numa"), [(3, 1, 3), (0, 0, 0)])
        self.assertEqual(self.domains(run, "numa"), [(0, 1), (3, 1)])

    def test_numactl_cpunodebind_one_socket(self):
        doc = self.doc("cpunodebind01")
        self.assertEqual((doc["system"]["cpus_usable"], doc["system"]["cpus_restricted"]),
                         ("0-1", True))
        run = self.run_of("cpunodebind01")
        self.assertEqual(self.placement(run, "pu", "package", "numa"), [(0, 0, 0), (1, 0, 1)])
        self.assertEqual(run["config"]["llc_count_used"], 1)


if __name__ == "__main__":
    vm_case.main()
