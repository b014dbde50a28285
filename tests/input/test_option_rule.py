# ctest: LABELS hugetlb threads
"""Every option either changes the run it is given to or is refused (exit 2, one line naming
it): the option table's rule (each row's .applies, src/cli/option_measures.c), walked for every
option --help lists and every measurement. An option --help lists that HONOURED below does not
record fails the walk, so a new option cannot be accepted and silently ignored."""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

# The measurements, as the command line asks for them ([]: the default run, the kernels).
KINDS = {
    "kernels": [],
    "tlb": ["--tlb"],
    "latency": ["--latency"],
    "faults": ["--faults"],
    "shootdown": ["--shootdown"],
    "timer": ["--timer"],
}
ALL = frozenset(KINDS)
KERNELS = frozenset({"kernels"})

# The options that choose what is measured: each adds its measurement to any run.
# The measurements that are not kernels; the kernels' flags are read from --help's kernel
# sections (kernel_flags), which kernels/kernel_list.h generates.
PROBES = {"--tlb", "--latency", "--faults", "--shootdown", "--timer"}
# The options that print and exit before anything else.
EXITS = {"--help", "--version"}

# option: (the arguments after it, the measurements that use it). "{dir}" is a scratch
# directory, "{ref}" a reference saved there. Where the src/ code uses an option is noted.
HONOURED = {
    "--threads": (["1"], KERNELS | {"tlb"}),  # tlb_plan.c: N placed threads at once
    "--size": (["1MiB"], KERNELS),
    "--ntimes": (["3"], KERNELS),
    "--type": (["float"], KERNELS),
    "--offset": (["1"], KERNELS),
    # tlb_plan.c and latency_plan.c: the probe's (first) PU is --bind's first PU
    "--bind": (["compact"], KERNELS | {"tlb", "latency"}),
    "--per-domain": (["numa"], KERNELS),
    # its own runs: the latency matrix with --latency, else a kernels' matrix (Triad's when no
    # kernel is given), beside any probe
    "--matrix": (["numa"], ALL),
    # tlb_plan.c: the sweep's pages; latency_plan.c: the chase buffer's (--faults has
    # --faults-backing, --shootdown unmaps 4 KB pages)
    "--pages": (["4k"], KERNELS | {"tlb", "latency"}),
    "--stores": (["normal"], KERNELS),
    "--isa": (["scalar"], KERNELS),
    "--format": (["json"], ALL),
    "--output": (["{dir}/out"], ALL),
    "--metrics-file": (["{dir}/metrics.prom"], ALL),
    "--quiet": ([], ALL),
    "--dry-run": ([], ALL),
    "--acceptance": ([], KERNELS),
    "--expect": (["triad=1"], KERNELS),
    "--tolerance": (["5"], KERNELS),  # the checks, and a cluster run's peer comparison
    "--reference": (["{ref}"], KERNELS),
    "--save-reference": (["{dir}/saved.json"], KERNELS),
    "--reference-runs": (["2", "--save-reference", "{dir}/saved.json"], KERNELS),
    "--reference-interval": (["1", "--reference-runs", "2", "--save-reference",
                              "{dir}/saved.json"], KERNELS),
    "--time-limit": (["30"], ALL),  # every measurement stops within it
    "--mpi-per-rank": ([], frozenset()),  # only an MPI run's ranks: refused without one
    "--peak": (["100"], KERNELS),  # % of peak of the kernels' rates
    "--cpu": (["0"], {"tlb"}),
    "--order": (["seq"], {"tlb"}),
    "--no-stagger": ([], {"tlb"}),
    "--tlb-mode": (["inc"], {"tlb"}),
    "--tlb-pages": (["8"], {"tlb"}),
    "--tlb-trials": (["5", "--tlb-pages", "8"], {"tlb"}),
    "--tlb-max-pages": (["64"], {"tlb"}),
    "--repeat": (["2"], {"tlb"}),
    "--latency-size": (["8MiB"], {"latency"}),
    "--faults-size": (["64"], {"faults"}),
    "--faults-dir": (["{dir}"], {"faults"}),
    "--faults-backing": (["4k"], {"faults"}),
    "--shootdown-remote": (["0"], {"shootdown"}),
    "--shootdown-pages": (["1"], {"shootdown"}),
}


