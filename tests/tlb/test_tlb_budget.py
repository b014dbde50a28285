"""The TLB probe's memory and time (docs/tlb.md, "Memory and time"): the header of every plan
states what each part maps and about how long it takes; the default plan stays under 10% of
MemAvailable, a small one (MEMBENCH_TEST_MEM_AVAILABLE, membench-hooked) shortens the 2 MB
sweep with a NOTE naming --tlb-max-pages, an explicit --tlb-max-pages goes past the share and
says so. Dry runs only: nothing is mapped or timed, so nothing here depends on this machine's
speed."""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

PLAN = ["--tlb", "--dry-run"]
GIB = 1 << 30
SHARE = 0.10


def small_machine(gib):
    """MemAvailable counted as gib GiB (membench-hooked)."""
    return {"MEMBENCH_TEST_MEM_AVAILABLE": str(int(gib * GIB))}


def parts(cost):
    return {p["part"]: p for p in cost["parts"]}


class DefaultPlanTest(membench_test.MembenchTestCase):
    """The default plan on this machine: within the share, every part stated."""

    def test_within_the_share(self):
        """Its peak stays under 10% of the basis; the parts add up to it."""
        cost = self.run_json(PLAN)["tlb"]["cost"]
        self.assertEqual(cost["share"], SHARE)
        self.assertFalse(cost["explicit_size"])
        if cost["basis_bytes"] is None:
            self.skipTest("MemAvailable unknown here: nothing to bound by")
        self.assertEqual(cost["bound_bytes"], int(SHARE * cost["basis_bytes"]))
        self.assertLessEqual(cost["peak_bytes"], cost["bound_bytes"])
        p = parts(cost)
        beside = max(p[k]["bytes"] for k in ("huge_sweep", "walk_throughput") if k in p)
        self.assertEqual(cost["peak_bytes"], p["sweep"]["bytes"] + beside)
        for part in cost["parts"]:
            self.assertGreater(part["bytes"], 0)
            self.assertGreater(part["seconds_estimate"], 0)
            self.assertAlmostEqual(part["share_of_basis"], part["bytes"] / cost["basis_bytes"])
        self.assertAlmostEqual(cost["seconds_estimate"],
                               sum(x["seconds_estimate"] for x in cost["parts"]), places=6)
        self.assertIn("not measured", cost["estimate_basis"])

    def test_header_states_memory_and_time(self):
        """The text header: the peak and its share, then each part's bytes, share and time."""
        out, _ = self.run_ok(PLAN)
        self.assertRegex(out, r"Memory and time: maps up to [0-9.]+ [KMG]iB at once "
                              r"\([0-9.]+% of (MemAvailable|the memory cgroup's headroom) "
                              r"[0-9.]+ [KMG]iB; the default plan stays under 10%\), about "
                              r"\d+ s in all \(estimated\):")
        self.assertRegex(out, r"\n  4 KB sweep to \d+ pages \(4k\): [0-9.]+ [KMG]iB "
                              r"\([0-9.]+%\), about \d+ s\n")
        self.assertRegex(out, r"\n  page-walk throughput \(4k, thp\), 32768 pages per backing "
                              r"and thread: 256.0 MiB \([0-9.]+%\), about \d+ s\n")


class SmallMachineTest(membench_test.MembenchTestCase):
    """A small MemAvailable: the 2 MB sweep, then the throughput phase, then the 4 KB sweep
    give way; below the shortest useful sweep, exit 3."""

    def test_2mb_sweep_shortened_with_a_note(self):
        """4 GiB: 409.6 MiB may be mapped; the 2 MB sweep gets what the 4 KB sweep leaves."""
        doc = self.run_json(PLAN, env_extra=small_machine(4))
        cost = doc["tlb"]["cost"]
        self.assertEqual(cost["basis_bytes"], 4 * GIB)
        self.assertLessEqual(cost["peak_bytes"], cost["bound_bytes"])
        huge = parts(cost)["huge_sweep"]
        fit = (cost["bound_bytes"] - parts(cost)["sweep"]["bytes"]) // (2 << 20)
        self.assertEqual(huge["pages"], fit)
        self.assertLess(huge["pages"], 4096)
        self.assertEqual(doc["tlb"]["config"]["max_huge_pages"], huge["pages"])
        self.assertIn("the 2 MB sweep stops at %d pages, not 4096" % fit, cost["note"])
        self.assertIn("--tlb-max-pages", cost["note"])
        text, _ = self.run_ok(PLAN, env_extra=small_machine(4))
        note = [ln for ln in text.splitlines() if ln.startswith("NOTE: ")]
        self.assertEqual(len(note), 1, text)
        self.assertIn("--tlb-max-pages N", note[0])
        self.assertIn("10% of MemAvailable 4.0 GiB", note[0])

    def test_throughput_phase_left_out_then_the_4kb_sweep_shortened(self):
        """1 GiB: no room for the throughput phase's 256 MiB; the 4 KB sweep is cut too, keeping
        the stride probe's room beside it (a few MiB that size the L2 TLB)."""
        doc = self.run_json(PLAN, env_extra=small_machine(1))
        cost = doc["tlb"]["cost"]
        self.assertEqual(set(parts(cost)), {"sweep", "stride_probe"})
        self.assertLessEqual(parts(cost)["sweep"]["bytes"] + parts(cost)["stride_probe"]["bytes"],
                             cost["bound_bytes"])
        self.assertLess(parts(cost)["sweep"]["pages"], 32768)
        self.assertGreaterEqual(parts(cost)["sweep"]["pages"], 8192)
        self.assertLessEqual(cost["peak_bytes"], cost["bound_bytes"])
        self.assertEqual(doc["tlb"]["config"]["max_pages"], parts(cost)["sweep"]["pages"])
        self.assertIn("page-walk throughput phase is left out", cost["note"])

    def test_explicit_max_pages_goes_past_the_share_and_says_so(self):
        """--tlb-max-pages is the user's: honoured beyond the share, and stated."""
        cost = self.run_json(PLAN + ["--tlb-max-pages", "32768"],
                             env_extra=small_machine(4))["tlb"]["cost"]
        self.assertTrue(cost["explicit_size"])
        self.assertGreater(cost["peak_bytes"], cost["bound_bytes"])
        self.assertGreater(parts(cost)["huge_sweep"]["pages"], 200)
        self.assertRegex(cost["note"], r"^--tlb-max-pages 32768: the probe maps up to "
                                       r"[0-9.]+ [KMG]iB, \d+% of MemAvailable 4.0 GiB, beyond "
                                       r"the default plan's 10% \(as asked\)$")

    def test_too_small_for_the_shortest_sweep(self):
        """200 MB: not even 8192 pages fit in 20 MB: exit 3, one line, the fixes named."""
        self.assert_error_matching(
            PLAN, 3, re.escape("its shortest useful sweep (8192 pages") +
            r".*MemAvailable.*--tlb-max-pages 8192.*--tlb-pages N",
            env_extra={"MEMBENCH_TEST_MEM_AVAILABLE": "200000000"})


if __name__ == "__main__":
    membench_test.main()
