# ctest: LABELS hugetlb
"""Page backings (--pages), the huge page pool checks, HUGETLB_MORECORE, hugectl and A/B.

Tests that need huge pages skip, with the reason, when the machine has too few free; .ci/run
reserves a small 2 MB pool so that they run in CI.
"""

import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import describe, hugepage_pool, run, thp_mode  # noqa: E402

MIB = 1 << 20
#: Small real runs: 3 x 8 MiB arrays = 12 huge pages of 2 MiB.
SMALL = ["--size", "8MiB", "-n", "3"]
#: Free 2 MB pages wanted before trying hugetlb runs (12 needed, with room to spare).
POOL_WANTED = 40
KERNELS = ["Copy", "Scale", "Add", "Triad"]


def skip_unless_2m_pool(test):
    pool = hugepage_pool(2048)
    if pool is None:
        test.skipTest("this kernel has no 2 MB huge page pool")
    if pool["available"] < POOL_WANTED:
        test.skipTest("only %d free 2 MB huge pages, want %d: echo 64 > "
                      "/proc/sys/vm/nr_hugepages (as root) to run this test"
                      % (pool["available"], POOL_WANTED))


def skip_unless_thp(test):
    mode = thp_mode()
    if mode in (None, "never"):
        test.skipTest("transparent huge pages are %s here"
                      % ("absent" if mode is None else "'never'"))


def stderr_split(err):
    """(notes, warnings, errors) among membench's stderr lines; asserts nothing else is there."""
    notes, warnings, errors, other = [], [], [], []
    for line in err.splitlines():
        if line.startswith("membench: note: "):
            notes.append(line)
        elif line.startswith("membench: warning: "):
            warnings.append(line)
        elif line.startswith("membench: "):
            errors.append(line)
        else:
            other.append(line)
    return notes, warnings, errors, other


class BackingTest(membench_test.MembenchTestCase):
    """Each backing gives the pages it names, verified in /proc/self/smaps."""

    def backing(self, pages, env_extra=None):
        doc = self.run_json(["--pages", pages] + SMALL, env_extra=env_extra)
        self.assertEqual(len(doc["runs"]), 1)
        run0 = doc["runs"][0]
        self.assertEqual(run0["config"]["pages"], pages)
        self.assertIs(run0["validation"]["passed"], True)
        return run0

    def test_4k(self):
        """--pages 4k: 4096-byte pages, no THP, verified."""
        run0 = self.backing("4k")
        b = run0["backing"]
        self.assertEqual(b["page_size_bytes"], 4096)
        self.assertIs(b["verified"], True)
        self.assertEqual(b["anon_huge_bytes"], 0)
        self.assertEqual(b["thp_fraction"], 0.0)
        self.assertIsNone(b["mismatch"])
        self.assertIn("MADV_NOHUGEPAGE", b["how"])
        self.assertEqual(run0["config"]["pages_from"], "--pages")

    def test_thp(self):
        """--pages thp: 2 MiB transparent huge pages covering the arrays, verified."""
        skip_unless_thp(self)
        membench_test.skip_under_emulation(self, membench_test.NO_THP)
        b = self.backing("thp")["backing"]
        self.assertIs(b["verified"], True)
        self.assertEqual(b["thp_fraction"], 1.0, b)
        self.assertEqual(b["page_size_bytes"], 2 * MIB)
        self.assertGreaterEqual(b["anon_huge_bytes"], 3 * 8 * MIB)
        self.assertIn("MADV_HUGEPAGE", b["how"])

    def test_2m(self):
        """--pages 2m: hugetlb 2 MiB pages from the pool, verified; how names the call."""
        skip_unless_2m_pool(self)
        membench_test.skip_under_emulation(self, membench_test.NO_HUGETLB)
        b = self.backing("2m")["backing"]
        self.assertIs(b["verified"], True)
        self.assertEqual(b["page_size_bytes"], 2 * MIB)
        self.assertGreaterEqual(b["hugetlb_bytes"], 3 * 8 * MIB)
        self.assertEqual(b["anon_huge_bytes"], 0)
        self.assertTrue("MAP_HUGETLB" in b["how"] or "get_huge_pages" in b["how"], b["how"])

    def test_2m_text(self):
        """The text report's Pages: line names the verified page size."""
        membench_test.skip_under_emulation(self, membench_test.NO_HUGETLB)
        skip_unless_2m_pool(self)
        out, _ = self.run_ok(["--pages", "2m"] + SMALL)
        self.assertRegex(out, r"(?m)^Pages: 2m -> 2\.0 MiB pages, verified in /proc/self/smaps; ")

    def test_default(self):
        """--pages default: whatever the system gives, verified."""
        b = self.backing("default")["backing"]
        self.assertIs(b["verified"], True)
        self.assertIn(b["page_size_bytes"], (4096, 2 * MIB))

    def test_quiet_names_pages(self):
        """-q: one line per run, naming the backing."""
        out, _ = self.run_ok(["--pages", "4k", "-q"] + SMALL)
        self.assertEqual(len(out.splitlines()), 1)
        self.assertIn(" pages=4k ", out)


