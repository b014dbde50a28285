"""Memory-side caches (hwloc MemCache, and a v1 description's L3Cache of subtype
"MemorySideCache") on the hwloc project's recorded topologies, via --dry-run: never the LLC,
the topology facts, the array size past them where memory allows it, and the note or the
acceptance refusal where it does not."""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

MiB = 1024 * 1024
GiB = 1024 * MiB

KNL = "64intel64-fakeKNL-SNC4-hybrid.xml"  # v1: 4 x L3(MemorySideCache) of 2 GiB, L2 the LLC
KNL_V2 = "64intel64-fakeKNL-SNC4-hybrid.v1tov2.xml"  # the same machine, hwloc's v2 conversion
KNL_A2A = "8intel64-fakeKNL-A2A-hybrid.rootattachednumas.xml"  # MemCache before MCDRAM only
TWO_LM = "memorysidecaches.xml"  # 4 nodes of 370 GB, each behind a 96 GB MemCache
SMALL = "memcache-2n-2levels.xml"  # node 0 behind 48 MiB, node 1 behind 16 + 64 MiB
PLAIN = ("8intel64-4n2t-memattrs.xml", "fakeheterodistances.xml", "two-socket-ccx.xml")

NOTE = re.compile(r"arrays \(([\d.]+ [KMGT]iB) each\) fit in the ([\d.]+ [KMGT]iB) memory-side "
                  r"cache in front of (nodes? [\d,-]+): the figures are the memory-side "
                  r"cache's, not the memory's")
RULE = "4xLLC (STREAM rule)"
MEMCACHE_RULE = "memory-side cache (each array at least its size)"


def env(name, **more):
    e = {"HWLOC_XMLFILE": membench_test.topology(name), "HWLOC_THISSYSTEM": None,
         "OMP_NUM_THREADS": None}
    e.update(more)
    return e


def budget(doc):
    """The bytes membench's memory budget allows, from the facts the report carries."""
    s = doc["system"]
    basis = s["mem_available_bytes"]
    headroom = s["cgroup_memory_headroom_bytes"]
    if headroom is not None and s["cgroup_memory_limit_bytes"] and (not basis or headroom < basis):
        basis = headroom
    return int(0.9 * basis) if basis else None


def fits(doc, array_bytes):
    room = budget(doc)
    return room is None or 3 * array_bytes <= room


class MemcacheTestCase(membench_test.MembenchTestCase):
    def plan(self, name, args=(), **more):
        doc = self.run_json(list(args) + ["--dry-run"], env_extra=env(name, **more))
        self.assertIs(doc["dry_run"], True)
        return doc

    def text(self, name, args=()):
        out, _ = self.run_ok(list(args) + ["--dry-run"], env_extra=env(name))
        return out

    def assert_past_cache_or_noted(self, doc, cache_bytes, llc_bytes):
        """Arrays at least the cache's size when memory holds three of them, else the LLC
        rule's size with in_memory_side_cache."""
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["memcache_bytes_used"], cache_bytes)
        if fits(doc, cache_bytes):
            self.assertEqual(cfg["size_rule"], MEMCACHE_RULE)
            self.assertEqual(cfg["array_bytes"], cache_bytes)
            self.assertIs(cfg["in_memory_side_cache"], False)
        else:
            self.assertEqual(cfg["size_rule"], RULE)
            self.assertEqual(cfg["array_bytes"], 4 * llc_bytes)
            self.assertIs(cfg["in_memory_side_cache"], True)


