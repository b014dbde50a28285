# ctest: LABELS timing hugetlb threads races
"""--time-limit bounds every measurement, not only STREAM's repetitions: the TLB probe, the
latency measurement and each probe stop at their next check once the limit has passed. What
finished is reported, says what the limit cut, and the exit status is 3 (the time given was too
short for what was asked: not everything ran); with nothing finished no report is written and
the previous -o file stays. A STREAM run whose repetitions the limit lowers is still whole (exit
0). Every long loop answers within one bounded slice of work, whatever its length: a TLB sample
of 10^12 trials too. Every long loop of the latency set-up (first touch, the chase order, its
links) answers a signal.

Nothing here depends on the machine's speed: membench-hooked stops itself at a named point
(MEMBENCH_TEST_PAUSE_AT) and a signal is sent while it is stopped there; for the time limit,
MEMBENCH_TEST_TIME_LIMIT_AT makes a limit far too long to pass by itself count as passed at
that point, and the next check inside that phase must find it passed."""

import json
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402

#: A --time-limit (seconds) that no phase here reaches by itself, on any machine.
LIMIT_S = 3600
#: Seconds after resuming within which membench must have exited: it stops at its next check,
#: milliseconds away; the rest is slack for a loaded machine and for releasing memory. Without
#: the checks these runs go on for 10 to 90 s.
BOUND_S = 8.0
ANNOUNCE = {"MEMBENCH_TEST_ANNOUNCE": "1"}
OLD_REPORT = '{"previous": "report"}\n'


