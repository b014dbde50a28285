# ctest: LABELS timing mpi
"""Verdicts with a confidence: a rate below its floor is INCONCLUSIVE (exit 5), not FAIL, when a
spread larger than the tolerance could explain it (the run's repetitions, or the reference's
own runs); a steady slow node still FAILs; --save-reference --reference-runs K saves the median
and the run-to-run spread; a tolerance of 100% or more is refused.

The rates come from MEMBENCH_TEST_RATES (the node looks slow on demand); the spread from
MEMBENCH_TEST_SLOW_REPETITION, which pads every timed repetition to 50 ms by sleeping (a steady
node, whatever the machine's speed or load) and makes one repetition FACTOR times that."""

import json
import os
import signal
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import run, describe  # noqa: E402
from cluster_case import MpiTestCase, mpi_env  # noqa: E402

#: One kernel on small arrays: the padded repetitions (50 ms) dwarf its own few milliseconds.
ARGS = ["--triad", "--size", "1000000", "-n", "4", "--stores", "normal"]
#: A tolerance that sleeping jitter never reaches (a 50 ms delay would be needed).
TOLERANCE = ["--tolerance", "50"]
GOOD = "*:triad=10000"     # the reference node
SLOW = "*:triad=4000"      # 60% below it: under the 5000 MB/s floor
BROKEN = "*:triad=1000"    # 90% below it: more than one slowed repetition explains
STEADY = "0"               # every repetition padded, none slowed
NOISY = "3:4"              # repetition 3 (the second timed one) 4x as long: a 75% spread
#: Three runs of a reference whose best rates spread 4.9%, within the default 5% tolerance.
WITHIN_5 = {"MEMBENCH_TEST_RATES": GOOD, "MEMBENCH_TEST_RUN_SCALE": "1,0.97,1.02"}


class ConfidenceCase(membench_test.ReferenceFileCase):
    """A reference saved on this node with Triad at 10000 MB/s, then checks against it."""

    def setUp(self):
        super().setUp()
        rc, out, err = run(ARGS + ["--save-reference", self.ref],
                           {"MEMBENCH_TEST_RATES": GOOD, "MEMBENCH_TEST_SLOW_REPETITION": STEADY})
        self.assertEqual(rc, 0, describe(ARGS, rc, out, err))

    def check(self, rates, repetitions, extra=(), status=None):
        """Runs against the reference; returns (rc, the JSON report, stderr)."""
        args = ARGS + TOLERANCE + ["--reference", self.ref, "--format", "json"] + list(extra)
        rc, out, err = run(args, {"MEMBENCH_TEST_RATES": rates,
                                  "MEMBENCH_TEST_SLOW_REPETITION": repetitions})
        if status is not None:
            self.assertEqual(rc, status, describe(args, rc, out, err))
        return rc, json.loads(out), err

    def triad(self, doc):
        checks = [c for c in doc["acceptance"]["checks"] if c["name"] == "Triad"]
        self.assertEqual(len(checks), 1, doc["acceptance"])
        return checks[0]

    def edit_ref(self, **keys):
        with open(self.ref) as f:
            doc = json.load(f)
        self.write_ref(membench_test.update_unsetting(doc, keys))


