# ctest: LABELS emulation
"""A base page other than 4 KB (membench-hooked's MEMBENCH_TEST_PAGE_SIZE) with the huge page
sizes of a fake sysfs (MEMBENCH_TEST_SYS_ROOT): an arm64 kernel with 64 KB pages, whose PMD
(transparent huge page) is 512 MB and whose hugetlb sizes are 2 MB, 512 MB and 16 GB. What
membench says takes those sizes; what it cannot fake (the kernel here still maps its own pages)
it reports as unverified, never as the pages asked for."""

import os
import sys
import shutil
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import run, describe

PAGE_64K = "65536"


def fake_sysfs(root, pools_kb, pmd_bytes):
    mm = os.path.join(root, "kernel", "mm")
    os.makedirs(os.path.join(mm, "transparent_hugepage"))
    with open(os.path.join(mm, "transparent_hugepage", "enabled"), "w") as f:
        f.write("always [madvise] never\n")
    with open(os.path.join(mm, "transparent_hugepage", "hpage_pmd_size"), "w") as f:
        f.write("%d\n" % pmd_bytes)
    for kb in pools_kb:
        pool = os.path.join(mm, "hugepages", "hugepages-%dkB" % kb)
        os.makedirs(pool)
        for name in ("nr_hugepages", "free_hugepages", "resv_hugepages"):
            with open(os.path.join(pool, name), "w") as f:
                f.write("0\n")


class BasePagesTest(membench_test.MembenchTestCase):

    def setUp(self):
        super().setUp()
        self.root = tempfile.mkdtemp(prefix="membench-pages-")
        self.addCleanup(shutil.rmtree, self.root, True)

    def env(self, page=PAGE_64K, pools_kb=(524288, 16777216), pmd=512 << 20):
        fake_sysfs(self.root, pools_kb, pmd)
        return {"MEMBENCH_TEST_PAGE_SIZE": page, "MEMBENCH_TEST_SYS_ROOT": self.root}

    def test_header_names_the_base_page(self):
        out, _ = self.run_ok(["--dry-run", "-s", "100000"], env_extra=self.env())
        self.assertIn("Base page: 64 KB; transparent huge page (PMD): 512 MB\n", out)
        self.assertNotRegex(out, r"(?<!\d)4 KB")

    def test_16k_base_page(self):
        out, _ = self.run_ok(["--dry-run", "-s", "100000"],
                             env_extra=self.env(page="16384", pools_kb=(2048, 32768), pmd=32 << 20))
        self.assertIn("Base page: 16 KB; transparent huge page (PMD): 32 MB\n", out)

    def test_4k_says_nothing_new(self):
        """At 4 KB the header is as it always was (the goldens hold it)."""
        out, _ = self.run_ok(["--dry-run", "-s", "100000"],
                             env_extra=self.env(page="4096", pools_kb=(2048,), pmd=2 << 20))
        self.assertNotIn("Base page:", out)

    def test_tlb_plan_in_machine_sizes(self):
        # 32768 pages of 64 KB are 2 GiB: a machine with room for every part under the 10%
        # share (docs/tlb.md, "Memory and time"), not this one's MemAvailable
        env = dict(self.env(), MEMBENCH_TEST_MEM_AVAILABLE=str(64 << 30))
        out, _ = self.run_ok(["--tlb", "--dry-run"], env_extra=env)
        planned = [l for l in out.splitlines() if l.startswith("Planned:")]
        self.assertEqual(len(planned), 1, out)
        self.assertIn("page-walk throughput 64 KB vs 512 MB", planned[0])
        self.assertIn("512 MB sweep: ", planned[0])
        for line in out.splitlines():
            if "documented TLBs" in line:  # CPUID's own 4 KB / 2 MB entries
                continue
            self.assertNotRegex(line, r"(?<!\d)(4 KB|2 MB)", out)

    def test_2m_without_a_2mb_size_names_the_sizes_there(self):
        """No hugepages-2048kB: --faults-backing 2m exits 3 naming the sizes the kernel has."""
        self.assert_error(["--faults", "--faults-backing", "2m"], 3,
                          ["--faults-backing 2m", "no 2 MiB hugetlb pool",
                           "the hugetlb sizes here: 512 MB, 16 GB"],
                          env_extra=self.env())

    def test_faults_count_base_pages_and_stay_honest(self):
        """One byte per 64 KB page: 2 MiB is 32 pages. The kernel here maps its own pages, so
        the 4k row is not verified as 64 KB pages: exit 1, page size null, the reason given."""
        args = ["--faults", "--faults-backing", "4k", "--faults-size", "2", "--format", "json"]
        rc, out, err = run(args, self.env(), timeout=120)
        doc = membench_test.json.loads(out)
        faults = doc["faults"]
        self.assertEqual(faults["page_bytes"], 65536)
        row = faults["runs"][0]
        self.assertEqual(row["pages_touched"], 32)
        if os.sysconf("SC_PAGESIZE") == 65536:
            self.assertEqual(rc, 0, describe(args, rc, out, err))
            return
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        self.assertFalse(row["smaps"]["verified"])
        self.assertIsNone(row["smaps"]["page_size_bytes"])
        self.assertIn("asked for 64 KiB pages", err)
        self.assertIn("KernelPageSize 4 KiB", err)

    def test_bad_value(self):
        self.assert_error(["--dry-run"], 2, ["MEMBENCH_TEST_PAGE_SIZE", "4096, 16384 or 65536"],
                          env_extra={"MEMBENCH_TEST_PAGE_SIZE": "1000"})


if __name__ == "__main__":
    unittest.main()