class NeverTheLlcTest(MemcacheTestCase):
    """A memory-side cache is not a CPU cache level: the LLC is the CPUs' own."""

    def test_knl_llc_is_l2(self):
        """Before: the 4 x 2 GiB MCDRAM cache was an 8 GiB "L3" and the arrays 32 GiB each."""
        for name in (KNL, KNL_V2):
            with self.subTest(topology=name):
                s = self.plan(name)["system"]
                self.assertEqual(s["llc_level"], 2)
                self.assertEqual(s["llc_count"], 8)
                self.assertEqual(s["llc_bytes_total"], 8 * 4 * MiB)

    def test_memcache_objects_are_not_the_llc(self):
        s = self.plan(TWO_LM)["system"]
        self.assertEqual((s["llc_level"], s["llc_count"], s["llc_bytes_total"]),
                         (3, 2, 2 * 28835840))
        s = self.plan(KNL_A2A)["system"]
        self.assertEqual((s["llc_level"], s["llc_count"], s["llc_bytes_total"]), (2, 2, 2 * MiB))

    def test_placement_llc_index_skips_the_memory_side_cache(self):
        """Each thread's LLC is its L2 (4 MiB per 2 cores), not the cluster's MCDRAM cache."""
        doc = self.plan(KNL, ["--threads", "16", "--bind", "compact"])
        llcs = [p["llc"] for p in doc["runs"][0]["placement"]]
        self.assertEqual(sorted(set(llcs)), list(range(8)))


class FactsTest(MemcacheTestCase):
    """memcache_* of the system: the caches in front of the nodes the cores' memory lands on."""

    def facts(self, name):
        s = self.plan(name, ["--size", "64MiB"])["system"]  # 8intel64-4n2t has no caches
        return (s["memcache_count"], s["memcache_levels"], s["memcache_bytes_total"],
                s["memcache_nodes"])

    def test_knl_v1_and_v2(self):
        """The v1 L3(MemorySideCache) is in front of its cluster's DRAM node, never MCDRAM's."""
        for name in (KNL, KNL_V2):
            with self.subTest(topology=name):
                self.assertEqual(self.facts(name), (4, 1, 8 * GiB, "0-3"))

    def test_memcache_objects(self):
        self.assertEqual(self.facts(TWO_LM), (4, 1, 4 * 103079215104, "0-3"))

    def test_levels_summed(self):
        self.assertEqual(self.facts(SMALL), (3, 2, 128 * MiB, "0-1"))

    def test_cache_before_a_node_without_cores(self):
        """The MCDRAM node's cache is not where first-touched memory lands (DRAM node 0)."""
        self.assertEqual(self.facts(KNL_A2A), (0, 0, 0, None))

    def test_none(self):
        for name in PLAIN:
            with self.subTest(topology=name):
                self.assertEqual(self.facts(name), (0, 0, 0, None))

    def test_header_line(self):
        out = self.text(TWO_LM)
        self.assertIn("Memory-side cache: 4 instances, 384.0 GiB in total, in front of NUMA "
                      "nodes 0-3\n", out)
        self.assertNotIn("Memory-side cache", self.text("two-socket-ccx.xml"))


class SizeRuleTest(MemcacheTestCase):
    """Default arrays at least the memory-side caches in front of their nodes."""

    def test_small_caches_widen_the_arrays(self):
        """4 x 8 MiB LLC = 32 MiB; the caches of nodes 0-1 sum to 128 MiB."""
        doc = self.plan(SMALL)
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["size_rule"], MEMCACHE_RULE)
        self.assertEqual(cfg["array_bytes"], 128 * MiB)
        self.assertEqual(cfg["memcache_bytes_used"], 128 * MiB)
        self.assertIs(cfg["in_memory_side_cache"], False)
        self.assertIs(cfg["below_stream_rule"], False)

    def test_the_threads_nodes_only(self):
        """One thread on node 1's core: its 16 + 64 MiB; on node 0's: 48 MiB."""
        for pu, cache in ((2, 80 * MiB), (0, 48 * MiB)):
            with self.subTest(pu=pu):
                cfg = self.plan(SMALL, ["-t", "1", "--bind", str(pu)])["runs"][0]["config"]
                self.assertEqual(cfg["memcache_bytes_used"], cache)
                self.assertEqual(cfg["array_bytes"], cache)

    def test_sweep_shares_the_largest(self):
        doc = self.plan(SMALL, ["-t", "1,4"])
        sizes = [r["config"]["array_bytes"] for r in doc["runs"]]
        self.assertEqual(sizes, [128 * MiB, 128 * MiB])
        self.assertEqual(doc["runs"][0]["config"]["size_rule"],
                         "memory-side cache (largest of the sweep)")
        self.assertIs(doc["runs"][0]["config"]["in_memory_side_cache"], False)

    def test_matrix_cell_uses_its_memory_node(self):
        doc = self.plan(SMALL, ["--matrix", "numa"])
        used = {(r["config"]["cpu_node"], r["config"]["mem_node"]):
                r["config"]["memcache_bytes_used"] for r in doc["runs"]}
        self.assertEqual(used, {(0, 0): 48 * MiB, (0, 1): 80 * MiB, (1, 0): 48 * MiB,
                                (1, 1): 80 * MiB})
        for r in doc["runs"]:
            self.assertGreaterEqual(r["config"]["array_bytes"], 80 * MiB)

    def test_knl(self):
        """8 GiB of MCDRAM cache: arrays of 8 GiB where memory allows, else 4 x 32 MiB noted."""
        self.assert_past_cache_or_noted(self.plan(KNL), 8 * GiB, 32 * MiB)

    def test_two_level_memory(self):
        """384 GB of DRAM cache in front of nodes 0-3: arrays past it only on a huge node."""
        self.assert_past_cache_or_noted(self.plan(TWO_LM), 4 * 103079215104, 2 * 28835840)

    def test_no_memcache_keeps_the_llc_rule(self):
        for name in ("two-socket-ccx.xml", "fakeheterodistances.xml", KNL_A2A):
            with self.subTest(topology=name):
                cfg = self.plan(name)["runs"][0]["config"]
                self.assertEqual(cfg["size_rule"], RULE)
                self.assertIsNone(cfg["memcache_bytes_used"])
                self.assertIs(cfg["in_memory_side_cache"], False)