class RepetitionSpreadTest(ConfidenceCase):
    """The spread of the run's own repetitions decides whether a shortfall is noise."""

    def test_one_slow_repetition_makes_a_shortfall_inconclusive(self):
        rc, doc, err = self.check(SLOW, NOISY, status=5)
        self.assertEqual(doc["acceptance"]["verdict"], "INCONCLUSIVE")
        self.assertFalse(doc["acceptance"]["passed"])
        triad = self.triad(doc)
        self.assertEqual(triad["verdict"], "INCONCLUSIVE")
        self.assertFalse(triad["passed"])
        self.assertGreater(triad["repetition_spread_pct"], 60.0)
        self.assertIn("Triad varied", triad["why"])
        self.assertIn("more than the 50% tolerance", triad["why"])
        self.assertGreater(doc["runs"][0]["results"][0]["repetition_spread_pct"], 60.0)
        lines = [line for line in err.splitlines() if "INCONCLUSIVE" in line]
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^membench: INCONCLUSIVE: Triad varied \d+% across "
                                   r"repetitions, more than the 50% tolerance")
        self.assertNotIn("acceptance check failed", err)

    def test_the_same_slow_node_with_steady_repetitions_fails(self):
        rc, doc, err = self.check(SLOW, STEADY, status=1)
        self.assertEqual(doc["acceptance"]["verdict"], "FAIL")
        triad = self.triad(doc)
        self.assertEqual(triad["verdict"], "FAIL")
        self.assertLess(triad["repetition_spread_pct"], 50.0)
        self.assertIsNone(triad["why"])

    def test_a_shortfall_larger_than_the_spread_fails_however_noisy(self):
        rc, doc, err = self.check(BROKEN, NOISY, status=1)
        triad = self.triad(doc)
        self.assertGreater(triad["repetition_spread_pct"], 60.0)
        self.assertEqual(triad["verdict"], "FAIL")

    def test_a_noisy_run_at_its_rate_passes(self):
        rc, doc, err = self.check(GOOD, NOISY, status=0)
        self.assertEqual(doc["acceptance"]["verdict"], "PASS")
        self.assertEqual(self.triad(doc)["verdict"], "PASS")

    def test_text_shows_the_spread_and_the_verdict(self):
        args = ARGS + TOLERANCE + ["--reference", self.ref]
        rc, out, err = run(args, {"MEMBENCH_TEST_RATES": SLOW,
                                  "MEMBENCH_TEST_SLOW_REPETITION": NOISY})
        self.assertEqual(rc, 5, describe(args, rc, out, err))
        self.assertRegex(out, r"(?m)^INCONCLUSIVE Triad .*repetitions varied \d+%$")
        self.assertRegex(out, r"(?m)^Verdict: INCONCLUSIVE: Triad varied \d+% across "
                              r"repetitions, more than the 50% tolerance \(1 of \d+ checks")
        self.assertRegex(out, r"(?m)^     reference: Triad 10000\.0 MB/s, from 1 run")

    def test_a_failed_check_beside_an_inconclusive_one_fails(self):
        # Copy 90% below --expect's rate: more than its 75% spread explains, it fails
        rc, doc, err = self.check("*:triad=4000,copy=1000", NOISY,
                                  extra=["--copy", "--expect", "copy=10000"], status=1)
        self.assertEqual(doc["acceptance"]["verdict"], "FAIL")
        self.assertEqual(self.triad(doc)["verdict"], "INCONCLUSIVE")


