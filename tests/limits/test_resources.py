"""Missing resources: not enough memory, unknown LLC size, unwritable output."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import run  # noqa: E402

NO_CACHES = {"HWLOC_SYNTHETIC": "pack:1 core:2 pu:1"}


class MemoryTest(membench_test.MembenchTestCase):
    """Arrays larger than MemAvailable exit 3 before allocating."""

    def test_too_large_exits_3(self):
        """--size 100TiB: exit 3, one line naming MemAvailable and --size."""
        self.assert_error(["--size", "100TiB"], 3, ["MemAvailable", "--size"])

    def test_too_large_dry_run_exits_3(self):
        """--dry-run checks memory too."""
        self.assert_error(["--size", "100TiB", "--dry-run"], 3, ["MemAvailable", "--size"])

    def test_too_large_in_a_list_exits_3(self):
        """One impossible size in a sweep fails the whole command before measuring."""
        start = time.monotonic()
        self.assert_error(["--size", "2000000,100TiB", "-n", "3"], 3,
                          ["MemAvailable", "--size"])
        self.assertLess(time.monotonic() - start, 10)


    def test_acceptance_too_large_names_a_remedy_it_allows(self):
        """The acceptance profile refuses --size: out of memory, its remedy is memory or a run
        without the profile, never "choose a smaller --size" alone."""
        env = {"HWLOC_SYNTHETIC": "pack:1 l3:1(size=1TB) core:2 pu:1"}
        rc, out, err = run(["--acceptance", "--dry-run"], env)
        self.assertEqual(rc, 3, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertIn("free memory on the node", lines[0])
        self.assertIn("run without --acceptance and choose a smaller --size", lines[0])


class OutputTest(membench_test.MembenchTestCase):
    """An unwritable -o fails fast, before any measurement."""

    def test_unwritable_output_exits_2_fast(self):
        """-o /nonexistent/dir/out.json: exit 2 naming the path, well under a real run."""
        path = "/nonexistent/dir/out.json"
        start = time.monotonic()
        # A default-sized run would take many seconds; failing early is fast.
        self.assert_error(["-o", path, "--format", "json"], 2, [path])
        self.assertLess(time.monotonic() - start, 5)
        self.assertFalse(os.path.exists("/nonexistent"))


class UnknownCacheTest(membench_test.MembenchTestCase):
    """A topology without caches: the default size cannot be computed."""

    def test_no_llc_dry_run_exits_3(self):
        """No --size: exit 3 saying the last-level cache is unknown, suggesting --size."""
        self.assert_error(["--dry-run"], 3, ["last-level cache", "unknown", "--size"],
                          env_extra=NO_CACHES)

    def test_no_llc_real_run_exits_3(self):
        """Without --dry-run the same check applies."""
        self.assert_error([], 3, ["last-level cache", "unknown", "--size"],
                          env_extra=NO_CACHES)

    def test_no_llc_explicit_bytes_ok(self):
        """--size 1GiB needs no LLC: the plan is made (exit 0)."""
        doc = self.run_json(["--size", "1GiB", "--dry-run"], env_extra=NO_CACHES)
        self.assertEqual(doc["runs"][0]["config"]["array_elements"], 1024 ** 3 // 8)
        self.assertIsNone(doc["system"]["llc_count"])
        self.assertIsNone(doc["system"]["llc_bytes_total"])  # unknown, not zero
        self.assertEqual(doc["system"]["llc_source"], "unknown")

    def test_no_llc_text_dry_run_ok(self):
        """The text plan also works with an explicit byte size."""
        rc, out, err = run(["--size", "1GiB", "--dry-run"], env_extra=NO_CACHES)
        self.assertEqual(rc, 0, membench_test.describe(["--size", "1GiB"], rc, out, err))
        self.assertIn("Array size = 134217728", out)

    def test_no_llc_multiple_of_llc_exits_3(self):
        """--size 4xLLC cannot be resolved: exit 3."""
        self.assert_error(["--size", "4xLLC", "--dry-run"], 3,
                          ["4xLLC", "last-level cache", "unknown"], env_extra=NO_CACHES)


if __name__ == "__main__":
    membench_test.main()