class StopEarlyCase(MembenchTestCase):

    def finish(self, proc, before, args):
        sent = time.monotonic()
        try:
            out, err = proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                proc.kill()
        took = time.monotonic() - sent
        err = before + err
        return proc.returncode, out, err, took, membench_test.describe(args, proc.returncode, out,
                                                                       err)

    def past_limit(self, args, point):
        """membench-hooked with --time-limit LIMIT_S, which passes at point, where it stops
        until resumed (so that the time to end is timed from there)."""
        args = args + ["--time-limit", str(LIMIT_S)]
        proc, before = membench_test.start_paused(args, point,
                                                  {"MEMBENCH_TEST_TIME_LIMIT_AT": point})
        membench_test.resume(proc)
        return self.finish(proc, before, args)

    def interrupted(self, args, point, sig, env_extra=None):
        proc, before = membench_test.start_paused(args, point, env_extra)
        membench_test.resume(proc, sig)
        return self.finish(proc, before, args)

    def assert_cut(self, rc, out, err, took, msg, kept):
        """Exit 3, the error line, the JSON's kept saying what was kept, soon after the limit."""
        self.assertEqual(rc, 3, msg)
        self.assertLess(took, BOUND_S, "ended %.1f s after its limit\n%s" % (took, msg))
        doc = json.loads(out)
        self.assertFalse(doc["interrupted"], msg)
        prefix = "time limit (--time-limit %d s): " % LIMIT_S
        self.assertEqual(doc["kept"][:len(prefix)], prefix, msg)
        self.assertIn(kept, doc["kept"], msg)
        self.assertIn("membench: " + prefix, err, msg)
        self.assertIn("; raise --time-limit to measure it all", err, msg)
        return doc

    def assert_nothing_kept(self, args, point):
        """Cut before its first figure: no report, the previous -o file as it was, exit 3."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "report.json")
            with open(path, "w") as f:
                f.write(OLD_REPORT)
            rc, out, err, took, msg = self.past_limit(args + ["--format", "json", "-o", path],
                                                      point)
            self.assertEqual(rc, 3, msg)
            self.assertLess(took, BOUND_S, "ended %.1f s after its limit\n%s" % (took, msg))
            self.assertIn("membench: time limit (--time-limit %d s) reached before any "
                          "measurement finished: no report written, '%s' is unchanged; raise "
                          "--time-limit" % (LIMIT_S, path), err, msg)
            with open(path) as f:
                self.assertEqual(f.read(), OLD_REPORT, msg)
            self.assertEqual(os.listdir(d), ["report.json"], msg)


class TimeLimitTest(StopEarlyCase):

    def test_tlb_probe(self):
        rc, out, err, took, msg = self.past_limit(["--tlb", "--format", "json"], "tlb point 3")
        doc = self.assert_cut(rc, out, err, took, msg,
                              "the TLB probe stopped in the 4 KB sweep at ")
        self.assertIn("reporting the 3 points measured", doc["kept"], msg)
        self.assertEqual(len(doc["tlb"]["points"]), 3, msg)

    def test_latency_in_its_loaded_curve(self):
        membench_test.skip_unless_cpus(self, 2, "the loaded curve needs a second core")
        rc, out, err, took, msg = self.past_limit(
            ["--latency", "--latency-size", "64MiB", "--format", "json"], "latency step 3")
        doc = self.assert_cut(rc, out, err, took, msg,
                              "the latency measurement stopped in the loaded curve after 2 of "
                              "10 steps; reporting the idle latency and those steps")
        self.assertTrue(doc["latency"]["measured"], msg)
        self.assertEqual(len(doc["latency"]["loaded"]), 2, msg)
        self.assertEqual(doc["latency"]["loaded_why"], "cut by --time-limit after 2 of 10 steps",
                         msg)

    def test_latency_in_its_set_up(self):
        for point in ("latency chase order", "latency chase links"):
            with self.subTest(point=point):
                self.assert_nothing_kept(["--latency", "--latency-size", "64MiB"], point)

    def test_latency_quiet_line_says_not_measured(self):
        """Beside a measurement that finished (the timer probe) the cut latency has its line."""
        rc, out, err, _, msg = self.past_limit(
            ["--timer", "--latency", "--latency-size", "64MiB", "-q"], "latency chase links")
        self.assertEqual(rc, 3, msg)
        self.assertRegex(out, r"(?m)^latency: not_measured buffer_bytes=\d+ ", msg)

    def test_probes_before_their_first_figure(self):
        for args, point in ((["--faults", "--faults-backing", "4k"], "faults probe"),
                            (["--shootdown"], "shootdown probe"),
                            (["--timer"], "timer probe")):
            with self.subTest(point=point):
                self.assert_nothing_kept(args, point)

    def test_timer_then_faults_says_what_was_cut(self):
        rc, out, err, took, msg = self.past_limit(
            ["--timer", "--faults", "--faults-backing", "4k", "--format", "json"], "faults probe")
        doc = self.assert_cut(rc, out, err, took, msg,
                              "the timer probe finished; the faults probe stopped between "
                              "backings; reporting the 0 backings measured")
        self.assertGreater(len(doc["timer"]["clocks"]), 0, msg)


class SweepClockTest(StopEarlyCase):
    """--time-limit bounds each run of a sweep on its own clock (as --help says), not the sweep.
    membench-hooked stops itself before run 2 and stays stopped longer than the limit: on one
    clock for the sweep, run 2 would find its time gone at its first check and keep only what
    every run keeps (the warm-up and one measured repetition, 2 in all); on its own clock it has
    the whole limit. MEMBENCH_TEST_SLOW_REPETITION=0 pads every repetition to 50 ms, so the limit
    holds dozens of them: a third needs no particular speed (a repetition would have to take
    a second), where the count itself would (a loaded machine's run 2 got 16 to run 1's 42).
    The set-up before the first repetition counts against the limit too: under TSan beside
    other tests, 8 MB arrays and --stores auto's calibration took it all (run 2 kept 2)."""

    def run_paused_before_run_2(self, limit_s):
        """The repetitions each run kept, run 2 started after a pause longer than the limit."""
        # small arrays and one store kind: run 2's set-up (first touch, --stores auto's
        # calibration) takes milliseconds even under TSan on a loaded machine, not the limit
        args = ["--triad", "-s", "100000,100001", "--stores", "normal", "-n", "1000000",
                "--time-limit", str(limit_s), "--format", "json"]
        proc, before = membench_test.start_paused(args, "run 2",
                                                  {"MEMBENCH_TEST_SLOW_REPETITION": "0"})
        time.sleep(limit_s + 0.5)  # not a wait for an event: the time a shared clock would lose
        membench_test.resume(proc)
        out, err = proc.communicate(timeout=120)
        msg = membench_test.describe(args, proc.returncode, out, before + err)
        self.assertEqual(proc.returncode, 0, msg)
        reps = [r["repetitions_done"] for r in json.loads(out)["runs"]]
        self.assertEqual(len(reps), 2, msg)
        return reps, msg

    def test_each_run_has_its_own_clock(self):
        # run 1, never paused, is the control: where its set-up took the whole limit (TSan on
        # an overloaded machine: 2 kept), a longer limit is given before run 2 is judged
        for limit_s in (3, 12):
            reps, msg = self.run_paused_before_run_2(limit_s)
            if reps[0] > 2:
                break
        self.assertGreater(reps[0], 2, msg)
        self.assertGreater(reps[1], 2, "run 2 kept only what a run out of time keeps\n" + msg)