class ReferenceRunsTest(ConfidenceCase):
    """A reference from K runs holds the median and the run-to-run spread of their best rates;
    a reference whose own runs varied more than the tolerance makes a shortfall inconclusive."""

    def test_k_runs_save_the_median_and_the_spread(self):
        args = ARGS + ["--save-reference", self.ref, "--reference-runs", "3", "--format", "json"]
        rc, out, err = run(args, WITHIN_5)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        with open(self.ref) as f:
            ref = json.load(f)
        self.assertEqual(ref["reference_runs"], 3)
        for got, want in zip(ref["run_rates_mbps"]["Triad"], [10000.0, 9700.0, 10200.0]):
            self.assertAlmostEqual(got, want, places=3)
        runs = ref["run_rates_mbps"]["Triad"]
        self.assertEqual(len(runs), 3)
        self.assertAlmostEqual(ref["rates_mbps"]["Triad"], statistics.median(runs), places=3)
        self.assertAlmostEqual(ref["run_spread_pct"]["Triad"],
                               100.0 * (max(runs) - min(runs)) / max(runs), places=6)
        report = json.loads(out)
        self.assertEqual(report["saved_reference"]["runs"], 3)
        saved = report["saved_reference"]["kernels"]["Triad"]
        self.assertEqual(len(saved["best_mbps"]), 3)
        for got, want in zip(saved["best_mbps"], runs):
            self.assertAlmostEqual(got, want, delta=1e-6 * want)
        self.assertAlmostEqual(saved["median_mbps"], ref["rates_mbps"]["Triad"],
                               delta=1e-6 * saved["median_mbps"])
        self.assertRegex(err, r"membench: note: reference %s: Triad [\d.]+ MB/s, median of 3 runs "
                              r"over [\d.]+ s, spread \d+%%" % self.ref)

    def test_runs_apart_record_their_pause_and_span(self):
        """--reference-interval S pauses S seconds between the K runs, so that their spread can
        see a node that drifts over minutes; the reference records the pause and the span."""
        args = ARGS + ["--save-reference", self.ref, "--reference-runs", "3",
                       "--reference-interval", "0.5", "--format", "json"]
        rc, out, err = run(args, WITHIN_5)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        with open(self.ref) as f:
            ref = json.load(f)
        self.assertEqual((ref["reference_runs"], ref["run_interval_s"]), (3, 0.5))
        self.assertGreaterEqual(ref["run_span_s"], 1.0)  # two pauses of 0.5 s at least
        saved = json.loads(out)["saved_reference"]
        self.assertEqual(saved["interval_s"], 0.5)
        self.assertAlmostEqual(saved["span_s"], ref["run_span_s"], places=6)
        self.assertRegex(err, r"median of 3 runs over [\d.]+ s, spread \d+%")

    def test_a_signal_during_the_pause_saves_nothing(self):
        """A pause of an hour ends at once on SIGTERM: no reference is written, exit 143."""
        args = ARGS + ["--save-reference", self.ref, "--reference-runs", "2",
                       "--reference-interval", "3600"]
        with open(self.ref) as f:
            before = f.read()
        proc, err = membench_test.start_paused(args, "reference pause 1")
        membench_test.resume(proc)
        proc.send_signal(signal.SIGTERM)
        out, rest = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 143, describe(args, proc.returncode, out, err + rest))
        with open(self.ref) as f:
            self.assertEqual(f.read(), before)
        self.assertIn("no reference", err + rest)

    def test_reference_interval_needs_reference_runs(self):
        self.assert_error(ARGS + ["--save-reference", self.ref, "--reference-interval", "5"], 2,
                          ["--reference-interval", "--reference-runs"])

    def test_one_run_is_still_a_reference_with_no_spread(self):
        with open(self.ref) as f:
            ref = json.load(f)
        self.assertEqual(ref["reference_runs"], 1)
        self.assertNotIn("run_spread_pct", ref)

    def test_a_noisy_reference_makes_a_shortfall_inconclusive(self):
        self.edit_ref(reference_runs=5, run_spread_pct={"Triad": 70.0})
        rc, doc, err = self.check(SLOW, STEADY, status=5)
        triad = self.triad(doc)
        self.assertEqual(triad["verdict"], "INCONCLUSIVE")
        self.assertEqual(triad["reference_runs"], 5)
        self.assertEqual(triad["reference_spread_pct"], 70.0)
        self.assertIn("the reference's own runs varied 70%, more than the 50% tolerance", err)
        self.assertIn("save it on a quiet node or widen --tolerance", err)

    def test_a_quiet_reference_leaves_the_shortfall_failed(self):
        self.edit_ref(reference_runs=5, run_spread_pct={"Triad": 10.0})
        rc, doc, err = self.check(SLOW, STEADY, status=1)
        self.assertEqual(self.triad(doc)["reference_spread_pct"], 10.0)
        args = ARGS + TOLERANCE + ["--reference", self.ref]
        rc, out, err = run(args, {"MEMBENCH_TEST_RATES": SLOW,
                                  "MEMBENCH_TEST_SLOW_REPETITION": STEADY})
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        self.assertRegex(out, r"(?m)^     reference: Triad 10000\.0 MB/s, median of 5 runs, "
                              r"spread 10%$")

    def test_an_older_reference_without_runs_is_judged_as_before(self):
        self.edit_ref(reference_runs=None, run_spread_pct=None)
        rc, doc, err = self.check(SLOW, STEADY, status=1)
        triad = self.triad(doc)
        self.assertIsNone(triad["reference_runs"])
        self.assertIsNone(triad["reference_spread_pct"])
        self.check(GOOD, STEADY, status=0)

    def test_a_bad_run_spread_is_refused(self):
        self.edit_ref(reference_runs=5, run_spread_pct={"Triad": 170.0})
        self.assert_error(ARGS + ["--reference", self.ref], 2, ["run_spread_pct", self.ref])
        self.edit_ref(reference_runs=50, run_spread_pct=None)
        self.assert_error(ARGS + ["--reference", self.ref], 2, ["reference_runs", "1 to 20"])