def help_text():
    rc, out, err = membench_test.run(["--help"])
    assert rc == 0, err
    return out


def help_options():
    """Every long option --help lists, in its order."""
    return re.findall(r"^  (?:-\w, )?(--[a-z][a-z0-9-]*)", help_text(), re.M)


def kernel_flags():
    """The flags --help lists under "Kernels" and "Extra kernels" (before "Probes")."""
    kernels = help_text().split("\nKernels (", 1)[1].split("\nProbes (", 1)[0]
    return set(re.findall(r"^  (--[a-z][a-z0-9-]*)", kernels, re.M))


def measurements():
    """The options that choose what is measured: every kernel and every probe."""
    return kernel_flags() | PROBES


class OptionRule(membench_test.ScratchDirCase):
    def setUp(self):
        super().setUp()
        self.ref = os.path.join(self.dir, "ref.json")
        rc, out, err = membench_test.run(["--triad", "-t", "1", "-s", "100000", "-n", "2",
                                          "--save-reference", self.ref, "-q"])
        self.assertEqual(rc, 0, membench_test.describe([], rc, out, err))

    def args(self, option, kind):
        after, _ = HONOURED[option]
        after = [a.format(dir=self.dir, ref=self.ref) for a in after]
        return KINDS[kind] + [option] + after + ["--dry-run"]

    def test_every_option_is_recorded(self):
        """--help lists no option that HONOURED and the measurements leave out."""
        listed = set(help_options())
        self.assertIn("--triad", kernel_flags())
        self.assertEqual(sorted(listed - set(HONOURED) - measurements() - EXITS), [],
                         "record each new option in HONOURED with the measurements that use it")
        self.assertEqual(sorted(set(HONOURED) - listed), [], "options --help does not list")

    def test_every_option_for_every_measurement(self):
        """Given to a run of each measurement, an option runs (--dry-run plans it) where
        HONOURED says it is used, and is refused with one line naming it everywhere else."""
        chooses = measurements()
        for option in help_options():
            if option in chooses or option in EXITS:
                continue
            for kind in KINDS:
                with self.subTest(option=option, kind=kind):
                    args = self.args(option, kind)
                    rc, out, err = membench_test.run(args, timeout=60)
                    msg = membench_test.describe(args, rc, out, err)
                    if kind in HONOURED[option][1]:
                        membench_test.skip_if_emulated_llc_unknown(rc, err)
                        self.assertEqual(rc, 0, msg)
                        self.assertNotIn(" applies to ", err, msg)
                        continue
                    self.assertEqual((rc, out), (2, ""), msg)
                    self.assertEqual(len(err.splitlines()), 1, msg)
                    self.assertIn(option, err, msg)

    def test_the_refusal_names_what_the_option_and_the_run_measure(self):
        """The line says what the option applies to, what the run measures and the remedy."""
        cases = [
            (["--timer", "-t", "2"],
             "-t/--threads applies to the kernels and --tlb, not to --timer (what this run "
             "measures); add one of them, or drop -t/--threads"),
            (["--tlb", "--stores", "nt"],
             "--stores applies to the kernels, not to --tlb (what this run measures); add a "
             "kernel (e.g. --triad), or drop --stores"),
            (["--faults", "--pages", "2m"],
             "--pages applies to the kernels, --tlb and --latency, not to --faults (what this "
             "run measures); add one of them, or drop --pages"),
            (["--faults", "--timer", "--latency-size", "8MiB"],
             "--latency-size applies to --latency, not to --faults and --timer (what this run "
             "measures); add --latency, or drop --latency-size"),
        ]
        for args, words in cases:
            with self.subTest(args=args):
                self.assert_error(args + ["--dry-run"], 2, [words])

    def test_an_option_for_one_of_the_measurements_is_kept(self):
        """-s given to a run of the kernels and --timer sizes the kernels' arrays."""
        doc = self.run_json(["--triad", "--timer", "-s", "1MiB", "-t", "1", "--dry-run"])
        self.assertEqual(doc["runs"][0]["config"]["array_bytes"], 1 << 20)



