# ctest: LABELS hugetlb
"""The TLB report keeps one rule (docs/tlb.md, "Which figure is the size" and "Agrees") in
what a real run writes: every level's entries lies in its entries_low..entries_high and names
its method, "agrees" is the documented size within agree_tolerance of that bracket, nothing
unmeasured is left out of the JSON or written as nan in the CSV; and on a terminal the sweep
shows one progress line on stderr, cleared at the end. A short sweep (--tlb-max-pages 256):
the estimator's figures on whole sweeps are pinned by tests/unit on recorded curves."""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

SHORT = ["--tlb", "--tlb-max-pages", "256", "--repeat", "2"]
#: The same sweep in one round, where the rounds do not matter (CSV fields, -q).
ONE_ROUND = SHORT[:-1] + ["1"]


def run_on_tty(args):
    """Run membench with stderr on a pseudo-terminal (stdout to a file); return (rc, stdout,
    the bytes the terminal got)."""
    master, slave = os.openpty()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(membench_test.command(membench_test.BIN) + list(args),
                                env=membench_test.make_env(), stdin=subprocess.DEVNULL,
                                stdout=out, stderr=slave)
        os.close(slave)
        got = []
        while True:  # read as it comes, so that the terminal never fills up
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: every writer of the terminal is gone
                break
            if not data:
                break
            got.append(data)
        os.close(master)
        rc = proc.wait(timeout=300)
        out.seek(0)
        return rc, out.read().decode("utf-8", "replace"), b"".join(got)


class JsonTest(membench_test.MembenchTestCase):
    sweep = None  # one short sweep's JSON and stderr, shared by the tests below

    def setUp(self):
        super().setUp()
        if JsonTest.sweep is None:
            args = SHORT + ["--format", "json"]
            JsonTest.sweep = self.run_ok(args)
        self.doc = json.loads(JsonTest.sweep[0])

    def test_no_progress_off_a_terminal(self):
        err = JsonTest.sweep[1]
        self.assertNotIn("membench: tlb:", err)
        self.assertNotIn("\r", err)

    def test_levels_one_rule(self):
        tlb = self.doc["tlb"]
        tolerance = tlb["agree_tolerance"]
        self.assertEqual(tolerance, 0.10)
        levels = tlb["levels"]
        if tlb["huge"] and tlb["huge"]["sweep"]:
            levels = levels + tlb["huge"]["sweep"]["levels"]
        if not levels:
            self.skipTest("no TLB knee within 256 pages on this machine")
        keys = set(levels[0])
        for lv in levels:
            self.assertEqual(set(lv), keys, lv)  # never left out: null
            if lv["entries"] is None:
                self.assertNotIn(lv["entries_method"], ("sharp knee", "midpoint", "reuse fit"),
                                 lv)
                self.assertIsNone(lv["agrees_with_documented"], lv)
                continue
            self.assertLessEqual(lv["entries_low"], lv["entries"], lv)
            self.assertLessEqual(lv["entries"], lv["entries_high"], lv)
            if lv["agrees_with_documented"] is None:
                continue
            d = lv["documented_entries"]
            want = ((d - lv["entries_high"]) / d if d > lv["entries_high"] else
                    (d - lv["entries_low"]) / d if d < lv["entries_low"] else 0.0)
            self.assertAlmostEqual(lv["documented_off"], want, places=9)
            self.assertEqual(lv["agrees_with_documented"], abs(want) <= tolerance, lv)

    def test_nothing_left_out(self):
        """A plan, a single point and a sweep: the same keys, null where nothing was measured."""
        sweep = self.doc["tlb"]
        point = self.run_json(["--tlb", "--tlb-pages", "16", "--repeat", "2"])["tlb"]
        plan = self.run_json(SHORT + ["--dry-run"])["tlb"]
        self.assertEqual(set(point), set(sweep))
        self.assertEqual(set(plan), set(sweep))
        for key in ("control_points", "reuse", "huge", "walk_throughput", "cache_knees"):
            self.assertIsNone(point[key], key)
            self.assertIsNone(plan[key], key)
        self.assertIsNone(plan["seconds"])
        self.assertIsNone(plan["clock"])
        walk = sweep["walk_throughput"]
        self.assertEqual(set(walk[0]), set(walk[1]))
        huge = sweep["huge"]
        for key in ("why", "backing", "sweep", "splinter_check", "extends_reach", "note"):
            self.assertIn(key, huge)
        for t in sweep["threads"]:
            self.assertIn("sweep", t)


class CsvTest(membench_test.MembenchTestCase):
    def test_unmeasured_fields_empty(self):
        """No 'nan': a field not measured is empty, as in the STREAM CSV; level rows carry the
        bracket, the method and the verdict."""
        out, _ = self.run_ok(ONE_ROUND + ["--format", "csv"])
        lines = out.splitlines()
        for line in lines:
            fields = line.split(",")
            self.assertFalse({"nan", "-nan", "inf", "-inf"} & set(fields), line)
        self.assertIn("# level,sweep,thread,name,entries,entries_upper,hit_ns,miss_penalty_ns,"
                      "documented_entries,entries_low,entries_high,entries_method,"
                      "agrees_with_documented", lines)
        levels = [ln.split(",") for ln in lines
                  if ln.startswith("# level,") and not ln.startswith("# level,sweep,")]
        if not levels:
            self.skipTest("no TLB knee within 256 pages on this machine")
        for f in levels:
            self.assertEqual(len(f), 13, f)
            entries, upper, low, high, method = f[4], f[5], f[9], f[10], f[11]
            if entries:
                self.assertLessEqual(int(low), int(entries), f)
                self.assertLessEqual(int(entries), int(high), f)
                self.assertEqual(upper, high, f)
            if f[3] == "page walk":
                self.assertEqual([entries, upper, low, high, method], [""] * 5, f)
            else:
                self.assertTrue(method, f)


class ProgressTest(membench_test.MembenchTestCase):
    def test_progress_line_on_a_terminal(self):
        rc, out, tty = run_on_tty(SHORT)
        self.assertEqual(rc, 0, tty)
        self.assertIn("Levels (4.0 KiB)", out)
        first = tty.find(b"\rmembench: tlb: the 4 KB sweep, round 1/2, point 1/")
        self.assertGreaterEqual(first, 0, tty[:2000])
        last = tty.rfind(b"\rmembench: tlb: ")
        clear = tty.rfind(b"\r\x1b[K")
        self.assertGreater(clear, last, tty[-500:])  # cleared after its last update
        for update in tty[first:clear].split(b"\r")[1:]:
            self.assertNotIn(b"\n", update)  # one line, rewritten in place
            self.assertTrue(update.startswith(b"membench: tlb: "), update)

    def test_no_progress_with_q(self):
        rc, out, tty = run_on_tty(ONE_ROUND + ["-q"])
        self.assertEqual(rc, 0, tty)
        self.assertTrue(out.startswith("tlb: "), out)
        self.assertNotIn(b"membench: tlb:", tty)
        self.assertNotIn(b"\r", tty.replace(b"\r\n", b"\n"))


if __name__ == "__main__":
    membench_test.main()