class NoisyReferenceTest(ConfidenceCase):
    """A reference whose own runs varied more than the tolerance cannot judge a node: saving one
    is refused (exit 5, nothing written) unless --tolerance accepts that much noise; judging with
    a narrower tolerance against one says so, also when the check passes."""

    #: The second of three runs at 55.4%: the runs' best rates spread 44.6%.
    SPREAD_45 = {"MEMBENCH_TEST_RATES": GOOD, "MEMBENCH_TEST_RUN_SCALE": "1,0.554,1"}

    def save(self, extra=()):
        args = ARGS + ["--save-reference", self.ref, "--reference-runs", "3"] + list(extra)
        rc, out, err = run(args, self.SPREAD_45)
        return args, rc, out, err

    def test_a_reference_from_noisy_runs_is_refused(self):
        with open(self.ref) as f:
            before = f.read()
        args, rc, out, err = self.save()
        self.assertEqual(rc, 5, describe(args, rc, out, err))
        with open(self.ref) as f:
            self.assertEqual(f.read(), before)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^membench: not saving a reference: its 3 runs varied 45% "
                                   r"\(Triad\), more than the 5% tolerance")
        self.assertIn("--tolerance 45", lines[0])
        self.assertIn("quiet", lines[0])
        self.assertIn("Triad", out)  # the report is still written

    def test_no_tolerance_is_offered_that_membench_would_refuse(self):
        env = dict(self.SPREAD_45, MEMBENCH_TEST_RUN_SCALE="1,0.004,1")
        args = ARGS + ["--save-reference", self.ref, "--reference-runs", "3"]
        rc, out, err = run(args, env)
        self.assertEqual(rc, 5, describe(args, rc, out, err))
        self.assertRegex(err, r"varied 100% \(Triad\).*quiet the node \(no other jobs\) and "
                              r"save again$")
        self.assertNotIn("--tolerance", err)

    def test_a_tolerance_that_accepts_the_noise_saves_it_with_its_spread(self):
        args, rc, out, err = self.save(["--tolerance", "45"])
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        with open(self.ref) as f:
            ref = json.load(f)
        self.assertAlmostEqual(ref["run_spread_pct"]["Triad"], 44.6, places=3)
        self.assertIn("spread 45%", err)

    def test_checking_against_a_noisy_reference_says_so_when_it_passes(self):
        self.edit_ref(reference_runs=5, run_spread_pct={"Triad": 70.0})
        rc, doc, err = self.check(GOOD, STEADY, status=0)
        note = self.triad(doc)["note"]
        self.assertIn("the reference's own runs varied 70%, more than the 50% tolerance", note)
        args = ARGS + TOLERANCE + ["--reference", self.ref]
        env = {"MEMBENCH_TEST_RATES": GOOD, "MEMBENCH_TEST_SLOW_REPETITION": STEADY}
        rc, out, err = run(args, env)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertRegex(out, r"(?m)^     note: Triad: the reference's own runs varied 70%")
        rc, out, err = run(args + ["-q"], env)
        self.assertRegex(out.splitlines()[-1], r"^PASS \d+ of \d+ checks passed; note: Triad: "
                                               r"the reference's own runs varied 70%")

    def test_a_quiet_reference_has_no_note(self):
        self.edit_ref(reference_runs=5, run_spread_pct={"Triad": 10.0})
        rc, doc, err = self.check(GOOD, STEADY, status=0)
        self.assertIsNone(self.triad(doc)["note"])