class ProbePlacement(membench_test.MembenchTestCase):
    """--bind places --latency's chase and a one-thread --tlb; a PU outside the CPUs membench
    was launched on is refused for --tlb --cpu and --latency as for --bind."""

    def test_latency_chases_on_the_bind_pu(self):
        membench_test.skip_unless_cpus(self, 2)
        pu = sorted(os.sched_getaffinity(0))[1]
        doc = self.run_json(["--latency", "--bind", str(pu), "--latency-size", "4MiB"])
        self.assertTrue(doc["latency"]["measured"], doc["latency"])
        self.assertEqual(doc["latency"]["cpu"], pu)
        out, _ = self.run_ok(["--latency", "--bind", str(pu), "--dry-run"])
        self.assertIn("CPU %d, memory node" % pu, out)

    def test_latency_refuses_a_bind_without_one_pu(self):
        self.assert_error(["--latency", "--bind", "none", "--dry-run"], 2,
                          ["--latency chases on one bound PU", "--bind none"])

    def test_tlb_runs_on_the_bind_pu(self):
        membench_test.skip_unless_cpus(self, 2)
        pu = sorted(os.sched_getaffinity(0))[1]
        doc = self.run_json(["--tlb", "--bind", str(pu), "--tlb-pages", "8", "--tlb-trials",
                             "1000", "--repeat", "1"])
        self.assertEqual(doc["tlb"]["config"]["cpu"], pu)
        self.assertEqual(doc["tlb"]["config"]["bind"], "PU %d (--bind %d)" % (pu, pu))

    def test_tlb_refuses_cpu_and_bind_together(self):
        self.assert_error(["--tlb", "--cpu", "0", "--bind", "0", "--dry-run"], 2,
                          ["--cpu and --bind both place the TLB probe"])

    def outside_launch_cpus(self, args, words):
        membench_test.skip_unless_cpus(self, 2)
        if not shutil.which("taskset"):
            self.skipTest("taskset not installed (util-linux)")
        first, second = sorted(os.sched_getaffinity(0))[:2]
        rc, out, err = membench_test.run(args(first), wrapper=["taskset", "-c", str(second)],
                                         timeout=60)
        msg = membench_test.describe(args(first), rc, out, err)
        self.assertEqual((rc, out, len(err.splitlines())), (2, "", 1), msg)
        for word in words(first, second):
            self.assertIn(word, err, msg)

    def test_tlb_cpu_outside_the_launch_cpus(self):
        """taskset -c B membench --tlb --cpu A: exit 2, as --bind A is."""
        self.outside_launch_cpus(
            lambda a: ["--tlb", "--cpu", str(a), "--tlb-pages", "8", "--tlb-trials", "100"],
            lambda a, b: ["--cpu %d" % a, "not one this process may use", "allowed: %d" % b])

    def test_latency_bind_outside_the_launch_cpus(self):
        self.outside_launch_cpus(
            lambda a: ["--latency", "--bind", str(a), "--latency-size", "4MiB"],
            lambda a, b: ["--latency", "--bind %d" % a, "allowed: %d" % b])


class PoolMessages(membench_test.MembenchTestCase):
    def test_tlb_1g_pages_with_an_empty_pool(self):
        """--tlb --pages 1g with too few 1 GiB pages names the pool and how to reserve it
        (exit 3), not the memory budget and --tlb-pages."""
        pool = membench_test.hugepage_pool(1048576)
        if pool and pool["available"] >= 64:
            self.skipTest("the 1 GiB pool has 64 free pages here")
        line = self.assert_error(["--tlb", "--tlb-pages", "64", "--pages", "1g"], 3,
                                 ["--tlb --pages 1g"])
        self.assertNotIn("lower --tlb-pages", line)
        if pool:
            self.assertIn("1 GiB hugetlb pool has too few free pages: 64 needed", line)
            self.assertIn("hugepages=64", line)


class HelpText(membench_test.MembenchTestCase):
    def test_one_probes_section_and_auto_stores_as_readme_says(self):
        out, _ = self.run_ok(["--help"])
        self.assertEqual(len(re.findall(r"^Probes", out, re.M)), 1, out)
        self.assertIn("(when the\n                          kernels disagree) mixed stores", out)


if __name__ == "__main__":
    membench_test.main()