class NoteTest(MemcacheTestCase):
    """Arrays within the cache: said in the header (also under --dry-run) and in the JSON."""

    def test_two_level_memory_note(self):
        doc = self.plan(TWO_LM)
        if fits(doc, 4 * 103079215104):
            self.skipTest("this machine's memory holds arrays past 384 GB")
        out = self.text(TWO_LM)
        self.assertIn("NOTE: arrays (220.0 MiB each) fit in the 384.0 GiB memory-side cache in "
                      "front of nodes 0-3: the figures are the memory-side cache's, not the "
                      "memory's\n", out)

    def test_explicit_size_is_kept_and_noted(self):
        out = self.text(SMALL, ["--size", "40MiB"])
        m = NOTE.search(out)
        self.assertIsNotNone(m, out)
        self.assertEqual(m.groups(), ("40.0 MiB", "128.0 MiB", "nodes 0-1"))
        cfg = self.plan(SMALL, ["--size", "40MiB"])["runs"][0]["config"]
        self.assertEqual(cfg["array_bytes"], 40 * MiB)
        self.assertIs(cfg["in_memory_side_cache"], True)

    def test_explicit_size_past_the_cache_has_no_note(self):
        out = self.text(SMALL, ["--size", "128MiB"])
        self.assertIsNone(NOTE.search(out), out)

    def test_one_node(self):
        out = self.text(SMALL, ["-t", "1", "--bind", "0", "--size", "8MiB"])
        m = NOTE.search(out)
        self.assertIsNotNone(m, out)
        self.assertEqual(m.groups(), ("8.0 MiB", "48.0 MiB", "node 0"))


class AcceptanceTest(MemcacheTestCase):
    """--acceptance judges the memory: arrays that cannot exceed the cache are refused."""

    def test_refused_when_memory_cannot_exceed_the_cache(self):
        doc = self.plan(TWO_LM)
        if fits(doc, 4 * 103079215104):
            self.skipTest("this machine's memory holds arrays past 384 GB")
        line = self.assert_error(
            ["--acceptance", "--dry-run"], 3,
            ["--acceptance", "arrays (220.0 MiB each)", "384.0 GiB memory-side cache",
             "nodes 0-3", "3 x 384.0 GiB", "may be used", "more free memory",
             "without --acceptance"], env_extra=env(TWO_LM))
        self.assertNotIn("--size", line)

    def test_accepted_past_the_cache(self):
        doc = self.run_json(["--acceptance", "--dry-run"], env_extra=env(SMALL))
        cfg = doc["runs"][0]["config"]
        self.assertEqual(cfg["array_bytes"], 128 * MiB)
        self.assertIs(cfg["in_memory_side_cache"], False)


if __name__ == "__main__":
    membench_test.main()
