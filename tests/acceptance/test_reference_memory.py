"""A reference records the node's memory inventory (every NUMA node by OS number with its kind,
bytes and tier; the tiers by name), and checking against it fails naming the node when one of
the reference's nodes is missing, of another kind or smaller by more than 1%, and naming the
tier when one of the reference's tiers is missing. An older reference without the inventory is
checked without it, and a note says so (never a silent PASS)."""

import copy
import json
import os
import tempfile
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

RUN = ["--size", "2000000", "--ntimes", "3"]


class ReferenceMemoryTest(membench_test.ReferenceFileCase):

    @classmethod
    def setUpClass(cls):
        cls.saved_dir = tempfile.TemporaryDirectory()
        path = os.path.join(cls.saved_dir.name, "saved.json")
        rc, out, err = membench_test.run(RUN + ["--save-reference", path])
        if rc != 0:
            raise AssertionError(membench_test.describe(RUN, rc, out, err))
        with open(path) as f:
            cls.saved = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.saved_dir.cleanup()

    def doc(self):
        """The saved reference with rates any node reaches (only the inventory is judged)."""
        d = copy.deepcopy(self.saved)
        d["rates_mbps"] = {k: 1.0 for k in d["rates_mbps"]}
        return d

    def checks(self, doc, status):
        self.write_ref(doc)
        args = RUN + ["--reference", self.ref, "--format", "json"]
        rc, out, err = membench_test.run(args)
        self.assertEqual(rc, status, membench_test.describe(args, rc, out, err))
        return {c["name"]: c for c in json.loads(out)["acceptance"]["checks"]}, err

    def test_saved_inventory(self):
        mem = self.saved["memory"]
        self.assertTrue(mem["nodes"])
        for n in mem["nodes"]:
            self.assertEqual(set(n), {"os_index", "kind", "bytes", "tier"})
            self.assertGreater(n["bytes"], 0)
            self.assertIn(n["tier"], [t["name"] for t in mem["tiers"]])

    def test_same_node_passes(self):
        checks, _ = self.checks(self.doc(), 0)
        self.assertEqual(checks["memory nodes"]["verdict"], "PASS")
        self.assertEqual(checks["memory tiers"]["verdict"], "PASS")

    def test_missing_node(self):
        d = self.doc()
        extra = dict(d["memory"]["nodes"][0], os_index=4093)
        d["memory"]["nodes"].append(extra)
        checks, _ = self.checks(d, 1)
        self.assertEqual(checks["memory node 4093"]["measured"], "missing")
        self.assertEqual(checks["memory node 4093"]["verdict"], "FAIL")
        self.assertNotIn("memory nodes", checks)

    def test_larger_node_in_reference(self):
        d = self.doc()
        node = d["memory"]["nodes"][0]
        node["bytes"] = int(node["bytes"] * 1.02)  # beyond the 1% margin
        checks, _ = self.checks(d, 1)
        self.assertEqual(checks["memory node %d" % node["os_index"]]["verdict"], "FAIL")

    def test_within_margin_passes(self):
        d = self.doc()
        d["memory"]["nodes"][0]["bytes"] = int(d["memory"]["nodes"][0]["bytes"] * 1.005)
        checks, _ = self.checks(d, 0)
        self.assertEqual(checks["memory nodes"]["verdict"], "PASS")

    def test_other_kind(self):
        d = self.doc()
        node = d["memory"]["nodes"][0]
        node["kind"] = "HBM"
        checks, _ = self.checks(d, 1)
        c = checks["memory node %d" % node["os_index"]]
        self.assertEqual(c["verdict"], "FAIL")
        self.assertTrue(c["expected"].startswith("HBM"), c)

    def test_missing_tier(self):
        d = self.doc()
        d["memory"]["tiers"].append({"name": "hbm", "kind": "HBM", "nodes": "4"})
        checks, _ = self.checks(d, 1)
        self.assertEqual(checks["memory tier hbm"]["verdict"], "FAIL")
        self.assertEqual(checks["memory tier hbm"]["measured"], "missing")

    def test_old_reference_notes_unchecked(self):
        d = self.doc()
        del d["memory"]
        checks, err = self.checks(d, 0)
        self.assertFalse([n for n in checks if n.startswith("memory ")])
        self.assertIn("no memory inventory", err)

    def test_bad_inventory_refused(self):
        d = self.doc()
        d["memory"]["nodes"][0]["bytes"] = "many"
        self.write_ref(d)
        self.assert_error(["--dry-run"] + RUN + ["--reference", self.ref], 2,
                          [self.ref, "'memory'"])


if __name__ == "__main__":
    membench_test.main()
