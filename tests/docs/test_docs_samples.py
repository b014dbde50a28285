"""The docs' samples of program output are the program's output: every fenced block of
README.md and docs/*.md that is not shell commands is either marked as a sample with the
command it shows (tests/lib/doc_samples.py: the marker, the masks) or says why it is not
output; each sample's command (or its smaller `check:` command) is run here and compared line
by line, numbers masked. Samples marked `slow:` are checked with MEMBENCH_DOCS_SLOW=1 (and by
tests/docs/update_doc_samples.py --check); tests/docs/update_doc_samples.py rewrites them all
from real runs, and records the machine (doc_samples_machine.txt): the samples name its
hardware, so they are compared on that machine only (elsewhere the test skips, saying so)."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
import doc_samples  # noqa: E402



class DocsSamplesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.samples, cls.not_output, cls.unmarked = doc_samples.samples()
        cls.scratch = doc_samples.scratch()

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def test_every_output_block_is_a_sample_or_says_why_not(self):
        self.assertEqual(self.unmarked, [], "fenced blocks with neither <!-- sample: ... --> "
                         "nor <!-- not output: why -->")
        for sample in self.samples:
            self.assertTrue(sample.command, "%s: a sample marker without its command"
                            % sample.where)
            self.assertTrue(sample.body(), sample.where)
        for where, why in self.not_output:
            self.assertTrue(why.strip(), "%s: not output, but no reason" % where)

    def test_the_markers_cover_the_samples_the_issue_named(self):
        where = {(s.path, s.command.split()[-1] if s.command else "") for s in self.samples}
        paths = {s.path for s in self.samples}
        for doc in ("README.md", "docs/stream.md", "docs/acceptance.md", "docs/tlb.md",
                    "docs/latency.md", "docs/probes.md", "docs/output.md", "docs/numa.md",
                    "docs/placement.md"):
            self.assertIn(doc, paths)
        self.assertGreaterEqual(len(self.samples), 15, where)

    def test_the_comparison_catches_a_stale_line(self):
        """The masks are not so loose that a missing, extra or reworded line passes."""
        output = "Kernels: avx512, normal stores\nStores: normal (auto: whole repetitions " \
                 "on the first one ran 5.0 MB/s normal vs 4.0 nt)\nMemory: 100.0% of 48 pages\n"
        sample = ["Kernels: avx2, non-temporal stores -- a TUNED run under STREAM's rules",
                  "Stores: non-temporal (auto: whole repetitions on the first one ran 7.0 MB/s "
                  "nt vs 6.0 normal)", "Memory: 99.9% of 3120 pages"]
        self.assertIsNone(doc_samples.compare(sample, output))
        self.assertIsNotNone(doc_samples.compare(sample[:1] + sample[2:], output))
        self.assertIsNotNone(doc_samples.compare(sample + ["Memory: 1 page"], output))
        self.assertIsNotNone(doc_samples.compare(
            ["Kernels: avx512, stores chosen by measurement when run (auto)"] + sample[1:],
            output))
        self.assertIsNone(doc_samples.compare(["...", sample[2]], output))
        self.assertIsNotNone(doc_samples.compare([sample[2]], output))

    def test_a_value_not_measured_this_time_compares_as_a_value(self):
        """A loaded run may print '-' where the sample's run measured a number, unit or not."""
        sample = ["munmap, 1 sibling: +18.34 us per remote CPU, +18.34 us when the IPI was sent"]
        unmeasured = "munmap, 1 sibling: +43.09 us per remote CPU, - us when the IPI was sent\n"
        self.assertIsNone(doc_samples.compare(sample, unmeasured))
        self.assertIsNone(doc_samples.compare(["munmap 1 0 - 2.80 -"], "munmap 1 0 5 - 7.1\n"))
        self.assertIsNotNone(doc_samples.compare(sample, unmeasured.replace("when the IPI", "if the IPI")))

    def test_what_disturbed_a_run_is_not_a_difference(self):
        """Other work beside the check (ctest -j2, CI's neighbours) adds a block and likely
        causes of the moment; a configuration's cause is still compared."""
        sample = ["Summary: best rate per run, MB/s",
                  "cn03 1000.0 FAIL slow: Scale -80.0% vs median", "-----"]
        loaded = ("Summary: best rate per run, MB/s\ncn03 1000.0 FAIL slow: Scale -80.0% vs "
                  "median; likely: other work took 34% of the run's CPUs\n-----\n"
                  "What disturbed the measurement:\n  1. other work took 34% of the run's CPUs: "
                  "...\n     remedy: measure on an idle node\n")
        self.assertIsNone(doc_samples.compare(sample, loaded))
        configured = loaded.replace("other work took 34% of the run's CPUs\n-",
                                    "socket 0 channels F, J, L empty\n-")
        self.assertIsNotNone(doc_samples.compare(sample, configured))
        quiet = ["Verdict: INCONCLUSIVE", "Likely causes (verdict INCONCLUSIVE): none found in "
                 "the DIMMs, memory errors, CPU time, swap and settings read", "membench: end"]
        waited = ("Verdict: INCONCLUSIVE\nLikely causes, worst first (verdict INCONCLUSIVE):\n"
                  "  1. membench waited 6% of its time for a CPU: (schedstat)\n"
                  "     remedy: measure on an idle node\nmembench: end\n")
        self.assertIsNone(doc_samples.compare(quiet, waited))
        self.assertIsNotNone(doc_samples.compare(quiet, waited.replace(
            "membench waited 6% of its time for a CPU", "socket 0 channels F, J, L empty")))

    def test_every_sample_is_the_output_of_its_command(self):
        # The samples' words name the machine (its governor, clocksource, THP, pool, CPU
        # count, what the probes could run): they are checked on the one they were recorded on.
        here, recorded = doc_samples.machine(), doc_samples.recorded_machine()
        if here != recorded:
            self.skipTest("the samples were recorded on another machine (%s); this one is %s: "
                          "tests/docs/update_doc_samples.py rewrites them here" % (
                              recorded.strip().replace("\n", ", "),
                              here.strip().replace("\n", ", ")))
        if membench_test.USABLE_CPUS != membench_test.MACHINE_CPUS:
            self.skipTest("the samples were recorded using every CPU; this process may use %d "
                          "of %d (taskset, cpuset or cgroup)" % (membench_test.USABLE_CPUS,
                                                                 membench_test.MACHINE_CPUS))
        slow_too = os.environ.get("MEMBENCH_DOCS_SLOW") == "1"
        cache, checked = {}, 0
        for sample in self.samples:
            why = doc_samples.missing(sample)
            if not why and sample.fields.get("slow") and not slow_too:
                why = "slow (%s): MEMBENCH_DOCS_SLOW=1 checks it" % sample.fields["slow"]
            if why:
                sys.stderr.write("not checked %s: %s\n" % (sample.where, why))
                continue
            key = (sample.fields.get("setup"), sample.check_command)
            with self.subTest(where=sample.where, command=sample.check_command):
                if key not in cache:
                    if sample.fields.get("setup"):
                        doc_samples.run(sample.fields["setup"], self.scratch.name)
                    start = time.monotonic()
                    cache[key] = doc_samples.run(sample.check_command, self.scratch.name,
                                                 timeout=120)
                    if os.environ.get("DOCS_COMMANDS_TIMES"):
                        sys.stderr.write("%6.2f s %s\n" % (time.monotonic() - start,
                                                           sample.check_command))
                output, _ = cache[key]
                compare = doc_samples.compare_json if "json" in sample.fields \
                    else doc_samples.compare
                problem = compare(sample.body(), output, sample.small)
                self.assertIsNone(problem, "%s is not the output of `%s` (regenerate: "
                                  "tests/docs/update_doc_samples.py %s):\n%s" % (
                                      sample.where, sample.check_command, sample.path,
                                      problem))
                checked += 1
        self.assertGreater(checked, 0)


if __name__ == "__main__":
    membench_test.main()
