"""Sizing and topology facts on fake machines, via --dry-run (nothing is measured)."""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import run  # noqa: E402

MiB = 1024 * 1024

# Two sockets, one 20 MiB L3 each, 8 cores per socket, no SMT (seed 001's node).
SEED = {"HWLOC_SYNTHETIC": "pack:2 l3:1(size=20MiB) core:8 pu:1"}
# Two sockets of eight 32 MiB CCXs with 8 SMT-2 cores each (AMD EPYC-like).
CCX = {"HWLOC_SYNTHETIC": "pack:2 l3:8(size=32MiB) core:8 pu:2"}
# One small socket with a 1 MiB L3: the 1 M element floor applies.
TINY = {"HWLOC_SYNTHETIC": "pack:1 l3:1(size=1MiB) core:2 pu:1"}

SEED_LLC = 2 * 20 * MiB


class TopologyTestCase(membench_test.MembenchTestCase):
    """Helpers for dry-run plans."""

    def plan(self, args, env):
        """The parsed JSON plan of membench --dry-run args on a fake machine."""
        doc = self.run_json(list(args) + ["--dry-run"], env_extra=env)
        self.assertIs(doc.get("dry_run"), True)
        self.assertGreaterEqual(len(doc["runs"]), 1)
        for r in doc["runs"]:
            self.assertNotIn("results", r)
        return doc

    def elements(self, args, env=None):
        """array_elements of the single run planned for args."""
        doc = self.plan(args, SEED if env is None else env)
        self.assertEqual(len(doc["runs"]), 1)
        return doc["runs"][0]["config"]["array_elements"]