class PoolTest(membench_test.MembenchTestCase):
    """Too few huge pages: exit 3 before measuring, one line with the numbers and the remedy."""

    def exhausted_args(self, pool):
        # 3 arrays of (available // 3 + 1) pages each: just more than the pool can give.
        per_array = pool["available"] // 3 + 1
        return ["--pages", "2m", "--size", "%dMiB" % (2 * per_array), "-n", "3"], 3 * per_array

    def test_exhausted_2m_pool(self):
        """--size just above the free pool: exit 3 naming needed vs available and the remedy."""
        pool = hugepage_pool(2048)
        if pool is None:
            self.skipTest("this kernel has no 2 MB huge page pool")
        args, needed = self.exhausted_args(pool)
        target = pool["nr_hugepages"] + needed - pool["available"]
        words = ["--pages 2m", "the 2 MiB hugetlb pool has too few free pages",
                 "%d needed, %d available" % (needed, pool["available"]), "hugepages-2048kB",
                 "hugeadm --pool-pages-min 2MB:%d" % target]
        if membench_test.default_hugepage_kb() == 2048:
            words.append("echo %d > /proc/sys/vm/nr_hugepages" % target)
        self.assert_error(args, 3, words)
        self.assert_error(args + ["--dry-run"], 3, words)  # the plan checks the pool too

    def test_exhausted_pool_in_a_list_fails_before_measuring(self):
        """--pages 4k,2m with too few pages for 2m: exit 3, no 4k run is measured first."""
        pool = hugepage_pool(2048)
        if pool is None:
            self.skipTest("this kernel has no 2 MB huge page pool")
        args, _ = self.exhausted_args(pool)
        args[1] = "4k,2m"
        self.assert_error(args, 3, ["--pages 2m", "hugetlb pool has too few free pages"])

    def test_1g_without_pages(self):
        """--pages 1g with no free 1 GiB page: exit 3 naming the boot parameters."""
        pool = hugepage_pool(1048576)
        if pool is not None and pool["available"] > 0:
            self.skipTest("this machine has %d free 1 GiB pages" % pool["available"])
        if pool is None:
            words = ["--pages 1g", "no 1 GiB hugetlb pool", "pdpe1gb", "--pages 2m"]
        else:
            words = ["--pages 1g", "the 1 GiB hugetlb pool has too few free pages",
                     "1 needed, 0 available",
                     "default_hugepagesz=1G hugepagesz=1G hugepages=%d"
                     % (pool["nr_hugepages"] + 1), "hugepages-1048576kB/nr_hugepages"]
        self.assert_error(["--pages", "1g"] + SMALL, 3, words)
        self.assert_error(["--pages", "1g", "--dry-run"] + SMALL, 3, words)


class VerificationTest(membench_test.MembenchTestCase):
    """Pages other than those asked for fail the run loudly (exit 1)."""

    HOOK = {"MEMBENCH_TEST_VERIFY_AS": "2m"}  # membench-hooked judges 4 KiB as if 2 MiB asked

    def test_mismatch_fails(self):
        args = ["--pages", "4k"] + SMALL
        rc, out, err = run(args, env_extra=self.HOOK)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 1, msg)
        notes, _, errors, other = stderr_split(err)
        self.assertEqual(other, [], msg)
        self.assertEqual(len(errors), 1, msg)
        self.assertIn("asked for 2 MiB pages", errors[0])
        self.assertIn("KernelPageSize 4 KiB", errors[0])
        self.assertIn("Pages: 4k -> NOT VERIFIED", out)

    def test_mismatch_json(self):
        args = ["--pages", "4k", "--format", "json"] + SMALL
        rc, out, err = run(args, env_extra=self.HOOK)
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        b = json.loads(out)["runs"][0]["backing"]
        self.assertIs(b["verified"], False)
        self.assertEqual(b["page_size_bytes"], 4096)  # what really backs the arrays
        self.assertIn("asked for 2 MiB pages", b["mismatch"])