class StaleReferenceTest(ConfidenceCase):
    """A rate far above its reference passes, but says the reference may be stale."""

    FAST = "*:triad=17000"  # 70% above the reference, beyond the 50% tolerance

    def test_far_faster_than_the_reference_passes_with_a_note(self):
        rc, doc, err = self.check(self.FAST, STEADY, status=0)
        triad = self.triad(doc)
        self.assertEqual(triad["verdict"], "PASS")
        self.assertRegex(triad["note"], r"^Triad 70% above the reference's 10000\.0 MB/s: the "
                                        r"reference may be stale")
        args = ARGS + TOLERANCE + ["--reference", self.ref]
        env = {"MEMBENCH_TEST_RATES": self.FAST, "MEMBENCH_TEST_SLOW_REPETITION": STEADY}
        rc, out, err = run(args, env)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertRegex(out, r"(?m)^     note: Triad 70% above the reference's 10000\.0 MB/s")
        rc, out, err = run(args + ["-q"], env)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertRegex(out.splitlines()[-1], r"^PASS \d+ of \d+ checks passed; note: Triad "
                                               r"70% above the reference's")

    def test_far_above_an_expectation_is_not_questioned(self):
        """--expect is a floor a site chose, not a measurement that can go stale."""
        rc, doc, err = self.check(self.FAST, STEADY, extra=["--expect", "triad=10000"], status=0)
        self.assertIsNone(self.triad(doc)["note"])

    def test_within_the_tolerance_above_there_is_no_note(self):
        rc, doc, err = self.check("*:triad=14000", STEADY, status=0)
        self.assertIsNone(self.triad(doc)["note"])


#: What disturbed the run or the node's settings may follow the reason, named (a loaded machine's
#: other work, its NUMA balancing): the likely causes, tests/acceptance/test_causes.py.
LIKELY = r"(; likely: .+)?$"


class QuietReasonTest(ConfidenceCase):
    """-q keeps the verdict's reason on its last line."""

    def quiet(self, rates, repetitions, status):
        args = ARGS + TOLERANCE + ["--reference", self.ref, "-q"]
        rc, out, err = run(args, {"MEMBENCH_TEST_RATES": rates,
                                  "MEMBENCH_TEST_SLOW_REPETITION": repetitions})
        self.assertEqual(rc, status, describe(args, rc, out, err))
        return out.splitlines()[-1]

    def test_inconclusive_says_which_spread(self):
        self.assertRegex(self.quiet(SLOW, NOISY, 5),
                         r"^INCONCLUSIVE \d+ of \d+ checks passed: Triad varied \d+% across "
                         r"repetitions, more than the 50% tolerance" + LIKELY)

    def test_fail_says_how_far_below(self):
        self.assertRegex(self.quiet(SLOW, STEADY, 1),
                         r"^FAIL \d+ of \d+ checks passed: Triad 60% below the reference "
                         r"\(4000\.0 of 10000\.0 MB/s, floor 5000\.0\)" + LIKELY)