class SeedNodeTest(TopologyTestCase):
    """pack:2 l3:1(size=20MiB) core:8 pu:1."""

    def test_default_plan(self):
        """STREAM rule: 4 x 40 MiB / 8 bytes; one thread per core without OMP_NUM_THREADS."""
        doc = self.plan([], dict(SEED, OMP_NUM_THREADS=None))
        s = doc["system"]
        self.assertEqual(s["packages"], 2)
        self.assertEqual(s["cores"], 16)
        self.assertEqual(s["pus"], 16)
        self.assertEqual(s["llc_count"], 2)
        self.assertEqual(s["llc_bytes_total"], 41943040)
        self.assertIs(s["topology_is_this_system"], False)
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["array_elements"], 20971520)
        self.assertEqual(cfg["array_bytes"], 20971520 * 8)
        self.assertEqual(cfg["threads"], 16)
        self.assertEqual(cfg["type"], "double")
        self.assertEqual(cfg["ntimes"], 10)
        self.assertEqual(cfg["kernels"], ["Copy", "Scale", "Add", "Triad"])

    def test_float_doubles_elements(self):
        """--type float: same bytes, twice the elements."""
        doc = self.plan(["--type", "float"], SEED)
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["type"], "float")
        self.assertEqual(cfg["array_elements"], 2 * 20971520)
        self.assertEqual(cfg["array_bytes"], 8 * 20971520)

    def test_fractional_llc_multiple(self):
        """--size 0.25xLLC = 0.25 * 41943040 / 8."""
        self.assertEqual(self.elements(["--size", "0.25xLLC"]), 1310720)

    def test_decimal_megabytes(self):
        """--size 512MB is decimal: 512e6 / 8."""
        self.assertEqual(self.elements(["--size", "512MB"]), 64000000)

    def test_binary_mebibytes(self):
        """--size 512MiB is binary."""
        self.assertEqual(self.elements(["--size", "512MiB"]), 67108864)

    def test_fractional_gibibytes(self):
        """--size 1.5GiB = 1.5 * 2^30 / 8."""
        self.assertEqual(self.elements(["--size", "1.5GiB"]), 201326592)

    def test_plain_element_count(self):
        """A plain number is an element count, even below the 1 M floor."""
        self.assertEqual(self.elements(["--size", "12345"]), 12345)

    def test_threads_list(self):
        """-t 1,2,4: three runs in order."""
        doc = self.plan(["-t", "1,2,4"], SEED)
        self.assertEqual([r["config"]["threads"] for r in doc["runs"]], [1, 2, 4])
        for r in doc["runs"]:
            self.assertEqual(r["config"]["threads_from"], "--threads")

    def test_size_threads_product(self):
        """-s 1xLLC,2xLLC -t 1,2: every combination once; xLLC counts the LLCs the
        threads use (scatter puts 1 thread on one socket's L3, 2 threads on both)."""
        doc = self.plan(["-s", "1xLLC,2xLLC", "-t", "1,2"], SEED)
        combos = sorted((r["config"]["array_elements"], r["config"]["threads"])
                        for r in doc["runs"])
        one = SEED_LLC // 8
        self.assertEqual(combos, [(one // 2, 1), (one, 1), (one, 2), (2 * one, 2)])

    def test_repeated_size_option_sweeps(self):
        """-s repeated is the same as a comma list."""
        doc = self.plan(["-s", "1xLLC", "-s", "2xLLC"], SEED)
        self.assertEqual([r["config"]["array_elements"] for r in doc["runs"]],
                         [SEED_LLC // 8, 2 * SEED_LLC // 8])

    def test_omp_num_threads(self):
        """OMP_NUM_THREADS=3 sets the thread count and says so."""
        doc = self.plan([], dict(SEED, OMP_NUM_THREADS="3"))
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["threads"], 3)
        self.assertEqual(cfg["threads_from"], "OMP_NUM_THREADS")

    def test_threads_option_beats_environment(self):
        """--threads overrides OMP_NUM_THREADS."""
        doc = self.plan(["-t", "5"], dict(SEED, OMP_NUM_THREADS="3"))
        self.assertEqual(doc["runs"][0]["config"]["threads"], 5)

    def test_text_dry_run(self):
        """The text plan says it is a dry run and shows the STREAM array size line."""
        args = ["--dry-run"]
        rc, out, err = run(args, env_extra=SEED)
        self.assertEqual(rc, 0, membench_test.describe(args, rc, out, err))
        self.assertIn("Dry run", out)
        self.assertRegex(out, r"(?m)^Array size = 20971520 \(elements\)")
        self.assertNotIn("Function    Best Rate", out)


class OtherMachinesTest(TopologyTestCase):
    """Other synthetic and XML topologies."""

    def test_multi_ccx(self):
        """16 L3s of 32 MiB: 512 MiB total, 128 cores, 256 PUs."""
        doc = self.plan([], dict(CCX, OMP_NUM_THREADS=None))
        s = doc["system"]
        self.assertEqual(s["packages"], 2)
        self.assertEqual(s["llc_count"], 16)
        self.assertEqual(s["llc_bytes_total"], 512 * MiB)
        self.assertEqual(s["cores"], 128)
        self.assertEqual(s["pus"], 256)
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["array_elements"], 4 * 512 * MiB // 8)
        self.assertEqual(cfg["threads"], 128)  # physical cores, not PUs

    def test_tiny_llc_floor(self):
        """4 x 1 MiB is below 1 M doubles: the floor of 1000000 elements wins."""
        doc = self.plan([], TINY)
        self.assertEqual(doc["system"]["llc_bytes_total"], MiB)
        self.assertEqual(doc["runs"][0]["config"]["array_elements"], 1000000)

    def test_xml_topology(self):
        """Committed XML (2 packages, 2 NUMA, 4 x 16 MiB L3, 16 cores, 32 PUs)."""
        path = membench_test.topology("two-socket-ccx.xml")
        self.assertTrue(os.path.isfile(path), path)
        env = {"HWLOC_XMLFILE": path, "HWLOC_THISSYSTEM": None, "OMP_NUM_THREADS": None}
        doc = self.plan([], env)
        s = doc["system"]
        self.assertEqual(s["packages"], 2)
        self.assertEqual(s["numa_nodes"], 2)
        self.assertEqual(s["llc_count"], 4)
        self.assertEqual(s["llc_bytes_total"], 64 * MiB)
        self.assertEqual(s["cores"], 16)
        self.assertEqual(s["pus"], 32)
        self.assertIs(s["topology_is_this_system"], False)
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["array_elements"], 4 * 64 * MiB // 8)
        self.assertEqual(cfg["threads"], 16)


    def test_xml_of_a_newer_hwloc(self):
        """hwloc 3 writes XML version 3, which hwloc 2 cannot read: bad input (exit 2) that
        names the version and the lstopo flag that writes a readable file, not a vague
        resource error. The same file marked version 2 loads."""
        with open(membench_test.topology("two-socket-ccx.xml"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn('<topology version="2.0">', text)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "v3.xml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace('<topology version="2.0">', '<topology version="3.0">'))
            env = {"HWLOC_XMLFILE": path, "HWLOC_THISSYSTEM": None, "OMP_NUM_THREADS": None}
            rc, out, err = run(["--dry-run"], env)
        self.assertEqual(rc, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertRegex(err, r"^membench: HWLOC_XMLFILE=.*v3\.xml is hwloc XML version 3, "
                              r"which this hwloc \(2\.\d+\.\d+\) cannot read")
        self.assertIn("--export-xml-flags v2", err)

class RecordedMachinesTest(TopologyTestCase):
    """The hwloc XML of every machine we have run on (tests/fixtures/machines/*/hwloc.xml),
    replayed: the facts recorded beside it (hwloc-facts.json) and the STREAM-rule size."""

    def test_recorded_machines(self):
        root = os.path.join(membench_test.TESTS_DIR, "fixtures", "machines")
        machines = sorted(m for m in os.listdir(root)
                          if os.path.isfile(os.path.join(root, m, "hwloc.xml")))
        self.assertTrue(machines, "no recorded hwloc.xml under " + root)
        for machine in machines:
            with self.subTest(machine=machine):
                with open(os.path.join(root, machine, "hwloc-facts.json")) as f:
                    facts = json.load(f)
                env = {"HWLOC_XMLFILE": os.path.join(root, machine, "hwloc.xml"),
                       "HWLOC_THISSYSTEM": None, "OMP_NUM_THREADS": None}
                doc = self.plan([], env)
                s = doc["system"]
                for key in ("packages", "numa_nodes", "llc_count", "llc_bytes_total", "cores",
                            "pus"):
                    self.assertEqual(s[key], facts[key], key)
                cfg = doc["runs"][0]["config"]
                self.assertEqual(cfg["array_elements"],
                                 max(1000000, 4 * facts["llc_bytes_total"] // 8))
                self.assertEqual(cfg["threads"], facts["cores"])


if __name__ == "__main__":
    membench_test.main()