class MorecoreTest(membench_test.MembenchTestCase):
    """HUGETLB_MORECORE (hugectl --heap) is honoured by membench itself, with a note."""

    def test_morecore_yes_picks_2m(self):
        skip_unless_2m_pool(self)
        membench_test.skip_under_emulation(self, membench_test.NO_HUGETLB)
        args = SMALL + ["--format", "json"]
        rc, out, err = run(args, env_extra={"HUGETLB_MORECORE": "yes"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 0, msg)
        notes, _, errors, other = stderr_split(err)
        self.assertEqual((errors, other), ([], []), msg)
        self.assertEqual(len(notes), 1, msg)
        self.assertIn("HUGETLB_MORECORE=yes", notes[0])
        self.assertIn("--pages 2m", notes[0])
        doc = json.loads(out)
        r = doc["runs"][0]
        self.assertEqual(r["config"]["pages"], "2m")
        self.assertEqual(r["config"]["pages_from"], "HUGETLB_MORECORE")
        self.assertEqual(r["backing"]["page_size_bytes"], 2 * MIB)
        self.assertIs(r["backing"]["verified"], True)
        self.assertEqual(doc["system"]["hugepages"]["hugetlb_morecore"], "yes")

    def test_morecore_thp_picks_thp(self):
        skip_unless_thp(self)
        doc = self.run_json(SMALL, env_extra={"HUGETLB_MORECORE": "thp"})
        self.assertEqual(doc["runs"][0]["config"]["pages"], "thp")
        self.assertIs(doc["runs"][0]["backing"]["verified"], True)

    def test_explicit_pages_win(self):
        args = ["--pages", "4k", "--format", "json"] + SMALL
        rc, out, err = run(args, env_extra={"HUGETLB_MORECORE": "yes"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 0, msg)
        notes, _, _, _ = stderr_split(err)
        self.assertEqual(notes, ["membench: note: --pages 4k overrides HUGETLB_MORECORE=yes"], msg)
        r = json.loads(out)["runs"][0]
        self.assertEqual(r["config"]["pages"], "4k")
        self.assertEqual(r["config"]["pages_from"], "--pages")

    def test_morecore_with_exhausted_pool(self):
        """The backing the variable chose is checked like --pages: note, then exit 3."""
        pool = hugepage_pool(2048)
        if pool is None:
            self.skipTest("this kernel has no 2 MB huge page pool")
        per_array = pool["available"] // 3 + 1
        args = ["--size", "%dMiB" % (2 * per_array), "-n", "3"]
        rc, out, err = run(args, env_extra={"HUGETLB_MORECORE": "yes"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 3, msg)
        self.assertEqual(out, "", msg)
        notes, _, errors, other = stderr_split(err)
        self.assertEqual(len(notes), 1, msg)
        self.assertEqual(len(errors), 1, msg)
        self.assertIn("nr_hugepages", errors[0])

    def test_morecore_no_changes_nothing(self):
        doc = self.run_json(SMALL, env_extra={"HUGETLB_MORECORE": "no"})
        self.assertEqual(doc["runs"][0]["config"]["pages"], "default")
        self.assertEqual(doc["runs"][0]["config"]["pages_from"], "default")

    def test_glibc_tunable_reported(self):
        """GLIBC_TUNABLES glibc.malloc.hugetlb: a note and a JSON field; backing unchanged."""
        args = SMALL + ["--format", "json"]
        env = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
        rc, out, err = run(args, env_extra=env)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 0, msg)
        notes, _, _, _ = stderr_split(err)
        self.assertEqual(len(notes), 1, msg)
        self.assertIn("glibc.malloc.hugetlb=1", notes[0])
        self.assertIn("--pages thp", notes[0])
        doc = json.loads(out)
        self.assertEqual(doc["system"]["hugepages"]["glibc_malloc_hugetlb"], "1")
        self.assertEqual(doc["runs"][0]["config"]["pages"], "default")

    def test_no_variables_no_notes(self):
        doc = self.run_json(["--dry-run"] + SMALL)
        self.assertIsNone(doc["system"]["hugepages"]["hugetlb_morecore"])
        self.assertIsNone(doc["system"]["hugepages"]["glibc_malloc_hugetlb"])


class HugectlTest(membench_test.MembenchTestCase):
    """hugectl --heap ./membench: libhugetlbfs preloaded, heap mode requested."""

    HUGECTL = shutil.which("hugectl")

    def setUp(self):
        super().setUp()
        if not self.HUGECTL:
            self.skipTest("hugectl not installed (Debian: libhugetlbfs-bin)")
        skip_unless_2m_pool(self)
        membench_test.skip_under_emulation(self, "hugectl preloads the host's libhugetlbfs into "
                                           "the emulator, and " + membench_test.NO_HUGETLB)

    def run_hugectl(self, args):
        rc, out, err = run(args, wrapper=[self.HUGECTL, "--heap"])
        msg = describe(["hugectl", "--heap"] + args, rc, out, err)
        self.assertEqual(rc, 0, msg)
        notes, _, errors, other = stderr_split(err)
        # clean: libhugetlbfs prints nothing, membench one note
        self.assertEqual((errors, other), ([], []), msg)
        self.assertEqual(len(notes), 1, msg)
        self.assertIn("HUGETLB_MORECORE=yes", notes[0])
        return out

    def test_hugectl_heap_json(self):
        doc = json.loads(self.run_hugectl(SMALL + ["--format", "json"]))
        r = doc["runs"][0]
        self.assertEqual(r["config"]["pages"], "2m")
        self.assertEqual(r["backing"]["page_size_bytes"], 2 * MIB)
        self.assertIs(r["backing"]["verified"], True)
        self.assertIs(r["validation"]["passed"], True)

    def test_hugectl_heap_dry_run(self):
        out = self.run_hugectl(SMALL + ["--dry-run"])
        self.assertIn("Pages: 2m (from HUGETLB_MORECORE); dry run: not allocated", out)
        self.assertIn("Huge page variables: HUGETLB_MORECORE=yes", out)


class ABTest(membench_test.MembenchTestCase):
    """--pages A,B: one run each, then each kernel's change against the first value."""

    LINE = r"(?m)^Comparison %s vs %s: %s [+-]\d+\.\d%%$"

    def check_text(self, pages):
        out, _ = self.run_ok(["--pages", ",".join(pages)] + SMALL)
        self.assertIn("Page backing A/B: best rates relative to --pages %s" % pages[0], out)
        for variant in pages[1:]:
            for k in KERNELS:
                self.assertRegex(out, self.LINE % (variant, pages[0], k))

    def test_4k_2m_text(self):
        skip_unless_2m_pool(self)
        membench_test.skip_under_emulation(self, membench_test.NO_HUGETLB)
        self.check_text(["4k", "2m"])

    def test_4k_thp_text(self):
        skip_unless_thp(self)
        self.check_text(["4k", "thp"])

    def test_json_comparisons(self):
        skip_unless_thp(self)
        doc = self.run_json(["--pages", "thp,4k", "--triad", "--copy"] + SMALL)
        self.assertEqual([r["config"]["pages"] for r in doc["runs"]], ["thp", "4k"])
        comps = doc["comparisons"]
        self.assertEqual([c["kernel"] for c in comps], ["Copy", "Triad"])
        for c in comps:
            self.assertEqual(set(c), {"kernel", "baseline", "variant", "baseline_pages",
                                      "variant_pages", "relative_change"})
            self.assertEqual((c["baseline"], c["variant"]), (0, 1))
            self.assertEqual((c["baseline_pages"], c["variant_pages"]), ("thp", "4k"))
            rate = {r["config"]["pages"]: {x["kernel"]: x["best_rate_mbps"] for x in r["results"]}
                    for r in doc["runs"]}
            want = rate["4k"][c["kernel"]] / rate["thp"][c["kernel"]] - 1
            self.assertAlmostEqual(c["relative_change"], want, places=6)

    def test_one_backing_no_comparisons(self):
        doc = self.run_json(["--pages", "4k"] + SMALL)
        self.assertEqual(doc["comparisons"], [])
        out, _ = self.run_ok(["--pages", "4k"] + SMALL)
        self.assertNotIn("A/B", out)

    def test_sweep_pairs_by_thread_count(self):
        """--threads 1,2 --pages 4k,thp: each thp run is compared with the 4k run of its
        thread count, and the text names the runs."""
        skip_unless_thp(self)
        out, _ = self.run_ok(["--pages", "4k,thp", "--threads", "1,2", "--triad"] + SMALL)
        self.assertRegex(out, r"(?m)^Comparison thp vs 4k: Triad [+-]\d+\.\d% \(run 3 vs run 1\)$")
        self.assertRegex(out, r"(?m)^Comparison thp vs 4k: Triad [+-]\d+\.\d% \(run 4 vs run 2\)$")


if __name__ == "__main__":
    re.compile(ABTest.LINE)  # fail early on a broken pattern
    membench_test.main()