class OptionsTest(membench_test.ReferenceFileCase):
    """The bounds of the new options, found before anything is measured."""

    def test_a_tolerance_of_100_or_more_is_refused(self):
        for value in ("100", "150", "inf", "nan", "-1"):
            self.assert_error(["--triad", "--dry-run", "--tolerance", value, "--expect",
                               "triad=1000"], 2, ["--tolerance"])
        line = self.assert_error(["--triad", "--dry-run", "--tolerance", "100", "--expect",
                                  "triad=1000"], 2, ["100%", "accepts any rate"])
        self.assertIn("less than 100", line)
        membench_test.skip_unless_llc_known(self)
        self.run_ok(["--triad", "--dry-run", "--tolerance", "99.5", "--expect", "triad=1000"])

    def test_reference_runs_bounds(self):
        self.assert_error(["--triad", "--dry-run", "--reference-runs", "3"], 2,
                          ["--reference-runs", "--save-reference"])
        for value in ("0", "21"):
            self.assert_error(["--triad", "--dry-run", "--save-reference", self.ref,
                               "--reference-runs", value], 2, ["--reference-runs", "1 to 20"])
        self.assert_error(["--triad", "--size", "1000000,2000000", "--save-reference", self.ref,
                           "--reference-runs", "2"], 2, ["--save-reference", "one configuration"])
        self.assertEqual(os.listdir(self.dir.name), [])

    def test_slow_repetition_hook_refuses_the_warm_up(self):
        self.assert_error(ARGS, 2, ["MEMBENCH_TEST_SLOW_REPETITION", "warm-up"],
                          env_extra={"MEMBENCH_TEST_SLOW_REPETITION": "1"})


class ClusterTest(MpiTestCase):
    """(MPI builds) A node whose own run was INCONCLUSIVE is a row of its own: not FAIL, not
    healthy; the cluster is INCONCLUSIVE (exit 5) when no node failed."""

    MPI_ARGS = ["--mpi-per-rank", "-t", "1", "--triad", "--size", "500000", "-n", "4",
                "--stores", "normal", "--expect", "triad=10000", "--format", "json"] + TOLERANCE

    def cluster(self, repetitions):
        env = {"MEMBENCH_TEST_RATES": "*:triad=10000;2:triad=4000",
               "MEMBENCH_TEST_SLOW_REPETITION": repetitions}
        cmd = (["mpirun", "--bind-to", "core:overload-allowed", "-np", "5"]
               + membench_test.command(membench_test.binary_for(env)) + self.MPI_ARGS)
        proc = subprocess.run(cmd, env=mpi_env(env), capture_output=True, text=True,
                              timeout=240)
        try:
            return proc, json.loads(proc.stdout)
        except ValueError:
            self.fail("no cluster JSON: rc %d\n%s\n%s" % (proc.returncode, proc.stdout,
                                                          proc.stderr))

    def test_a_noisy_short_node_is_inconclusive_not_failed(self):
        proc, doc = self.cluster(NOISY)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertEqual(doc["cluster"]["verdict"], "INCONCLUSIVE")
        self.assertFalse(doc["cluster"]["passed"])
        self.assertEqual(doc["cluster"]["inconclusive_nodes"], 1)
        self.assertEqual(doc["cluster"]["healthy_nodes"], 4)
        node = [n for n in doc["nodes"] if n["rank"] == 2][0]
        self.assertEqual(node["verdict"], "INCONCLUSIVE")
        self.assertEqual(node["exit_status"], 5)
        self.assertFalse(node.get("error"))
        self.assertRegex(node["reason"], r"^Triad varied \d+% across repetitions")
        self.assertIn("INCONCLUSIVE (1 of 5 nodes too noisy to judge, none failed)",
                      doc["cluster"]["summary"])

    def test_a_steady_short_node_fails(self):
        proc, doc = self.cluster(STEADY)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(doc["cluster"]["verdict"], "FAIL")
        node = [n for n in doc["nodes"] if n["rank"] == 2][0]
        self.assertEqual(node["verdict"], "FAIL")


if __name__ == "__main__":
    membench_test.main()
