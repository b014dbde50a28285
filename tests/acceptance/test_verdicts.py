# ctest: LABELS timing
"""Verdicts that check what they name: no verdict without a kernel run, expectations only for
kernels that run, --acceptance as a fixed profile, a reference's kernels and profile compared
with the run's, and --save-reference saying what happened when it writes nothing."""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import SMALL, run, describe  # noqa: E402

#: A real run of the acceptance profile in a blink: a synthetic 2 MiB LLC makes the STREAM
#: rule 1 M elements; HWLOC_THISSYSTEM lets membench bind to its two PUs.
TINY_NODE = {"HWLOC_SYNTHETIC": "pack:1 l3:1(size=2MiB) core:2 pu:1", "HWLOC_THISSYSTEM": "1"}

#: TINY_NODE judged by --acceptance: membench refuses to judge a described topology (it is not
#: this machine), but membench-hooked lets it count as this machine.
TINY_NODE_JUDGED = dict(TINY_NODE, MEMBENCH_TEST_TOPOLOGY_IS_MACHINE="1")

FOUR = {"Copy": 1.0, "Scale": 1.0, "Add": 1.0, "Triad": 1.0}


def reference(rates, profile=None):
    """A minimal valid reference document."""
    doc = {"membench_reference": 1, "rates_mbps": rates,
           "system": {"cpu_model": "x", "cores": 2}}
    if profile is not None:
        doc["profile"] = profile
    return doc


class VerdictTestCase(membench_test.ReferenceFileCase):
    pass


class NoKernelTest(VerdictTestCase):
    """A probe alone runs no STREAM kernel: a verdict or reference of it would check nothing."""

    def test_acceptance_with_a_probe_only(self):
        self.assert_error(["--timer", "--acceptance"], 2, ["--acceptance", "--timer", "drop"])

    def test_expect_with_a_probe_only(self):
        self.assert_error(["--timer", "--expect", "triad=999999999"], 2,
                          ["--expect", "--timer", "not to", "add a kernel"])

    def test_reference_with_a_probe_only(self):
        self.write_ref(reference(FOUR))
        self.assert_error(["--tlb", "--dry-run", "--reference", self.ref], 2,
                          ["--reference", "--tlb", "not to", "add a kernel"])

    def test_save_reference_with_a_probe_only(self):
        line = self.assert_error(["--timer", "--save-reference", self.ref], 2,
                                 ["--save-reference", "--timer", "not to", "add a kernel"])
        self.assertNotIn("validation", line)
        self.assertEqual(os.listdir(self.dir.name), [])


class ExpectKernelTest(VerdictTestCase):
    """--expect names kernels; each must run, or the verdict would pass without checking it."""

    def test_expect_for_a_kernel_not_selected(self):
        self.assert_error(["--copy", "--expect", "triad=5"] + SMALL, 2,
                          ["--expect triad", "--triad"])

    def test_expect_for_a_kernel_outside_the_default_set(self):
        self.assert_error(["--expect", "dot=5"] + SMALL, 2, ["--expect dot", "--dot"])

    def test_expect_for_a_kernel_outside_the_acceptance_profile(self):
        self.assert_error(["--acceptance", "--expect", "dot=5", "--dry-run"], 2,
                          ["--expect dot", "acceptance profile"], env_extra=TINY_NODE)


