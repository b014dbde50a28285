# ctest: LABELS races
"""--stores auto decides by measurement on the first repetition (config.stores_chosen_by): whole
repetitions of each candidate assignment (all normal, all nt, each kernel's own faster kind),
the fastest in total runs. Each kernel reports how far apart its threads finished
(results[].finish_spread_s). MEMBENCH_TEST_SLOW_STORES=KIND makes that store kind's kernels 4x
slower (KERNEL:KIND,... only those kernels'), so the choice has a clear answer on any machine."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test as mt  # noqa: E402

#: Two threads where two CPUs may be used, else one: threads that outnumber the CPUs share
#: them with each other's barrier spin, which blurs the 4x the hook slows a kind by.
THREADS = min(2, len(os.sched_getaffinity(0)))
SMALL = ["--size", "2000000", "-n", "3", "-t", str(THREADS)]
WORDS = {"Copy": 2, "Scale": 2, "Add": 3, "Triad": 3, "Nstream": 4, "Dot": 2}


#: Why the choice between store kinds skips under emulation (seen: "mixed" chosen where nt was
#: made 4x slower for every kernel).
CHOICE = ("the choice of stores is by measured time, and emulated stores of either kind cost "
          "what the emulator makes them cost: " + mt.TIMING)


class StoreChoice(mt.MembenchTestCase):
    def measured(self, slow, args=()):
        doc = self.run_json(SMALL + list(args), env_extra={"MEMBENCH_TEST_SLOW_STORES": slow})
        run = doc["runs"][0]
        self.assertTrue(run["validation"]["passed"], run["validation"])
        return run

    def test_auto_picks_normal_when_nt_is_slower(self):
        mt.skip_under_emulation(self, CHOICE)
        run = self.measured("nt")
        c = run["config"]
        self.assertEqual(c["stores_requested"], "auto")
        self.assertEqual(c["stores"], "normal")
        self.assertFalse(c["tuned"])
        by = c["stores_chosen_by"]
        self.assertEqual(by["method"], "measured")
        self.assertEqual(by["kernels"], ["Copy", "Scale", "Add", "Triad"])
        self.assertGreater(by["normal_mbps"], 2.0 * by["nt_mbps"])
        self.assertGreaterEqual(by["rounds"], 1)
        self.assertEqual(by["assignment"], "normal")
        n = c["array_elements"]
        for r in run["results"]:  # write-allocate: one more transfer per element
            self.assertEqual(r["bytes_estimated_traffic"], (WORDS[r["kernel"]] + 1) * n * 8)

    def test_each_candidate_has_its_total(self):
        """Every kernel agrees (nt is slower for all): two candidates, each timed over whole
        repetitions, and the faster in total chosen."""
        mt.skip_under_emulation(self, CHOICE)
        by = self.measured("nt")["config"]["stores_chosen_by"]
        cands = {x["assignment"]: x for x in by["candidates"]}
        self.assertEqual(sorted(cands), ["normal", "nt"])
        self.assertEqual(cands["normal"]["stores"], {k: "normal" for k in by["kernels"]})
        self.assertEqual(cands["nt"]["stores"], {k: "nt" for k in by["kernels"]})
        for x in cands.values():
            self.assertGreaterEqual(x["repetitions"], by["rounds"])
            self.assertGreater(x["best_s"], 0.0)
        self.assertEqual((cands["normal"]["total_mbps"], cands["nt"]["total_mbps"]),
                         (by["normal_mbps"], by["nt_mbps"]))
        self.assertGreater(cands["normal"]["total_mbps"], 2.0 * cands["nt"]["total_mbps"])
        # the total is the run's bytes over the summed best times of its kernels, to the 9
        # significant digits JSON carries of each (a rate over 10^5 MB/s has 3 decimals)
        n = self.measured("nt")["config"]["array_elements"]
        doc = self.measured("nt", ["--copy"])["config"]["stores_chosen_by"]
        for x in doc["candidates"]:
            want = 1e-6 * 16 * n / x["best_s"]
            self.assertAlmostEqual(x["total_mbps"], want, delta=1e-8 * want)

    def test_auto_picks_nt_when_normal_is_slower(self):
        mt.skip_under_emulation(self, CHOICE)
        run = self.measured("normal")
        c = run["config"]
        self.assertEqual(c["stores"], "nt")
        self.assertTrue(c["tuned"])
        by = c["stores_chosen_by"]
        self.assertGreater(by["nt_mbps"], 2.0 * by["normal_mbps"])
        self.assertEqual(by["assignment"], "nt")
        n = c["array_elements"]
        for r in run["results"]:
            self.assertEqual(r["bytes_estimated_traffic"], WORDS[r["kernel"]] * n * 8)

    def test_text_names_the_choice_and_both_rates(self):
        mt.skip_under_emulation(self, CHOICE)
        _, out, _ = mt.run(SMALL, env_extra={"MEMBENCH_TEST_SLOW_STORES": "normal"})
        self.assertRegex(out, r"Stores: non-temporal \(auto: whole repetitions on the first one ran "
                              r"[0-9.]+ MB/s nt vs [0-9.]+ normal\)\n  each kernel in the "
                              r"all-normal vs all-nt repetitions, MB/s: Copy [0-9.]+ vs [0-9.]+;")
        self.assertIn("Kernels: ", out)
        self.assertIn("non-temporal stores -- a TUNED run", out)

    def test_forced_kinds_are_not_measured(self):
        for kind in ("nt", "normal"):
            with self.subTest(kind=kind):
                run = self.measured(kind, ["--stores", kind])
                self.assertEqual(run["config"]["stores"], kind)
                self.assertEqual(run["config"]["stores_chosen_by"], "forced")

    def test_nstream_calibrates_and_still_validates(self):
        # Nstream (a += b + q*c) changes a on every pass: the extra passes are modelled too.
        run = self.measured("nt", ["--nstream", "--copy"])
        by = run["config"]["stores_chosen_by"]
        self.assertEqual(by["kernels"], ["Copy", "Nstream"])
        self.assertEqual(run["config"]["stores"], "normal")

    def test_a_kernel_that_does_not_store_runs_in_every_repetition(self):
        # Dot's time counts in each candidate's total: the repetitions are the run's, whole.
        run = self.measured("nt", ["--dot", "--copy"])
        by = run["config"]["stores_chosen_by"]
        self.assertEqual(by["kernels"], ["Copy"])
        self.assertEqual([x["stores"] for x in by["candidates"]],
                         [{"Copy": "normal"}, {"Copy": "nt"}])
        n = run["config"]["array_elements"]
        for x in by["candidates"]:  # Copy and Dot both move 2 words per element
            self.assertAlmostEqual(x["total_mbps"], 1e-6 * 32 * n / x["best_s"], delta=1e-3)

    def test_no_storing_kernel_measures_nothing(self):
        run = self.run_json(SMALL + ["--dot", "--read"])["runs"][0]
        by = run["config"]["stores_chosen_by"]
        self.assertEqual(by["method"], "not measured")
        self.assertEqual(by["why"], "no kernel of this run stores")
        self.assertEqual(run["config"]["stores"], "auto")

    def test_dry_run_says_auto_and_measures_nothing(self):
        doc = self.run_json(SMALL + ["--dry-run"])
        c = doc["runs"][0]["config"]
        self.assertEqual(c["stores"], "auto")
        self.assertEqual(c["stores_chosen_by"]["method"], "not measured")
        self.assertNotIn("normal_mbps", c["stores_chosen_by"])
        self.assertNotIn("candidates", c["stores_chosen_by"])
        _, out, _ = mt.run(SMALL + ["--dry-run"])
        self.assertIn("stores chosen by measurement when run (auto)", out)


class ReferenceStores(mt.ReferenceFileCase):
    def test_auto_runs_the_kind_the_reference_ran_with(self):
        """A reference's rates hold for its store kind: auto keeps it instead of measuring,
        so that noise cannot turn the profile's stores check into a FAIL."""
        ref = self.ref
        self.run_ok(SMALL + ["--stores", "nt", "--save-reference", ref])
        rc, out, err = mt.run(SMALL + ["--reference", ref, "--tolerance", "99", "--format",
                                       "json"], env_extra={"MEMBENCH_TEST_SLOW_STORES": "nt"})
        doc = json.loads(out)
        c = doc["runs"][0]["config"]
        self.assertEqual((c["stores"], c["stores_chosen_by"]), ("nt", "reference"), err)
        checks = {x["name"]: x["passed"] for x in doc["acceptance"]["checks"]}
        self.assertTrue(checks["stores"], checks)

    def test_each_kernel_runs_its_own_faster_kind(self):
        """Copy may prefer normal stores where Triad prefers nt: the mix of each kernel's own
        faster kind is a third candidate, here the fastest in total; each kernel runs its
        winner, its traffic follows its kind, and the run says "mixed"."""
        mt.skip_under_emulation(self, CHOICE)
        doc = self.run_json(SMALL, env_extra={
            "MEMBENCH_TEST_SLOW_STORES": "Copy:nt,Scale:nt,Add:normal,Triad:normal"})
        run = doc["runs"][0]
        self.assertTrue(run["validation"]["passed"], run["validation"])
        c = run["config"]
        self.assertEqual((c["stores"], c["tuned"]), ("mixed", True))
        by = c["stores_chosen_by"]
        per = by["per_kernel"]
        n = c["array_elements"]
        want = {"Copy": "normal", "Scale": "normal", "Add": "nt", "Triad": "nt"}
        self.assertEqual(by["assignment"], "mixed")
        cands = {x["assignment"]: x for x in by["candidates"]}
        self.assertEqual(sorted(cands), ["mixed", "normal", "nt"])
        self.assertEqual(cands["mixed"]["stores"], want)
        for other in ("normal", "nt"):  # each uniform run has two slowed kernels, the mix none
            self.assertGreater(cands["mixed"]["total_mbps"], 1.5 * cands[other]["total_mbps"])
        for r in run["results"]:
            kernel = r["kernel"]
            self.assertEqual((r["stores"], per[kernel]["stores"]), (want[kernel],) * 2)
            faster, slower = ("normal_mbps", "nt_mbps") if want[kernel] == "normal" else \
                ("nt_mbps", "normal_mbps")
            self.assertGreater(per[kernel][faster], 2.0 * per[kernel][slower])
            extra = 1 if want[kernel] == "normal" else 0  # write-allocate
            self.assertEqual(r["bytes_estimated_traffic"], (WORDS[kernel] + extra) * n * 8)
        _, out, _ = mt.run(SMALL, env_extra={
            "MEMBENCH_TEST_SLOW_STORES": "Copy:nt,Scale:nt,Add:nt,Triad:normal"})
        self.assertRegex(out, r"Stores: normal for Copy, Scale, Add; non-temporal for Triad \(auto: "
                              r"whole repetitions on the first one ran [0-9.]+ MB/s mixed vs "
                              r"[0-9.]+ normal vs [0-9.]+ nt\)")
        self.assertIn("Kernels: ", out)

    def test_a_mixed_reference_is_rerun_kernel_by_kernel(self):
        """A reference records each kernel's kind (profile.kernel_stores); auto runs those,
        even where a measurement would now choose otherwise."""
        mt.skip_under_emulation(self, CHOICE)
        ref = self.ref
        self.run_ok(SMALL + ["--save-reference", ref],
                    env_extra={"MEMBENCH_TEST_SLOW_STORES": "Copy:nt,Scale:nt,Add:nt,Triad:normal"})
        with open(ref) as f:
            profile = json.load(f)["profile"]
        self.assertEqual(profile["stores"], "mixed")
        self.assertEqual(profile["kernel_stores"],
                         {"Copy": "normal", "Scale": "normal", "Add": "normal", "Triad": "nt"})
        rc, out, err = mt.run(SMALL + ["--reference", ref, "--tolerance", "99", "--format",
                                       "json"], env_extra={"MEMBENCH_TEST_SLOW_STORES": "nt"})
        run = json.loads(out)["runs"][0]
        self.assertEqual((run["config"]["stores"], run["config"]["stores_chosen_by"]),
                         ("mixed", "reference"), err)
        self.assertEqual({r["kernel"]: r["stores"] for r in run["results"]},
                         profile["kernel_stores"])
        checks = {x["name"]: x["passed"] for x in json.loads(out)["acceptance"]["checks"]}
        self.assertTrue(checks["stores"], checks)

    def test_a_bad_kernel_stores_in_a_reference_is_refused(self):
        ref = self.ref
        self.run_ok(SMALL + ["--stores", "nt", "--save-reference", ref])
        with open(ref) as f:
            doc = json.load(f)
        doc["profile"]["kernel_stores"] = {"Copy": "fast"}
        with open(ref, "w") as f:
            json.dump(doc, f)
        rc, out, err = mt.run(SMALL + ["--reference", ref])
        self.assertEqual(rc, 2, err)
        self.assertIn("kernel_stores", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)


