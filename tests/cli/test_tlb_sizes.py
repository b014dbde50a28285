"""TLB level sizes as reported: every level names its method (sharp knee, midpoint, set
conflict) and the range beside its size, in JSON and in the text. A short sweep on this machine
(--tlb-max-pages 256): the first level's knee lies inside it on the machines this runs on; the
sizes themselves are pinned by tests/unit/test_tlb_estimator.c on recorded curves."""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import membench_test  # noqa: E402

SHORT = ["--tlb", "--tlb-max-pages", "256", "--repeat", "2"]
METHODS = {"sharp knee", "midpoint", "set conflict"}


class LevelSizesTest(membench_test.MembenchTestCase):
    def test_json_levels_carry_method_and_range(self):
        doc = self.run_json(SHORT)
        levels = [lv for lv in doc["tlb"]["levels"] if lv["name"] != "page walk"]
        if not levels or levels[0]["entries"] is None:
            self.skipTest("no TLB knee within 256 pages on this machine")
        for lv in levels:
            self.assertIn(lv["entries_method"], METHODS, lv)
            self.assertIn("set_conflict_ways", lv)
            if lv["entries"] is None:
                continue
            self.assertLessEqual(lv["entries_low"], lv["entries"], lv)
            self.assertLessEqual(lv["entries"], lv["entries_high"], lv)
            if lv["entries_method"] == "sharp knee":
                self.assertEqual(lv["entries"], lv["entries_low"], lv)
            self.assertIsNone(lv["set_conflict_ways"])
        walk = [lv for lv in doc["tlb"]["levels"] if lv["name"] == "page walk"]
        for lv in walk:
            self.assertNotIn("entries_method", lv)

    def test_text_names_the_method(self):
        out, _ = self.run_ok(SHORT)
        lines = [ln for ln in out.splitlines() if ln.strip().startswith("L1 DTLB:")]
        if not lines or "no knee" in lines[0]:
            self.skipTest("no TLB knee within 256 pages on this machine")
        self.assertTrue(re.search(r"\(sharp knee|, midpoint\)", lines[0]), lines[0])


if __name__ == "__main__":
    membench_test.main()
