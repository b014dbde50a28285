# ctest: LABELS hugetlb emulation threads races
"""The TLB probe beside other threads of membench: --tlb --threads N (every placed thread at
once, each on its own pages) and --tlb after a STREAM run. The single-thread probe is
test_tlb.py's; these are the cases where membench's own threads run at once (ThreadSanitizer's
job runs only these)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402


class ThreadsTest(membench_test.MembenchTestCase):
    """--tlb --threads N: every placed thread at once, each on its own pages."""

    def test_two_threads(self):
        """Per-thread sweeps and levels, and an aggregate throughput over both threads."""
        membench_test.skip_unless_cpus(self, 2, " for two pinned threads")
        doc = self.run_json(["--tlb", "--threads", "2", "--tlb-max-pages", "128",
                             "--repeat", "1"])
        tlb = doc["tlb"]
        self.assertTrue(tlb["config"]["multi_thread"])
        self.assertEqual(len(tlb["threads"]), 2)
        pus = {t["pu"] for t in tlb["threads"]}
        self.assertEqual(len(pus), 2)
        for t in tlb["threads"]:
            self.assertTrue(t["bound"])
            self.assertGreaterEqual(len(t["sweep"]["points"]), 14)
            self.assertIsInstance(t["differs"], bool)
            # a thread that differs is named, with its PU, and what it was compared with
            if t["differs"]:
                self.assertIn(t["differs_from"], ("documented", "threads_median"))
                self.assertIn("thread %d (PU %d): %s" % (t["thread"], t["pu"], t["why_differs"]),
                              tlb["threads_note"])
            else:
                self.assertIsNone(t["differs_from"])
        # two threads have no median to tell them apart: only the documented size names one
        for t in tlb["threads"]:
            self.assertNotEqual(t["differs_from"], "threads_median")
        self.assertEqual(tlb["walk_throughput"][0]["threads"], 2)
        self.assertFalse(tlb["huge"]["measured"])
        # the stride probe runs on thread 0 for every thread (here the short sweep may find no
        # level to probe); where it ran, it names how many threads took its index
        sets = tlb["sets"]
        self.assertNotIn("--threads", sets["why"] or "")
        if sets["run"]:
            self.assertIn(sets["threads"], (0, 1, 2))
        else:
            self.assertIsNone(sets["threads"])


class StreamAndProbeTest(membench_test.MembenchTestCase):
    """STREAM's team and the probe in one run."""

    def test_with_stream_kernels(self):
        """--triad --tlb runs both: one STREAM run and the probe."""
        doc = self.run_json(["--triad", "--size", "2000000", "-n", "3", "--tlb", "--tlb-pages",
                             "32", "--repeat", "2"])
        self.assertEqual(len(doc["runs"]), 1)
        self.assertEqual([r["kernel"] for r in doc["runs"][0]["results"]], ["Triad"])
        self.assertEqual(doc["tlb"]["points"][0]["pages"], 32)



if __name__ == "__main__":
    membench_test.main()
