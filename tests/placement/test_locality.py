# ctest: LABELS races
"""Page locality: where the sampled pages of each thread's arrays landed (move_pages(2)),
against the NUMA node of the PU the thread first touched them from; reported in text, JSON and
CSV, warned about below 99%, and "unknown (reason)" when move_pages is unavailable."""

import csv
import io
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, run, describe  # noqa: E402

RUN = ["--triad", "--size", "2000000", "-n", "3", "-t", "2", "--bind", "compact"]
WRONG_NODE = {"MEMBENCH_TEST_PAGES_NODE": "1"}  # every page "on" OS node 1: not a node here
NO_MOVE_PAGES = {"MEMBENCH_TEST_MOVE_PAGES": "ENOSYS"}


class LocalityTest(MembenchTestCase):

    def locality(self, args=RUN, env=None):
        doc = self.run_json(args, env_extra=env)
        return doc, doc["runs"][0]["locality"]

    def require_move_pages(self, loc):
        if not loc["verified"]:
            self.skipTest("move_pages(2) is not available here: %s" % loc["reason"])

    def test_json_counts_every_thread_and_array(self):
        doc, loc = self.locality()
        self.require_move_pages(loc)
        self.assertEqual(set(loc), {"verified", "pages_sampled", "pages_local", "pages_absent",
                                    "local_fraction", "reason"})
        # 3 arrays of 15.3 MiB over 2 threads, a page per MiB: about 48, at least one per range
        self.assertGreaterEqual(loc["pages_sampled"], 45)
        self.assertLessEqual(loc["pages_sampled"], 54)
        self.assertEqual(loc["pages_absent"], 0)
        self.assertIsNone(loc["reason"])
        if doc["system"]["numa_nodes"] == 1:  # one node: every page is local
            self.assertEqual(loc["local_fraction"], 1.0)
            self.assertEqual(loc["pages_local"], loc["pages_sampled"])

    def test_text_line_under_the_run(self):
        out, _ = self.run_ok(RUN)
        lines = [l for l in out.splitlines() if l.startswith("Memory: ")]
        self.assertEqual(len(lines), 1, out)
        if "unknown" in lines[0]:
            self.skipTest(lines[0])
        self.assertRegex(lines[0], r"^Memory: 100\.0% of sampled pages on their thread's NUMA "
                                   r"node \(\d+ pages\)$")

    def test_csv_local_fraction(self):
        out, _ = self.run_ok(RUN + ["--format", "csv"])
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(len(rows), 1)
        self.assertIn("local_fraction", rows[0])
        if rows[0]["local_fraction"] == "":
            self.skipTest("move_pages(2) is not available here")
        self.assertEqual(float(rows[0]["local_fraction"]), 1.0)
        self.assertEqual(rows[0]["cpu_node"], "")  # not a --matrix cell
        self.assertEqual(rows[0]["mem_node"], "")

    def test_pages_on_another_node_warn_with_remedy(self):
        doc, loc = self.locality(env=WRONG_NODE)
        self.require_move_pages(loc)
        self.assertTrue(loc["verified"])
        self.assertEqual(loc["local_fraction"], 0.0)
        self.assertEqual(loc["pages_local"], 0)
        warns = [w for w in doc["runs"][0]["warnings"] if "sampled pages" in w]
        self.assertEqual(len(warns), 1, doc["runs"][0]["warnings"])
        for word in ("0.0%", "numactl", "--bind"):
            self.assertIn(word, warns[0])
        rc, out, err = run(RUN, WRONG_NODE)
        self.assertEqual(rc, 0, describe(RUN, rc, out, err))  # a warning, not a failed check
        self.assertIn("Memory: 0.0% of sampled pages on their thread's NUMA node", out)
        self.assertIn("WARNING: only 0.0% of sampled pages on their", out)

    def test_without_move_pages_it_is_unknown_never_a_number(self):
        doc, loc = self.locality(env=NO_MOVE_PAGES)
        self.assertFalse(loc["verified"])
        self.assertIsNone(loc["local_fraction"])
        self.assertIsNone(loc["pages_sampled"])
        self.assertIn("move_pages", loc["reason"])
        self.assertIn("Function not implemented", loc["reason"])
        out, _ = self.run_ok(RUN, env_extra=NO_MOVE_PAGES)
        self.assertIn("Memory: unknown (move_pages: Function not implemented)", out)
        self.assertNotIn("% of sampled pages", out)
        out, _ = self.run_ok(RUN + ["--format", "csv"], env_extra=NO_MOVE_PAGES)
        self.assertEqual(list(csv.DictReader(io.StringIO(out)))[0]["local_fraction"], "")

    def test_eperm_is_unknown_too(self):
        _, loc = self.locality(env={"MEMBENCH_TEST_MOVE_PAGES": "EPERM"})
        self.assertFalse(loc["verified"])
        self.assertIn("Operation not permitted", loc["reason"])

    def test_dry_run_reports_no_locality(self):
        doc = self.run_json(RUN + ["--dry-run"])
        self.assertNotIn("locality", doc["runs"][0])
        out, _ = self.run_ok(RUN + ["--dry-run", "--format", "csv"])
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(rows[0]["local_fraction"], "")  # nothing measured: empty, not 0
        out, _ = self.run_ok(RUN + ["--dry-run"])
        self.assertNotIn("Memory:", out)

    def test_tlb_probe_reports_its_pages(self):
        args = ["--tlb", "--tlb-pages", "16", "--repeat", "2"]
        doc = self.run_json(args)
        loc = doc["tlb"]["locality"]
        self.require_move_pages(loc)
        self.assertGreaterEqual(loc["pages_sampled"], 1)
        self.assertEqual(loc["local_fraction"], 1.0)
        out, _ = self.run_ok(args)
        self.assertIn("Memory: 100.0% of sampled pages on the thread's NUMA node", out)
        doc = self.run_json(args, env_extra=WRONG_NODE)
        self.assertEqual(doc["tlb"]["locality"]["local_fraction"], 0.0)
        self.assertTrue(any("sampled pages" in w for w in doc["tlb"]["warnings"]),
                        doc["tlb"]["warnings"])
        doc = self.run_json(args, env_extra=NO_MOVE_PAGES)
        self.assertFalse(doc["tlb"]["locality"]["verified"])


if __name__ == "__main__":
    membench_test.main()