class ProfileTest(VerdictTestCase):
    """--acceptance is a fixed profile: what would change it is refused before measuring."""

    def test_options_that_change_the_profile_are_refused(self):
        refused = [(["-t", "1"], "--threads"), (["--threads", "2"], "--threads"),
                   (["--size", "8xLLC"], "--size"), (["--bind", "compact"], "--bind"),
                   (["--type", "float"], "--type"), (["--stores", "normal"], "--stores"),
                   (["--offset", "3"], "--offset"), (["--triad"], "--triad"),
                   (["--dot"], "--dot"), (["--isa", "scalar"], "--isa"),
                   (["--faults"], "--faults"), (["--tlb"], "--tlb")]
        for extra, name in refused:
            with self.subTest(option=extra):
                self.assert_error(["--acceptance", "--dry-run"] + extra, 2,
                                  ["--acceptance", "fixed profile", name])
        with self.subTest(option="MEMBENCH_ISA"):
            self.assert_error(["--acceptance", "--dry-run"], 2,
                              ["--acceptance", "fixed profile", "unset MEMBENCH_ISA"],
                              env_extra={"MEMBENCH_ISA": "scalar"})
        # What does not change what is measured stays allowed.
        allowed = ["-n", "5", "--pages", "4k", "--per-domain", "numa", "--tolerance", "3",
                   "--time-limit", "10", "--peak", "100", "--expect", "triad=1"]
        doc = self.run_json(["--acceptance", "--dry-run"] + allowed, env_extra=TINY_NODE)
        self.assertEqual(doc["runs"][0]["config"]["bind"], "scatter")

    def test_acceptance_against_a_reference_of_another_profile_fails(self):
        """A reference saved from -t 1 and other arrays: its rates do not hold for the
        profile, so the acceptance run names each difference as a FAIL."""
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs 2 usable CPUs for the synthetic 2-core node")
        self.run_ok(["-t", "1", "--size", "2000000", "-n", "3", "--save-reference", self.ref],
                    env_extra=TINY_NODE)
        args = ["--acceptance", "--reference", self.ref, "--tolerance", "99", "--format", "json"]
        rc, out, err = run(args, env_extra=TINY_NODE_JUDGED)
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        checks = {c["name"]: c for c in json.loads(out)["acceptance"]["checks"]}
        self.assertFalse(checks["threads"]["passed"], checks)
        self.assertEqual(checks["threads"]["measured"], "2")
        self.assertIn("1", checks["threads"]["expected"])
        self.assertFalse(checks["array size"]["passed"], checks)
        self.assertIn("2000000", checks["array size"]["expected"])
        self.assertTrue(checks["binding"]["passed"], checks)
        self.assertTrue(checks["type"]["passed"], checks)
        self.assertIn("acceptance check failed: threads", err)


