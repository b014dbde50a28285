# ctest: LABELS threads races
"""Thread placement: policies planned on fake machines (--dry-run), binding verified on this
one, OpenMP variables, sweeps and per-domain rates."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, run, describe, topology  # noqa: E402

SEED = {"HWLOC_SYNTHETIC": "pack:2 l3:1(size=20MiB) core:8 pu:1"}
SMT = {"HWLOC_SYNTHETIC": "pack:1 l3:1(size=8MiB) core:4 pu:2"}
MiB = 1 << 20


def xml(name):
    return {"HWLOC_XMLFILE": topology(name)}


class PlannedPlacementTest(MembenchTestCase):
    """Placement computed from the topology, checked without running anything."""

    def plan(self, args, env):
        return self.run_json(["--dry-run"] + list(args), env_extra=env)

    def pus(self, doc, run=0):
        return [p["pu"] for p in doc["runs"][run]["placement"]]

    def test_seed_compact_fills_first_cores(self):
        doc = self.plan(["-t", "4", "--bind", "compact"], SEED)
        self.assertEqual(self.pus(doc), [0, 1, 2, 3])
        self.assertEqual({p["package"] for p in doc["runs"][0]["placement"]}, {0})
        self.assertEqual(doc["runs"][0]["config"]["bind"], "compact")

    def test_seed_scatter_two_per_package(self):
        doc = self.plan(["-t", "4", "--bind", "scatter"], SEED)
        packages = [p["package"] for p in doc["runs"][0]["placement"]]
        self.assertEqual(sorted(packages), [0, 0, 1, 1])
        self.assertEqual(packages[:2], [0, 1], "scatter alternates packages")
        self.assertEqual(len(set(self.pus(doc))), 4)

    def test_default_is_scatter_below_one_thread_per_core(self):
        doc = self.plan(["-t", "2"], SEED)
        self.assertEqual(doc["runs"][0]["config"]["bind"], "scatter")
        self.assertEqual([p["package"] for p in doc["runs"][0]["placement"]], [0, 1])
        doc = self.plan([], dict(SEED, OMP_NUM_THREADS=None))
        self.assertEqual(doc["runs"][0]["config"]["threads"], 16)
        self.assertEqual(doc["runs"][0]["config"]["bind"], "compact")
        self.assertEqual(sorted(self.pus(doc)), list(range(16)))

    def test_smt_compact_one_pu_per_core_first(self):
        doc = self.plan(["-t", "4", "--bind", "compact"], SMT)
        cores = [p["core"] for p in doc["runs"][0]["placement"]]
        self.assertEqual(cores, [0, 1, 2, 3])
        self.assertEqual(self.pus(doc), [0, 2, 4, 6])
        doc = self.plan(["-t", "6", "--bind", "compact"], SMT)
        self.assertEqual(self.pus(doc), [0, 2, 4, 6, 1, 3])

    def test_smt_default_threads_are_cores(self):
        doc = self.plan([], dict(SMT, OMP_NUM_THREADS=None))
        self.assertEqual(doc["system"]["cores"], 4)
        self.assertEqual(doc["system"]["pus"], 8)
        self.assertEqual(doc["runs"][0]["config"]["threads"], 4)
        self.assertEqual(len({p["core"] for p in doc["runs"][0]["placement"]}), 4)

    def test_smt_text_says_siblings_used(self):
        out, err = self.run_ok(["--dry-run", "-t", "6", "--bind", "compact"], SMT)
        self.assertIn("SMT siblings used", out)
        self.assertIn("SMT siblings are used", err)

    def test_oversubscription_wraps_and_warns(self):
        out, err = self.run_ok(["--dry-run", "-t", "10", "--bind", "compact"], SMT)
        self.assertIn("oversubscribed", err)
        self.assertIn("PUs shared by several threads", out)

    def test_many_numa_many_l3_machine(self):
        doc = self.plan(["-t", "8", "--bind", "scatter"], xml("epyc-7763-2s-nps4.xml"))
        sysinfo = doc["system"]
        self.assertEqual((sysinfo["packages"], sysinfo["numa_nodes"]), (2, 8))
        self.assertEqual((sysinfo["llc_count"], sysinfo["llc_bytes_total"]), (16, 512 * MiB))
        self.assertEqual((sysinfo["cores"], sysinfo["pus"]), (128, 256))
        placement = doc["runs"][0]["placement"]
        self.assertEqual(sorted(p["numa"] for p in placement), list(range(8)),
                         "8 scattered threads: one per NUMA node")
        config = doc["runs"][0]["config"]
        self.assertEqual(config["llc_count_used"], 8)
        self.assertEqual(config["array_elements"], 4 * 8 * 32 * MiB // 8)

    def test_all_cores_use_every_llc(self):
        doc = self.plan([], dict(xml("epyc-7763-2s-nps4.xml"), OMP_NUM_THREADS=None))
        config = doc["runs"][0]["config"]
        self.assertEqual(config["threads"], 128)
        self.assertEqual(config["llc_bytes_used"], 512 * MiB)
        self.assertEqual(config["array_elements"], 4 * 512 * MiB // 8)

    def test_xeon_snc4_scatter_spreads_numa(self):
        doc = self.plan(["-t", "4", "--bind", "scatter"], xml("xeon-8480-2s-snc4.xml"))
        placement = doc["runs"][0]["placement"]
        self.assertEqual(len({p["numa"] for p in placement}), 4)
        self.assertEqual(sorted(p["package"] for p in placement), [0, 0, 1, 1])

    def test_seed_xml_compact_skips_hyperthreads(self):
        doc = self.plan(["-t", "16", "--bind", "compact"], xml("xeon-e5-2670-2s.xml"))
        placement = doc["runs"][0]["placement"]
        self.assertEqual(len({p["core"] for p in placement}), 16)
        self.assertEqual(doc["runs"][0]["config"]["array_elements"], 20971520)

    def test_explicit_list(self):
        doc = self.plan(["-t", "6", "--bind", "0,2,4-7"], SEED)
        self.assertEqual(self.pus(doc), [0, 2, 4, 5, 6, 7])
        self.assertEqual(doc["runs"][0]["config"]["bind"], "0,2,4-7")
        doc = self.plan(["-t", "2", "--bind", "9,3"], SEED)
        self.assertEqual(self.pus(doc), [9, 3])
        self.assertEqual([p["package"] for p in doc["runs"][0]["placement"]], [1, 0])

    def test_repeated_bind_lists_sweep(self):
        doc = self.plan(["-t", "2", "--bind", "0,1", "--bind", "0,8"], SEED)
        self.assertEqual([self.pus(doc, 0), self.pus(doc, 1)], [[0, 1], [0, 8]])

    def test_threads_times_binds(self):
        """--triad --threads 1,2 --bind compact,scatter: four runs, all combinations."""
        doc = self.plan(["--triad", "--threads", "1,2", "--bind", "compact,scatter"], SEED)
        combos = [(r["config"]["bind"], r["config"]["threads"]) for r in doc["runs"]]
        self.assertEqual(combos, [("compact", 1), ("compact", 2), ("scatter", 1),
                                  ("scatter", 2)])
        sizes = {r["config"]["array_elements"] for r in doc["runs"]}
        self.assertEqual(sizes, {20971520}, "one array size for the whole sweep")

    def test_none_and_openmp_env_plan_nothing(self):
        doc = self.plan(["-t", "2", "--bind", "none"], SEED)
        self.assertEqual(doc["runs"][0]["placement"], [])
        self.assertEqual(doc["runs"][0]["config"]["llc_bytes_used"], 40 * MiB)
        doc = self.plan(["-t", "2"], dict(SEED, OMP_PROC_BIND="close"))
        self.assertEqual(doc["runs"][0]["config"]["bind"], "openmp-env")

    def test_bind_overrides_openmp_variables_with_note(self):
        rc, out, err = run(["--dry-run", "-t", "2", "--bind", "compact"],
                           dict(SEED, OMP_PLACES="cores"))
        self.assertEqual(rc, 0, describe([], rc, out, err))
        self.assertIn("overrides OMP_PLACES", err)


class RealBindingTest(MembenchTestCase):
    """Binding on this machine, read back after the run."""

    def test_two_threads_bound_and_verified(self):
        cpus = os.sched_getaffinity(0)
        if len(cpus) < 2:
            self.skipTest("needs 2 allowed CPUs, have %d" % len(cpus))
        doc = self.run_json(["--triad", "--size", "2000000", "-n", "3", "-t", "2",
                             "--bind", "compact"])
        run0 = doc["runs"][0]
        self.assertEqual(run0["threads_misplaced"], 0)
        placement = run0["placement"]
        self.assertEqual([p["pu"] for p in placement], [p["planned_pu"] for p in placement])
        self.assertTrue(all(p["bound"] for p in placement))
        self.assertEqual(len({p["pu"] for p in placement}), 2)
        self.assertTrue(set(p["pu"] for p in placement) <= cpus)
        self.assertTrue(run0["validation"]["passed"])

    def test_explicit_reversed_list(self):
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            self.skipTest("needs 2 allowed CPUs")
        want = [cpus[1], cpus[0]]
        doc = self.run_json(["--copy", "--size", "1000000", "-n", "3", "-t", "2", "--bind",
                             "%d,%d" % tuple(want)])
        self.assertEqual([p["pu"] for p in doc["runs"][0]["placement"]], want)

    def test_per_domain_rates_sum_to_total(self):
        doc = self.run_json(["--triad", "--size", "4000000", "-n", "4", "-t", "2",
                             "--bind", "compact", "--per-domain", "package"])
        run0 = doc["runs"][0]
        domains = run0["domains"]
        self.assertEqual(sum(d["threads"] for d in domains), 2)
        self.assertEqual(sum(d["elements"] for d in domains), 4000000)
        total = run0["results"][0]["best_rate_mbps"]
        summed = sum(d["best_rate_mbps"]["Triad"] for d in domains)
        # Each domain's best is at least as fast as the whole team's (its slowest thread is
        # no slower than the slowest of all), so the domains' rates are never below the total.
        self.assertGreaterEqual(summed, total * 0.999)
        self.assertTrue(all(d["best_rate_mbps"]["Triad"] > 0 for d in domains))

    def test_taskset_restricts_binding(self):
        """Under taskset -c CPU, 2 threads bind only to that CPU, and the report says so."""
        import json
        import shutil
        import subprocess
        if not shutil.which("taskset"):
            self.skipTest("taskset not installed")
        cpu = min(os.sched_getaffinity(0))
        args = ["taskset", "-c", str(cpu)] + membench_test.command(membench_test.BIN) + [
            "--copy", "--size", "1000000", "-n", "3", "-t", "2", "--format", "json"]
        proc = subprocess.run(args, env=membench_test.make_env(), capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        doc = json.loads(proc.stdout)
        self.assertEqual(doc["system"]["cpus_usable"], str(cpu))
        self.assertTrue(doc["system"]["cpus_restricted"])
        self.assertEqual([p["pu"] for p in doc["runs"][0]["placement"]], [cpu, cpu])
        self.assertIn("oversubscribed", proc.stderr)

    def test_text_summary_line(self):
        out, _ = self.run_ok(["--copy", "--size", "1000000", "-n", "3", "-t", "1",
                              "--bind", "compact"])
        self.assertRegex(out, r"Placement: 1 thread on 1 PU, 1 core, 1 package, 1 NUMA node "
                              r"\(bound and verified\)")

    def test_own_xml_is_not_bound_and_fails_placement(self):
        """This host described by its own lstopo XML: hwloc binds nothing on a topology that
        is not this system, so no thread is bound; the text must not say "bound and verified"
        (even when the threads happen to run on their planned PUs) and the placement check
        fails."""
        lstopo = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")
        if not lstopo:
            self.skipTest("needs lstopo (hwloc-nox) to write this host's topology as XML")
        membench_test.skip_unless_cpus(self, 2)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "host.xml")
            subprocess.run([lstopo, "--of", "xml", path], check=True, timeout=60,
                           env=membench_test.make_env())
            env = {"HWLOC_XMLFILE": path}
            args = ["--triad", "--size", "2000000", "-n", "3", "-t", "2", "--bind", "compact",
                    "--expect", "triad=1"]
            rc, out, err = run(args + ["--format", "json"], env_extra=env)
            self.assertEqual(rc, 1, describe(args, rc, out, err))
            doc = json.loads(out)
            run0 = doc["runs"][0]
            self.assertEqual([p["bound"] for p in run0["placement"]], [False, False])
            self.assertEqual(run0["threads_unbound"], 2)
            self.assertTrue(any("threads not bound" in w and path in w
                                for w in run0["warnings"]), run0["warnings"])
            checks = {c["name"]: c for c in doc["acceptance"]["checks"]}
            self.assertFalse(checks["placement"]["passed"], checks["placement"])
            self.assertEqual(checks["placement"]["measured"], "2 of 2 threads not bound")
            rc, out, err = run(args, env_extra=env)
            self.assertEqual(rc, 1, describe(args, rc, out, err))
            self.assertNotIn("bound and verified", out)
            self.assertRegex(out, r"(?m)^Placement: 2 threads .*\(NOT bound\)")
            self.assertRegex(out, r"(?m)^FAIL placement\s+2 of 2 threads not bound")


class OpenMPVariablesCheckedTest(MembenchTestCase):
    """libgomp aborts thread creation (exit 1, the 'check failed' status, no membench: line)
    when GOMP_CPU_AFFINITY names a CPU this process may not use, and ignores a value it cannot
    read: both are caught before any thread starts, exit 2 with a membench: line."""

    def refused(self, value, words, env=None, wrapper=(), threads=1):
        args = ["--triad", "--size", "100000", "-n", "2", "-t", str(threads)]
        rc, out, err = run(args, env_extra=dict(env or {}, GOMP_CPU_AFFINITY=value),
                           wrapper=wrapper)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 2, msg)
        self.assertEqual(out, "", msg)
        if os.environ.get("MEMBENCH_C_COMPILER_ID") != "Clang":  # libomp warns of each CPU
            self.assertEqual(len(err.splitlines()), 1, "one line, no libgomp: line\n" + msg)
        line = err.splitlines()[-1]
        self.assertTrue(line.startswith("membench: GOMP_CPU_AFFINITY='%s'" % value), msg)
        for word in words:
            self.assertIn(word, line, msg)

    def test_cpu_outside_the_machine(self):
        beyond = max(os.sched_getaffinity(0)) + 1
        first = min(os.sched_getaffinity(0))
        for value, threads in (("%d" % beyond, 1), ("%d %d" % (first, beyond), 2),
                               ("%d,%d" % (first, beyond), 2), ("%d,%d" % (beyond, first), 1),
                               ("%d-%d" % (first, beyond), beyond - first + 1)):
            with self.subTest(value=value, threads=threads):
                self.refused(value, ["names CPU %d" % beyond, "one of this run's %d threads"
                                     % threads, "may not use", "unset it"], threads=threads)

    def test_cpu_outside_the_affinity_mask(self):
        if not shutil.which("taskset"):
            self.skipTest("taskset not installed")
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            self.skipTest("needs 2 usable CPUs")
        self.refused(str(cpus[1]), ["names CPU %d" % cpus[1], "(usable: %d)" % cpus[0]],
                     wrapper=["taskset", "-c", str(cpus[0])])

    def test_malformed_values(self):
        for value in ("abc", "0,", "0,,1", "1-0", "0-1:0", "65536", "0 - 1"):
            with self.subTest(value=value):
                self.refused(value, ["0-3,8", "unset it"])

    def test_places_out_of_range(self):
        """libgomp names OMP_PLACES after its detail; libomp (clang) names no variable."""
        if os.environ.get("MEMBENCH_C_COMPILER_ID") == "Clang":
            self.skipTest("libomp's warning about an OS proc ID names no variable")
        self.assert_error_matching(["--dry-run"], 2, r"^membench: OMP_PLACES='\{99999\}' is a "
                                   r"value libgomp cannot read \(Logical CPU number 99999 out "
                                   r"of range\)", {"OMP_PLACES": "{99999}"})

    def test_values_libgomp_reads_or_ignores_still_run(self):
        cpu = min(os.sched_getaffinity(0))
        for env in ({"GOMP_CPU_AFFINITY": str(cpu)}, {"GOMP_CPU_AFFINITY": " %d , %d " % (cpu, cpu)},
                    {"GOMP_CPU_AFFINITY": "%d-%d:1" % (cpu, cpu)},
                    {"GOMP_CPU_AFFINITY": "999", "OMP_PLACES": "cores"},
                    {"GOMP_CPU_AFFINITY": "999", "OMP_PROC_BIND": "false"}):
            with self.subTest(env=env):
                self.run_ok(["--triad", "--size", "100000", "-n", "2"], env_extra=env)

    def test_entries_no_thread_takes_are_not_checked(self):
        """Thread i takes entry i: a site-wide list longer than the node (0-63 on a smaller
        node) runs as long as this run's threads take only usable CPUs, as libgomp does."""
        cpu = min(os.sched_getaffinity(0))
        beyond = max(os.sched_getaffinity(0)) + 1
        value = "%d,%d-%d" % (cpu, beyond, beyond + 62)
        doc = self.run_json(["--triad", "--size", "100000", "-n", "2", "-t", "1"],
                            env_extra={"GOMP_CPU_AFFINITY": value})
        self.assertTrue(doc["runs"][0]["validation"]["passed"])
        self.refused(value, ["names CPU %d" % beyond], threads=2)


if __name__ == "__main__":
    membench_test.main()