class TrialsTest(StopEarlyCase):
    """A TLB sample of 10^12 trials (hours of accesses, one timed run): a signal or the time
    limit inside it is answered within one slice of it, not at its end."""

    ARGS = ["--tlb", "--tlb-pages", "4096", "--tlb-trials", "1000000000000", "--format", "json"]

    def test_signal_inside_a_sample(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "tlb.json")
            args = self.ARGS + ["-o", path]
            rc, out, err, took, msg = self.interrupted(args, "tlb sample", signal.SIGINT)
            self.assertEqual(rc, 130, msg)
            self.assertLess(took, BOUND_S, "ended %.1f s after the signal\n%s" % (took, msg))
            self.assertIn("interrupted by SIGINT before any measurement finished: no report "
                          "written", err, msg)
            self.assertEqual(os.listdir(d), [], msg)

    def test_time_limit_inside_a_sample(self):
        self.assert_nothing_kept(self.ARGS[:-2], "tlb sample")

    def test_membench_itself_keeps_the_time_limit(self):
        """The product binary, a real limit of 2 s: without a check inside the sample this runs
        for hours; the subprocess timeout is 60 times the limit."""
        args = self.ARGS[:-2] + ["--time-limit", "2", "-q"]
        rc, out, err = membench_test.run(args, timeout=120)
        msg = membench_test.describe(args, rc, out, err)
        self.assertEqual(rc, 3, msg)
        self.assertIn("membench: time limit (--time-limit 2 s) reached before any measurement "
                      "finished: no report written", err, msg)
        self.assertNotIn("raise --tlb-trials", err, "no sample finished: no timer share\n" + msg)


class SignalInSetUpTest(StopEarlyCase):
    """A signal inside each long step of the latency set-up ends it there: the next step is never
    reached (MEMBENCH_TEST_ANNOUNCE names each step as it begins)."""

    SIZE = ["--latency", "--latency-size", "512MiB"]

    def test_each_step_answers(self):
        for point, next_point in (("latency first touch", "latency chase order"),
                                  ("latency chase order", "latency chase links"),
                                  ("latency chase links", None)):
            with self.subTest(point=point), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "latency.json")
                with open(path, "w") as f:
                    f.write(OLD_REPORT)
                args = self.SIZE + ["--format", "json", "-o", path]
                rc, out, err, took, msg = self.interrupted(args, point, signal.SIGTERM, ANNOUNCE)
                self.assertEqual(rc, 128 + signal.SIGTERM, msg)
                self.assertLess(took, BOUND_S, "ended %.1f s after the signal\n%s" % (took, msg))
                if next_point:
                    self.assertNotIn("membench-test: at %s\n" % next_point, err, msg)
                self.assertIn("interrupted by SIGTERM before any measurement finished: no report "
                              "written, '%s' is unchanged" % path, err, msg)
                with open(path) as f:
                    self.assertEqual(f.read(), OLD_REPORT, msg)


class KeptTest(StopEarlyCase):
    """What an interrupted run says it kept is what its report holds."""

    def test_latency_names_the_finished_steps(self):
        membench_test.skip_unless_cpus(self, 2, "the loaded curve needs a second core")
        args = ["--latency", "--latency-size", "64MiB", "--format", "json"]
        rc, out, err, _, msg = self.interrupted(args, "latency step 3", signal.SIGINT)
        self.assertEqual(rc, 130, msg)
        kept = ("the latency measurement stopped in the loaded curve after 2 of 10 steps; "
                "reporting the idle latency and those steps")
        self.assertIn("membench: interrupted by SIGINT: " + kept, err, msg)
        doc = json.loads(out)
        self.assertEqual(doc["kept"], kept, msg)
        self.assertTrue(doc["latency"]["measured"], msg)
        self.assertGreater(doc["latency"]["idle_ns"], 0, msg)
        self.assertEqual(len(doc["latency"]["loaded"]), 2, msg)

    def test_timer_then_faults_names_both(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "probes.json")
            with open(path, "w") as f:
                f.write(OLD_REPORT)
            args = ["--timer", "--faults", "--faults-backing", "4k", "--format", "json", "-o",
                    path]
            rc, _, err, _, msg = self.interrupted(args, "faults probe", signal.SIGINT)
            self.assertEqual(rc, 130, msg)
            kept = ("the timer probe finished; the faults probe stopped between backings; "
                    "reporting the 0 backings measured")
            self.assertIn("membench: interrupted by SIGINT: " + kept, err, msg)
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(doc["kept"], kept, msg)
            self.assertGreater(len(doc["timer"]["clocks"]), 0, msg)

    def test_nothing_kept_leaves_the_previous_output(self):
        for args, point in ((["--faults", "--faults-backing", "4k"], "faults probe"),
                            (["--timer"], "timer probe")):
            with self.subTest(args=args), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "report.json")
                with open(path, "w") as f:
                    f.write(OLD_REPORT)
                args = args + ["--format", "json", "-o", path]
                rc, _, err, _, msg = self.interrupted(args, point, signal.SIGTERM)
                self.assertEqual(rc, 143, msg)
                self.assertIn("no report written, '%s' is unchanged" % path, err, msg)
                with open(path) as f:
                    self.assertEqual(f.read(), OLD_REPORT, msg)
                self.assertEqual(os.listdir(d), ["report.json"], msg)


if __name__ == "__main__":
    membench_test.main()