class WarmUp(mt.MembenchTestCase):
    """On every path the untimed first repetition is repeated (under auto after the calibration)
    with the run's own stores until that has lasted WARM_UP_MIN_S (1 s) or run
    WARM_UP_PASSES_MAX (64) passes; then the arrays are set as at the first touch and one pass
    of the run's own stores precedes the timed repetitions: `--stores nt` and an auto that chose
    nt time the same kernels after the same warm-up. Before, a forced kind ran one pass right
    after the first touch while auto calibrated for a second, and auto's last calibration pass
    could run the other kind (a round in reversed order ends with all-normal), leaving other
    arrays in the cache."""

    def warm_up(self, args, slow):
        rc, out, err = mt.run(SMALL + args + ["--format", "json"], env_extra={
            "MEMBENCH_TEST_SLOW_STORES": slow, "MEMBENCH_TEST_ANNOUNCE": "1"})
        self.assertEqual(rc, 0, err)
        points = [line[len("membench-test: at "):] for line in err.splitlines()
                  if line.startswith("membench-test: at ")]
        return json.loads(out)["runs"][0], [p for p in points if p.startswith(
            ("warm-up ", "arrays reset", "timed repetitions", "run "))]

    def test_every_path_ends_its_warm_up_alike(self):
        for args, slow in ((["--stores", "nt"], "normal"), ([], "normal"),
                           (["--stores", "normal"], "nt"), ([], "nt")):
            with self.subTest(args=args, slow=slow):
                run, points = self.warm_up(args, slow)
                self.assertTrue(run["validation"]["passed"], run["validation"])
                kinds = "warm-up " + run["config"]["stores"]
                self.assertEqual(points[-3:], ["arrays reset", kinds, "timed repetitions"])
                warm = run["warm_up"]
                self.assertTrue(warm["own_stores_seconds"] >= 1.0
                                or warm["own_stores_passes"] >= 64, warm)
                self.assertGreater(warm["passes"], warm["own_stores_passes"], warm)
                if not args:  # auto calibrated first, then warmed up with what it chose
                    cand = run["config"]["stores_chosen_by"]["candidates"]
                    self.assertGreaterEqual(warm["passes"] - warm["own_stores_passes"],
                                            sum(c["repetitions"] for c in cand), warm)
                if args:  # a forced kind never runs the other one
                    self.assertEqual(points, ["run 1", kinds, "arrays reset", kinds,
                                              "timed repetitions"])


class FinishSpread(mt.MembenchTestCase):
    def test_each_kernel_reports_its_spread(self):
        run = self.run_json(["--size", "2000000", "-n", "3", "-t", "2", "--stores",
                             "normal"])["runs"][0]
        for r in run["results"]:
            self.assertGreaterEqual(r["finish_spread_s"], 0.0)
            self.assertLessEqual(r["finish_spread_s"], r["max_time_s"])

    def test_one_thread_has_none(self):
        run = self.run_json(["--size", "2000000", "-n", "3", "-t", "1"])["runs"][0]
        for r in run["results"]:
            self.assertEqual(r["finish_spread_s"], 0.0)


if __name__ == "__main__":
    mt.main()
