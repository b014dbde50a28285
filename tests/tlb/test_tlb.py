# ctest: LABELS hugetlb emulation threads
"""The TLB probe (--tlb) end to end: short sweeps on this machine, single points, -q, CSV,
JSON shape, and bad input. Sweeps are kept small (--tlb-max-pages 128..256, --repeat 1..2) so
the file runs in seconds; the numbers are checked for shape and sanity, not for this
machine's TLB sizes."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import describe, run  # noqa: E402

SHORT = ["--tlb", "--tlb-max-pages", "256", "--repeat", "2"]
POINT_KEYS = {"pages", "ns_per_access", "min_ns", "median_ns"}
LEVEL_KEYS = {"name", "entries", "hit_ns", "miss_penalty_ns"}
SETS_KEYS = {"run", "why", "pages", "strides", "base_ns", "miss_ns", "conflict_stride", "scans",
             "index", "entries", "level", "level_was", "threads", "seconds"}

_cache = {}


def short_sweep_json(case):
    """One short sweep shared by the JSON tests (it takes a few seconds)."""
    if "doc" not in _cache:
        _cache["doc"] = case.run_json(SHORT)
    return _cache["doc"]


class SweepJsonTest(membench_test.MembenchTestCase):
    """--tlb --format json: the contract's tlb.points[] and tlb.levels[]."""

    def test_only_the_probe_runs(self):
        """With only --tlb, no STREAM run is made."""
        doc = short_sweep_json(self)
        self.assertEqual(doc["runs"], [])
        self.assertIn("tlb", doc)

    def test_points_shape_and_sanity(self):
        """Points ascend from 1 to 256, min <= median, positive, the grid is all there."""
        tlb = short_sweep_json(self)["tlb"]
        self.assertTrue(tlb["measured"])
        points = tlb["points"]
        pages = [p["pages"] for p in points]
        self.assertEqual(pages, sorted(pages))
        self.assertEqual(len(pages), len(set(pages)))
        for grid in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256):
            self.assertIn(grid, pages)
        self.assertLessEqual(max(pages), 256)
        for p in points:
            self.assertTrue(POINT_KEYS <= set(p), p)
            self.assertGreater(p["min_ns"], 0.0)
            self.assertLessEqual(p["min_ns"], p["median_ns"] + 1e-9)
            self.assertEqual(p["ns_per_access"], p["min_ns"])
            self.assertEqual(p["samples"], 2)
        # one access per page never gets cheaper with more pages (allowing noise)
        self.assertGreaterEqual(points[-1]["ns_per_access"], 0.8 * points[0]["ns_per_access"])
        # an access costs more than a nanosecond fraction and less than a millisecond
        for p in points:
            self.assertGreater(p["ns_per_access"], 0.05)
            self.assertLess(p["ns_per_access"], 1e6)

    def test_control_and_backing(self):
        """The control covers the same x; the sweep's memory is verified 4 KB, THP off."""
        tlb = short_sweep_json(self)["tlb"]
        lines = [c["lines"] for c in tlb["control_points"]]
        for p in tlb["points"]:
            self.assertIn(p["pages"], lines)
        for c in tlb["control_points"]:
            self.assertEqual(c["pages_used"], (c["lines"] + 63) // 64)
        backing = tlb["backing"]
        if backing["verified"]:
            self.assertEqual(backing["page_size_bytes"], 4096)
            self.assertEqual(backing["thp_fraction"], 0.0)

    def test_levels_shape(self):
        """Levels carry name/entries/hit_ns/miss_penalty_ns; sizes are within the sweep."""
        tlb = short_sweep_json(self)["tlb"]
        names = [lv["name"] for lv in tlb["levels"]]
        for lv in tlb["levels"]:
            self.assertTrue(LEVEL_KEYS <= set(lv), lv)
            if lv["entries"] is not None:
                self.assertGreaterEqual(lv["entries"], 1)
                self.assertLessEqual(lv["entries"], 256)
        if names:
            self.assertEqual(names[0], "L1 DTLB")
            self.assertGreater(tlb["levels"][0]["hit_ns"], 0.0)
        for knee in tlb["knees"]:
            self.assertIn(knee["kind"], ("tlb", "data_cache", "page_walk", "unclassified"))
            self.assertLess(knee["last_low"], knee["first_high"])

    def test_documented_clock_huge_throughput(self):
        """CPUID source or a reason; a clock basis; 2 MB and throughput sections present."""
        tlb = short_sweep_json(self)["tlb"]
        doc = tlb["documented"]
        self.assertTrue((doc["source"] is None) != (doc["why_unknown"] is None), doc)
        self.assertIn(tlb["clock"]["cycles_basis"],
                      ("core clock estimated from a dependent-add loop", "TSC", "unknown"))
        self.assertIn("measured", tlb["huge"])
        if tlb["huge"]["measured"]:
            self.assertEqual(tlb["huge"]["sweep"]["page_size_bytes"], 2 * 1024 * 1024)
            self.assertLessEqual(max(p["pages"] for p in tlb["huge"]["sweep"]["points"]), 32)
        else:
            self.assertTrue(tlb["huge"]["why"])
        sizes = [w["page_size_bytes"] for w in tlb["walk_throughput"]]
        self.assertEqual(sizes, [4096, 2 * 1024 * 1024])
        small = tlb["walk_throughput"][0]
        self.assertTrue(small["measured"], small)
        self.assertGreater(small["best_accesses_per_s"], 1e5)
        self.assertEqual(small["threads"], 1)


    def test_stride_probe(self):
        """tlb.sets: every key; a low-bit index is sized by two scans that agree, and the level
        it sizes carries that size; otherwise nothing is sized and why is said."""
        sets = short_sweep_json(self)["tlb"]["sets"]
        self.assertEqual(set(sets), SETS_KEYS)
        if not sets["run"]:
            self.assertTrue(sets["why"].startswith("not run: ") or "before it finished"
                            in sets["why"], sets)
            self.assertIsNone(sets["index"])
            self.assertIsNone(sets["threads"])
            return
        # one thread: its sweep took the index exactly where the probe sized a level
        self.assertEqual(sets["threads"], int(sets["level"] is not None))
        strides = [s["stride"] for s in sets["strides"]]
        self.assertEqual(strides, [2 ** k for k in range(len(strides))])
        self.assertGreaterEqual(sets["pages"], 256)
        self.assertEqual(sets["pages"] & (sets["pages"] - 1), 0)
        self.assertIn(sets["index"], ("low bits", "not low bits", "undecided"))
        if sets["index"] != "low bits":
            self.assertIsNone(sets["entries"])
            self.assertTrue(sets["why"], sets)
            levels = short_sweep_json(self)["tlb"]["levels"]
            if sets["level"] is None:
                self.assertNotIn("model", [lv["entries_method"] for lv in levels])
                return
            # no low-bit conflicts at all: the model told "hashed" sized the level
            self.assertEqual(sets["index"], "not low bits")
            self.assertIsNone(sets["conflict_stride"])
            level = [lv for lv in levels if lv["name"] == sets["level"]]
            self.assertEqual(len(level), 1)
            model = level[0]["model"]
            self.assertEqual(level[0]["entries_method"], "model")
            self.assertEqual((model["index"], model["index_from_stride_probe"]), ("hashed", True))
            self.assertEqual(level[0]["entries"], model["entries"])
            self.assertIsNotNone(sets["level_was"])
            return
        self.assertEqual(len(sets["scans"]), 2)
        both = [sc["entries"] for sc in sets["scans"]]
        for sc in sets["scans"]:
            self.assertAlmostEqual(sc["entries"], sc["capacity_pages"] * sc["stride"], delta=1)
        self.assertEqual(sets["scans"][1]["stride"] * 2, sets["scans"][0]["stride"])
        self.assertLessEqual(abs(both[0] - both[1]), 0.06 * sum(both) / 2 + 1)
        self.assertAlmostEqual(sets["entries"], sum(both) / 2, delta=1)
        if sets["level"] is not None:
            level = [lv for lv in short_sweep_json(self)["tlb"]["levels"]
                     if lv["name"] == sets["level"]]
            self.assertEqual(len(level), 1)
            self.assertEqual(level[0]["entries"], sets["entries"])
            self.assertEqual(level[0]["entries_method"], "stride probe")


class TextAndCsvTest(membench_test.MembenchTestCase):
    """The text report, -q and CSV."""

    def test_text_report(self):
        """Header, point table, levels, no STREAM table."""
        out, _ = self.run_ok(["--tlb", "--tlb-max-pages", "128", "--repeat", "1"])
        self.assertIn("TLB probe: pointer chase (latency), random order", out)
        self.assertRegex(out, r"(?m)^\s+Pages\s+ns/access\s+median ns")
        self.assertRegex(out, r"(?m)^Levels \(4\.0 KiB\)")
        self.assertRegex(out, r"(?m)^Page-walk throughput")
        self.assertRegex(out, r"(?m)^TLB probe time: [0-9.]+ s$")
        self.assertNotIn("Best Rate MB/s", out)
        self.assertRegex(out, r"(?m)^CPU: PU \d+ \(first planned PU\), bound and verified$")

    def test_quiet_sweep_one_line(self):
        """-q prints one line starting 'tlb:'."""
        out, _ = self.run_ok(["--tlb", "--tlb-max-pages", "128", "--repeat", "1", "-q"])
        lines = out.splitlines()
        self.assertEqual(len(lines), 1, out)
        self.assertTrue(lines[0].startswith("tlb: "), out)
        self.assertIn(" pages=4k mode=chase order=random", lines[0])

    def test_quiet_single_point_one_line(self):
        """-q with --tlb-pages: 'tlb: pages=N ns_per_access=...'."""
        out, _ = self.run_ok(["--tlb", "--tlb-pages", "16", "--repeat", "2", "-q"])
        lines = out.splitlines()
        self.assertEqual(len(lines), 1, out)
        self.assertRegex(lines[0], r"^tlb: pages=16 ns_per_access=[0-9.]+ median_ns=[0-9.]+ ")
        self.assertIn("trials=auto repeat=2", lines[0])

    def test_csv(self):
        """Header, 4k and control rows, '# level' comment lines for the plot."""
        out, _ = self.run_ok(["--tlb", "--tlb-max-pages", "128", "--repeat", "1",
                              "--format", "csv"])
        lines = out.splitlines()
        self.assertEqual(lines[0], "sweep,thread,pu,page_size_bytes,pages,ns_per_access,min_ns,"
                                   "median_ns,cycles_per_access,samples,refined")
        rows = [line.split(",") for line in lines[1:] if not line.startswith("#")]
        sweeps = {r[0] for r in rows}
        self.assertIn("4k", sweeps)
        self.assertIn("control", sweeps)
        for r in rows:
            self.assertEqual(len(r), 11, r)
            float(r[5])
        self.assertIn("# level,sweep,thread,name,entries,entries_upper,hit_ns,miss_penalty_ns,"
                      "documented_entries,entries_low,entries_high,entries_method,"
                      "agrees_with_documented", lines)


class SinglePointTest(membench_test.MembenchTestCase):
    """--tlb-pages N --tlb-trials T: seed 000's './tlb N T'."""

    def test_single_point_json(self):
        """One point, the given trials, K samples; no sweep sections."""
        doc = self.run_json(["--tlb", "--tlb-pages", "64", "--tlb-trials", "2000",
                             "--repeat", "3"])
        tlb = doc["tlb"]
        self.assertEqual(len(tlb["points"]), 1)
        p = tlb["points"][0]
        self.assertEqual(p["pages"], 64)
        self.assertEqual(p["samples"], 3)
        self.assertGreater(p["ns_per_access"], 0)
        self.assertEqual(tlb["config"]["trials"], 2000)
        self.assertEqual(tlb["config"]["single_point_pages"], 64)
        self.assertEqual(tlb["levels"], [])
        self.assertIsNone(tlb["control_points"])  # not measured: null

    def test_short_trials_warn_about_the_timer(self):
        """Ten trials of 8 pages are too short to time: a warning says so."""
        if membench_test.THREAD_SANITIZER:
            self.skipTest("ThreadSanitizer's instrumented loads make ten trials long enough to "
                          "time")
        membench_test.skip_under_emulation(
            self, "qemu-user spends tens of microseconds per sample whatever the trials (its "
            "translation, not the loads), so the two clock readings are about 1% of it: the "
            "warning comes and goes with the host's speed")
        rc, out, err = run(["--tlb", "--tlb-pages", "8", "--tlb-trials", "10", "--repeat", "2",
                            "--format", "json"])
        self.assertEqual(rc, 0, describe([], rc, out, err))
        warnings = json.loads(out)["tlb"]["warnings"]
        self.assertTrue(any("raise --tlb-trials" in w for w in warnings), warnings)
        self.assertIn("raise --tlb-trials", err)

    def test_options_are_reported(self):
        """--order seq --no-stagger --tlb-mode inc --cpu -1 show up in config and warnings."""
        doc = self.run_json(["--tlb", "--tlb-pages", "32", "--repeat", "1", "--order", "seq",
                             "--no-stagger", "--tlb-mode", "inc", "--cpu", "-1"])
        tlb = doc["tlb"]
        cfg = tlb["config"]
        self.assertEqual((cfg["order"], cfg["stagger"], cfg["mode"], cfg["cpu"]),
                         ("seq", False, "inc", None))
        text = " ".join(tlb["warnings"])
        self.assertIn("not pinned", text)
        self.assertIn("--no-stagger", text)
        self.assertIn("--tlb-mode inc", text)

    def test_dry_run(self):
        """--dry-run plans without measuring."""
        doc = self.run_json(["--tlb", "--dry-run"])
        self.assertFalse(doc["tlb"]["measured"])
        self.assertEqual(doc["tlb"]["points"], [])
        self.assertEqual(doc["tlb"]["config"]["max_pages"], 32768)



BAD = [
    ("pages_zero", ["--tlb", "--tlb-pages", "0"], ["--tlb-pages", "'0'"]),
    ("trials_zero", ["--tlb", "--tlb-pages", "64", "--tlb-trials", "0"],
     ["--tlb-trials", "'0'"]),
    ("cpu_not_in_machine", ["--tlb", "--cpu", "9999"], ["--cpu 9999", "PU 9999", "allowed"]),
    ("cpu_negative", ["--tlb", "--cpu", "-2"], ["--cpu", "'-2'", "-1"]),
    ("order_unknown", ["--tlb", "--order", "zigzag"], ["--order", "zigzag", "random|seq"]),
    ("mode_unknown", ["--tlb", "--tlb-mode", "walk"], ["--tlb-mode", "walk", "chase|inc"]),
    ("repeat_zero", ["--tlb", "--repeat", "0"], ["--repeat", "'0'"]),
    ("max_pages_tiny", ["--tlb", "--tlb-max-pages", "2"], ["--tlb-max-pages", "'2'"]),
    ("trials_without_pages", ["--tlb", "--tlb-trials", "5"], ["--tlb-trials", "--tlb-pages"]),
    ("probe_option_without_tlb", ["--order", "seq"], ["--order", "add --tlb"]),
    ("pages_list", ["--tlb", "--pages", "4k,default"], ["--pages", "one"]),
    ("threads_list", ["--tlb", "-t", "1,2"], ["--threads", "one"]),
    ("cpu_with_threads", ["--tlb", "--cpu", "0", "-t", "2"], ["--cpu", "--bind"]),
]


class BadInputTest(membench_test.MembenchTestCase):
    """Bad probe input: exit 2, one 'membench: ' line naming the remedy, nothing measured."""

    def test_fake_topology_needs_dry_run(self):
        """A synthetic topology is not this machine: measuring it is refused."""
        self.assert_error(["--tlb"], 2, ["--tlb", "HWLOC_SYNTHETIC", "--dry-run"],
                          env_extra={"HWLOC_SYNTHETIC": "pack:2 core:4 pu:1"})


def _make_bad(args, words):
    def test(self):
        self.assert_error(args, 2, words)
    test.__doc__ = "membench %s exits 2 with one error line." % " ".join(args)
    return test


for _name, _args, _words in BAD:
    setattr(BadInputTest, "test_" + _name, _make_bad(_args, _words))


if __name__ == "__main__":
    membench_test.main()