class TopologyIsThisMachineTest(VerdictTestCase):
    """A verdict needs the real machine: a topology that is not this machine's is named in the
    report and the reference, and --acceptance on it is refused before measuring."""

    DESCRIBED = [
        ({"HWLOC_XMLFILE": membench_test.topology("xeon-e5-2670-2s.xml")},
         ["HWLOC_XMLFILE=", "xeon-e5-2670-2s.xml", "describes another", "unset it"]),
        ({"HWLOC_SYNTHETIC": "pack:1 l3:1(size=2MiB) core:2 pu:1"},
         ["HWLOC_SYNTHETIC=pack:1", "describes another", "unset it"]),
        (TINY_NODE, ["HWLOC_SYNTHETIC=pack:1", "describes another", "unset it"]),
        ({"HWLOC_THISSYSTEM": "0"},
         ["HWLOC_THISSYSTEM=0", "not this machine's", "unset it"]),
    ]

    def test_product_refuses_acceptance_on_a_described_topology(self):
        for env, words in self.DESCRIBED:
            with self.subTest(env=env):
                start = time.monotonic()
                line = self.assert_error(["--acceptance"], 2,
                                         ["--acceptance judges the real machine"] + words,
                                         env_extra=env)
                self.assertTrue(line.startswith("membench: "), line)
                self.assertLess(time.monotonic() - start, 10, "refused before measuring")
                # the plan alone judges nothing: still shown
                doc = self.run_json(["--acceptance", "--dry-run"], env_extra=env)
                self.assertFalse(doc["system"]["topology_is_machine"])
                self.assertTrue(doc["system"]["topology_source"].startswith(
                    words[0].split("=")[0]))

    def test_this_machine_is_named_as_such(self):
        doc = self.run_json(["--acceptance", "--dry-run"], env_extra={"OMP_NUM_THREADS": None})
        self.assertTrue(doc["system"]["topology_is_machine"])
        self.assertEqual(doc["system"]["topology_source"], "this machine")

    def test_text_names_a_bound_description(self):
        out, _ = self.run_ok(["--triad", "--dry-run"], env_extra=TINY_NODE)
        self.assertRegex(out, r"(?m)^Topology: HWLOC_SYNTHETIC=pack:1 .*not this machine, bound "
                              r"as if it were \(HWLOC_THISSYSTEM=1\)")
        out, _ = self.run_ok(["--triad", "--dry-run"], env_extra={"HWLOC_THISSYSTEM": "0"})
        self.assertRegex(out, r"(?m)^Topology: HWLOC_THISSYSTEM=0 \(this machine, but hwloc is "
                              r"told it is not: nothing is bound")

    def test_hook_lets_a_described_topology_count_as_this_machine(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs 2 usable CPUs for the synthetic 2-core node")
        rc, out, err = run(["--acceptance", "-n", "3", "--format", "json"],
                           env_extra=TINY_NODE_JUDGED)
        self.assertIn(rc, (0, 1), describe([], rc, out, err))
        doc = json.loads(out)
        self.assertFalse(doc["system"]["topology_is_machine"])
        self.assertIn("cpus", [c["name"] for c in doc["acceptance"]["checks"]])

    def test_reference_records_its_topology(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("needs 2 usable CPUs for the synthetic 2-core node")
        args = ["-t", "1", "--size", "2000000", "-n", "3"]
        self.run_ok(args + ["--save-reference", self.ref], env_extra=TINY_NODE)
        with open(self.ref) as f:
            saved = json.load(f)
        self.assertTrue(saved["profile"]["topology"].startswith("HWLOC_SYNTHETIC=pack:1"),
                        saved["profile"])
        # checked on this machine, the reference's topology is a named FAIL
        rc, out, err = run(args + ["--reference", self.ref, "--tolerance", "99", "--format",
                                   "json"])
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        checks = {c["name"]: c for c in json.loads(out)["acceptance"]["checks"]}
        self.assertFalse(checks["topology"]["passed"], checks)
        self.assertEqual(checks["topology"]["measured"], "this machine")
        self.assertIn("HWLOC_SYNTHETIC=pack:1", checks["topology"]["expected"])
        # on the topology it was saved from, the same check passes
        rc, out, err = run(args + ["--reference", self.ref, "--tolerance", "99", "--format",
                                   "json"], env_extra=TINY_NODE)
        checks = {c["name"]: c for c in json.loads(out)["acceptance"]["checks"]}
        self.assertTrue(checks["topology"]["passed"], describe(args, rc, out, err))


class ReferenceProfileTest(VerdictTestCase):
    """Any run checked against a reference must match the profile the reference records."""

    def test_other_thread_count_is_a_named_fail(self):
        self.run_ok(["-t", "1", "--save-reference", self.ref] + SMALL)
        args = ["--reference", self.ref, "--tolerance", "99"] + SMALL
        rc, out, err = run(args, {"OMP_NUM_THREADS": "2"})  # even where only one CPU is usable
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        self.assertRegex(out, r"(?m)^FAIL threads\s+2\s+1 \(reference\)")
        self.assertRegex(out, r"(?m)^PASS array size\s+2000000")
        # The same rates without the profile (a hand-written reference) check rates alone.
        with open(self.ref) as f:
            doc = json.load(f)
        del doc["profile"]
        self.write_ref(doc)
        out, _ = self.run_ok(args)
        self.assertNotRegex(out, r"(?m)^\w+ threads ")

    def test_malformed_profile_exits_2(self):
        self.write_ref(reference(FOUR, {"threads": "two"}))
        self.assert_error(["--reference", self.ref] + SMALL, 2, ["profile.threads"])


class ReferenceKernelsTest(VerdictTestCase):
    """Every kernel a reference holds must run, else its rates would go unchecked."""

    def test_reference_kernels_not_run(self):
        self.write_ref(reference(FOUR))
        self.assert_error(["--triad", "--reference", self.ref] + SMALL, 2,
                          ["--reference", "Copy, Scale, Add", "--copy --scale --add"])

    def test_reference_kernel_outside_the_acceptance_profile(self):
        self.write_ref(reference(dict(FOUR, Dot=1.0)))
        self.assert_error(["--acceptance", "--dry-run", "--reference", self.ref], 2,
                          ["--reference", "Dot", "acceptance profile"], env_extra=TINY_NODE)


class SaveReferenceTest(VerdictTestCase):
    """When no reference is written, say why: not 'failed validation' for a run that ran none."""

    def test_dry_run_says_no_reference_written(self):
        rc, out, err = run(["--dry-run", "--save-reference", self.ref] + SMALL)
        self.assertEqual(rc, 0, err)
        self.assertIn("no reference written to " + self.ref, err)
        self.assertIn("--dry-run", err)
        self.assertNotIn("validation", err)
        self.assertEqual(os.listdir(self.dir.name), [])

    def test_interrupted_run_says_no_reference_written(self):
        args = ["--triad", "--size", "20000000", "-n", "100000", "--time-limit", "60",
                "--save-reference", self.ref]
        proc, _ = membench_test.start_paused(args, "first touch")
        membench_test.resume(proc, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("no reference written to %s: the run was interrupted" % self.ref, err)
        self.assertNotIn("validation", err)
        self.assertEqual(os.listdir(self.dir.name), [])


if __name__ == "__main__":
    membench_test.main()
