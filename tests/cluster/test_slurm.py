# ctest: LABELS slurm threads
"""membench under a real Slurm (tests/lib/slurm_cluster.py: munged, slurmctld and slurmd on
this machine, one node): srun --mpi=pmix of the MPI build gives the cluster table, an sbatch job runs the
acceptance profile and writes its JSON, and contrib/slurm/membench-healthcheck drains and
resumes the node. Needs root and slurm-wlm + munge; skips with the reason otherwise.

The acceptance runs use this machine's own topology (lstopo's XML, so binding and placement are
real) with its caches of level 2 and up declared at most 1 MiB: the STREAM-rule arrays are then
8 MB instead of 4x the real LLC, and each run takes about a second. These tests check the
Slurm plumbing and the verdicts' effect on the node, not this machine's bandwidth. As
--acceptance refuses a topology that is not this machine, they run membench-hooked with
MEMBENCH_TEST_TOPOLOGY_IS_MACHINE=1 (the XML is this machine's, only its caches are smaller).

HealthCheckProgramTest runs the health check as slurmd's HealthCheckProgram (slurm.conf off
the default path, the check reached with only SLURMD_NODENAME): drained on FAIL, untouched on
INCONCLUSIVE and on its own error, resumed after a real PASS."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, small_cache_topology  # noqa: E402

import slurm_cluster  # noqa: E402

#: The acceptance runs on the small-cache XML: the hooked binary, told the XML is this machine.
TOPOLOGY_HOOK = {"MEMBENCH_TEST_TOPOLOGY_IS_MACHINE": "1"}
HEALTHCHECK = os.path.join(os.path.dirname(membench_test.TESTS_DIR), "contrib", "slurm",
                           "membench-healthcheck")
MPI_BUILD = os.environ.get("MEMBENCH_MPI_BUILD") == "1"


def scratch_for_slurm(cls, prefix):
    """A test class's scratch directory (cls.tmp, removed after the class) holding this
    machine's small-cache topology (cls.topology); skips the class without Slurm or lstopo."""
    reason = slurm_cluster.unavailable_reason()
    if reason:
        raise unittest.SkipTest(reason)
    cls.tmp = tempfile.TemporaryDirectory(prefix=prefix)
    cls.addClassCleanup(cls.tmp.cleanup)
    cls.topology = os.path.join(cls.tmp.name, "topology.xml")
    reason = small_cache_topology(cls.topology)
    if reason:
        raise unittest.SkipTest(reason)


def healthcheck_state(scratch):
    """The health check's count of rate FAILs, in the scratch directory (never /var/lib)."""
    return os.path.join(scratch, "healthcheck-state")


#: Why the runs of the real membench under Slurm skip under emulation (seen: a shortfall judged
#: INCONCLUSIVE, exit 5, where the test expects FAIL).
SLURM_VERDICTS = ("the health check's verdicts rest on measured rates and their spread: "
                  + membench_test.TIMING)


class SlurmCase(MembenchTestCase):
    """One local Slurm for the whole class, stopped (and its directory removed) afterwards."""

    @classmethod
    def setUpClass(cls):
        membench_test.skip_under_emulation(cls, SLURM_VERDICTS)
        scratch_for_slurm(cls, "membench-slurm-test-")
        cls.slurm = slurm_cluster.LocalSlurm()
        cls.addClassCleanup(cls.slurm.stop)
        cls.slurm.start()

    def membench_env(self, extra=None):
        """membench's test environment with the small-cache topology of this machine."""
        env = membench_test.make_env(dict(TOPOLOGY_HOOK, OMP_NUM_THREADS=None,
                                          HWLOC_XMLFILE=self.topology, HWLOC_THISSYSTEM="1"))
        env.update(extra or {})
        return env

    def describe(self, proc):
        return "rc=%d\n--- stdout ---\n%s--- stderr ---\n%s\n%s" % (
            proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:], self.slurm.logs())


class SrunSbatchTest(SlurmCase):

    def srun_per_rank(self, extra):
        """Two ranks, each one "node", on this machine. On a small busy VM one rank's kernel
        can run at a tenth of its rate for a few repetitions (while the other rank first
        touches its arrays): 40 repetitions rather than 4 (a few ms each) keep the best rates
        apart by less than the tolerance, and a run whose only failure is a slow rank is
        repeated, up to three times."""
        if not MPI_BUILD:
            self.skipTest("not an MPI build (configure with -DMEMBENCH_MPI=ON)")
        reason = slurm_cluster.pmix_unavailable_reason()
        if reason:
            self.skipTest(reason)
        for _ in range(3):
            proc = self.slurm.srun(["-n", "2", "--mpi=pmix"]
                                   + membench_test.command(membench_test.BIN) + [
                                    "--mpi-per-rank", "-t", "1", "-s", "2000000", "-n", "40",
                                    "--tolerance", "60"] + extra,
                                   base_env=membench_test.make_env())
            noisy = proc.returncode == 1 and re.search(r"FAIL slow|\"slow\": *true",
                                                       proc.stdout)
            if not noisy:
                break
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        return proc.stdout

    def test_srun_pmix_cluster_table(self):
        """srun starts two ranks over PMIx: a table of two nodes, a median and a verdict."""
        out = self.srun_per_rank([])
        self.assertRegex(out, r"(?m)^Cluster: 2 nodes\b")
        self.assertRegex(out, r"(?m)^\S+\s+0(\s+[\d.]+){4}\s+\S.*$")
        self.assertRegex(out, r"(?m)^\S+\s+1(\s+[\d.]+){4}\s+\S.*$")
        self.assertRegex(out, r"(?m)^median\s")
        self.assertEqual(len(re.findall(r"(?m)^Verdict: ", out)), 1, out)

    def test_srun_pmix_cluster_json(self):
        doc = json.loads(self.srun_per_rank(["--format", "json"]))
        self.assertEqual(doc["cluster"]["nodes"], 2)
        self.assertEqual(sorted(n["rank"] for n in doc["nodes"]), [0, 1])
        for node in doc["nodes"]:
            self.assertGreater(node["best_rate_mbps"]["Triad"], 0)

    def test_sbatch_acceptance_writes_json(self):
        """A batch job runs the acceptance profile; its JSON and exit status land in files."""
        report = os.path.join(self.slurm.job_dir(), "acceptance.json")
        script = ("#!/bin/sh\n%s --acceptance --expect triad=1000 --time-limit 20 "
                  "--format json -o %s\necho $? > %s.status\n"
                  % (shlex.quote(membench_test.binary_for(TOPOLOGY_HOOK)), shlex.quote(report),
                     shlex.quote(report)))
        job = self.slurm.sbatch(script, ["--exclusive", "--job-name", "membench-acceptance"],
                                base_env=self.membench_env())
        state = self.slurm.wait_job(job)
        out_file = os.path.join(self.slurm.job_dir(), "slurm-%s.out" % job)
        output = "(no job output)"
        if os.path.exists(out_file):
            with open(out_file) as f:
                output = f.read()
        msg = "job %s: %s\n%s\n%s" % (job, state, output, self.slurm.logs())
        self.assertEqual(state, "COMPLETED", msg)
        with open(report + ".status") as f:
            self.assertEqual(f.read().strip(), "0", msg)
        with open(report) as f:
            doc = json.load(f)
        acc = doc["acceptance"]
        self.assertTrue(acc["passed"], msg)
        names = [c["name"] for c in acc["checks"]]
        self.assertIn("Triad", names)
        self.assertTrue(all(c["passed"] for c in acc["checks"]), acc)
        self.assertTrue(doc["runs"][0]["validation"]["passed"])


class HealthCheckTest(SlurmCase):
    """contrib/slurm/membench-healthcheck run on the node as slurmd would run it."""

    def setUp(self):
        super().setUp()
        self.addCleanup(self.resume_node)

    def resume_node(self):
        if self.slurm.node_reason() is not None:
            self.slurm.run(["scontrol", "update", "nodename=" + self.slurm.node,
                            "state=resume"], timeout=20)
        self.slurm.wait_state("idle")

    def healthcheck(self, args, extra_env=None):
        env = self.membench_env({"SLURMD_NODENAME": self.slurm.node,
                                 "MEMBENCH_HEALTHCHECK_CONFIG": os.devnull,
                                 "MEMBENCH_HEALTHCHECK_CONFIRM": "1",
                                 "MEMBENCH_HEALTHCHECK_STATE": healthcheck_state(self.tmp.name)})
        env.update(extra_env or {})
        binary = membench_test.launcher(membench_test.binary_for(TOPOLOGY_HOOK))
        return self.slurm.run([HEALTHCHECK, "--membench", binary] + list(args),
                              timeout=120, base_env=env)

    def sinfo_r(self):
        """sinfo -R, its reason column wide enough for the whole reason (printed to stderr)."""
        proc = self.slurm.run(["sinfo", "-R", "-o", "%250E %9u %19H %N"], timeout=20,
                              check=True)
        sys.stderr.write("\n$ sinfo -R\n" + proc.stdout)
        return proc.stdout

    def drain_by_hand(self, reason):
        self.slurm.run(["scontrol", "update", "nodename=" + self.slurm.node, "state=drain",
                        "reason=" + reason], timeout=20, check=True)

    def test_failure_drains_then_pass_resumes(self):
        membench_test.skip_unless_all_cpus(self, "a passing health check (membench --acceptance)")
        proc = self.healthcheck(["--expect", "triad=999999999", "--time-limit", "20"])
        self.assertEqual(proc.returncode, 1, self.describe(proc))
        reason = self.slurm.node_reason()
        # what disturbed the run (this machine's other work) may follow as its likely cause
        self.assertRegex(reason or "", r"^membench: Triad -\d+% \(\d+ of 999999999 MB/s "
                                       r"expected\)(; likely: [^;]+)?$")
        self.assertIn(reason, self.sinfo_r())
        self.assertEqual(self.slurm.node_state(), "drained")

        proc = self.healthcheck(["--expect", "triad=1000", "--time-limit", "20"])
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertEqual(self.slurm.wait_state("idle"), "idle")
        self.assertIsNone(self.slurm.node_reason())

    def test_reason_from_a_reference(self):
        """A reference far above the machine: the reason says 'below reference'."""
        membench_test.skip_unless_all_cpus(self, "a passing health check (membench --acceptance)")
        ref = os.path.join(self.tmp.name, "ref.json")
        proc = subprocess.run(membench_test.command(membench_test.binary_for(TOPOLOGY_HOOK))
                              + ["--acceptance",
                               "--time-limit", "20",
                               "--save-reference", ref], env=self.membench_env(),
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(ref) as f:
            doc = json.load(f)
        # Triad far above this machine, the other kernels far below: only Triad fails.
        doc["rates_mbps"] = {k: 1 for k in doc["rates_mbps"]}
        doc["rates_mbps"]["Triad"] = 999999999
        with open(ref, "w") as f:
            json.dump(doc, f)
        proc = self.healthcheck(["--reference", ref])
        self.assertEqual(proc.returncode, 1, self.describe(proc))
        self.assertRegex(self.slurm.node_reason() or "",
                         r"^membench: Triad -\d+% \(\d+ of 999999999 MB/s reference\)")

    def test_pass_leaves_a_drain_by_someone_else(self):
        membench_test.skip_unless_all_cpus(self, "a passing health check (membench --acceptance)")
        self.drain_by_hand("DIMM B2 replaced, burn-in pending")
        proc = self.healthcheck(["--expect", "triad=1000"])
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertEqual(self.slurm.node_state(), "drained")
        self.assertEqual(self.slurm.node_reason(), "DIMM B2 replaced, burn-in pending")
        # A failure does not overwrite their reason either.
        proc = self.healthcheck(["--expect", "triad=999999999"])
        self.assertEqual(proc.returncode, 1, self.describe(proc))
        self.assertEqual(self.slurm.node_reason(), "DIMM B2 replaced, burn-in pending")
        self.assertIn("DIMM B2 replaced", self.sinfo_r())

    def test_configuration_errors_change_nothing(self):
        """A missing reference and membench's own usage error (exit 2) are the check's
        configuration errors: exit 4, the node as it was (issue 25: they drained it)."""
        missing = os.path.join(self.tmp.name, "no-such-reference.json")
        proc = self.healthcheck(["--reference", missing])
        self.assertEqual(proc.returncode, 4, self.describe(proc))
        self.assertIn("no-such-reference.json", proc.stderr)
        proc = self.healthcheck(["--expect", "triad=1000", "--", "--bogus-option"])
        self.assertEqual(proc.returncode, 4, self.describe(proc))
        self.assertIn("membench refused the configuration (exit 2)", proc.stderr)
        self.assertIsNone(self.slurm.node_reason())
        self.assertEqual(self.slurm.node_state(), "idle")

    def test_config_file_as_slurmd_runs_it(self):
        """slurmd gives no arguments and only SLURMD_NODENAME: the configuration file names
        membench and the expectation."""
        conf = os.path.join(self.tmp.name, "healthcheck.conf")
        with open(conf, "w") as f:
            f.write("MEMBENCH=%s\nMEMBENCH_EXPECT=triad=999999999\nMEMBENCH_TIME_LIMIT=20\n"
                    "MEMBENCH_HEALTHCHECK_CONFIRM=1\nMEMBENCH_HEALTHCHECK_STATE=%s\n"
                    % (shlex.quote(membench_test.launcher(membench_test.binary_for(TOPOLOGY_HOOK))),
                       shlex.quote(healthcheck_state(self.tmp.name))))
        env = {"SLURMD_NODENAME": self.slurm.node, "MEMBENCH_HEALTHCHECK_CONFIG": conf,
               "SLURM_CONF": self.slurm.conf, "HWLOC_XMLFILE": self.topology,
               "HWLOC_THISSYSTEM": "1", "MEMBENCH_TEST_TOPOLOGY_IS_MACHINE": "1"}
        # a sanitizer build's options (what ctest gives every test), not the program's input
        env.update({k: v for k, v in os.environ.items() if k.endswith("SAN_OPTIONS")})
        proc = subprocess.run([HEALTHCHECK], env=env, capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(proc.returncode, 1, self.describe(proc))
        reason = self.slurm.node_reason() or ""
        self.assertRegex(reason, r"^membench: .*Triad -\d+% \(\d+ of 999999999 MB/s")
        # the worst check first: the cpus check before rates where this test may not use
        # every CPU (CI's one-CPU job, taskset -c 0)
        restricted = len(os.sched_getaffinity(0)) < os.cpu_count()
        self.assertTrue(reason.startswith("membench: cpus: " if restricted else
                                          "membench: Triad "), reason)

    def test_usage_errors_change_nothing(self):
        proc = self.healthcheck(["--membench", "/nonexistent/membench"])
        self.assertEqual(proc.returncode, 2, self.describe(proc))
        self.assertIn("membench not found at /nonexistent/membench", proc.stderr)
        proc = self.healthcheck(["--bogus"])
        self.assertEqual(proc.returncode, 2, self.describe(proc))
        self.assertIsNone(self.slurm.node_reason())
        self.assertEqual(self.slurm.node_state(), "idle")
        proc = self.healthcheck(["--help"])
        self.assertEqual(proc.returncode, 0)
        self.assertIn("Exit status:", proc.stdout)


HEALTHCHECK_PROGRAM = r"""#!/bin/sh
# slurm.conf's HealthCheckProgram for the tests: the real check with the configuration file
# of the scratch directory; each run appends "start GENERATION" to runs as it starts and
# "GENERATION STATUS" as it ends (the generation the test wrote with that configuration), and
# the environment slurmd gave it to env.
D=@DIR@
gen=$(cat "$D/generation" 2>/dev/null)
echo "start $gen" >>"$D/runs"
env >"$D/env"
if [ -f "$D/healthcheck.conf" ]; then
    MEMBENCH_HEALTHCHECK_CONFIG=$D/healthcheck.conf @HEALTHCHECK@ >>"$D/healthcheck.log" 2>&1
    rc=$?
else
    rc=off
fi
echo "$gen $rc" >>"$D/runs"
"""

RUN_WAIT_S = 90  # a few HealthCheckIntervals and one acceptance run of about a second


class HealthCheckProgramTest(MembenchTestCase):
    """A real slurmd runs contrib/slurm/membench-healthcheck as its HealthCheckProgram every
    2 s, on a node in any state; slurm.conf is in the scratch directory, given to slurmd with
    -f, and slurmd starts the program with only SLURMD_NODENAME. The test changes the
    configuration file and waits for slurmd's next run of it (an event: the runs file), then
    reads the node with scontrol."""

    @classmethod
    def setUpClass(cls):
        scratch_for_slurm(cls, "membench-hcprog-test-")
        d = cls.tmp.name
        os.chmod(d, 0o755)
        cls.program = os.path.join(d, "healthcheck-program")
        with open(cls.program, "w") as f:
            f.write(HEALTHCHECK_PROGRAM.replace("@DIR@", shlex.quote(d))
                    .replace("@HEALTHCHECK@", shlex.quote(HEALTHCHECK)))
        os.chmod(cls.program, 0o755)
        cls.generation = 0
        cls.slurm = slurm_cluster.LocalSlurm(extra_conf=[
            "HealthCheckProgram=" + cls.program, "HealthCheckInterval=2",
            "HealthCheckNodeState=ANY"])
        cls.addClassCleanup(cls.slurm.stop)
        cls.slurm.start()

    def setUp(self):
        super().setUp()
        self.addCleanup(self.switch_off)

    def configure(self, lines, slurm_conf=True):
        """A new configuration file (and generation); the generation's first run's status."""
        conf = os.path.join(self.tmp.name, "healthcheck.conf")
        if lines is None:
            if os.path.exists(conf):
                os.remove(conf)
        else:
            if slurm_conf:
                lines = lines + ["SLURM_CONF=" + shlex.quote(self.slurm.conf)]
            lines = lines + ["MEMBENCH_HEALTHCHECK_STATE="
                             + shlex.quote(healthcheck_state(self.tmp.name))]
            with open(conf + ".new", "w") as f:
                f.write("".join(line + "\n" for line in lines))
            os.rename(conf + ".new", conf)
        type(self).generation += 1
        gen = str(self.generation)
        with open(os.path.join(self.tmp.name, "generation.new"), "w") as f:
            f.write(gen)
        os.rename(os.path.join(self.tmp.name, "generation.new"),
                  os.path.join(self.tmp.name, "generation"))
        return self.wait_run(gen)

    def wait_run(self, gen, nth=1):
        """Wait for slurmd's nth run of the health check at generation gen; its status."""
        deadline = time.monotonic() + RUN_WAIT_S
        runs = os.path.join(self.tmp.name, "runs")
        while time.monotonic() < deadline:
            try:
                with open(runs) as f:
                    seen = [line.split()[1] for line in f
                            if len(line.split()) == 2 and line.split()[0] == gen]
                if len(seen) >= nth:
                    return seen[nth - 1]
            except OSError:
                pass
            time.sleep(0.2)
        self.fail("slurmd did not run the health check (generation %s) within %d s\n%s\n%s"
                  % (gen, RUN_WAIT_S, self.log(), self.slurm.logs()))

    def wait_settled(self):
        """Wait until every run that started has ended: no check is changing the node."""
        deadline = time.monotonic() + RUN_WAIT_S
        runs = os.path.join(self.tmp.name, "runs")
        while time.monotonic() < deadline:
            with open(runs) as f:
                words = [line.split() for line in f]
            if sum(w[0] == "start" for w in words) == sum(w[0] != "start" for w in words):
                return
            time.sleep(0.2)
        self.fail("a health check run did not end within %d s\n%s" % (RUN_WAIT_S, self.log()))

    def log(self):
        try:
            with open(os.path.join(self.tmp.name, "healthcheck.log")) as f:
                return "--- healthcheck.log ---\n" + f.read()[-3000:]
        except OSError:
            return "(no healthcheck.log)"

    def switch_off(self):
        self.configure(None)
        shutil.rmtree(healthcheck_state(self.tmp.name), ignore_errors=True)
        if self.slurm.node_reason() is not None:
            self.slurm.run(["scontrol", "update", "nodename=" + self.slurm.node,
                            "state=resume"], timeout=20)
        self.slurm.wait_state("idle")

    def real_membench(self, expect):
        membench_test.skip_under_emulation(self, SLURM_VERDICTS)
        # slurmd gives the program none of ctest's environment: a sanitizer build's options
        # are passed on here (without them TSan reports libomp's own accesses, exit 66)
        sanitizer = ["export %s=%s" % (k, shlex.quote(v)) for k, v in sorted(os.environ.items())
                     if k.endswith("SAN_OPTIONS")]
        binary = membench_test.launcher(membench_test.binary_for(TOPOLOGY_HOOK))
        return ["MEMBENCH=" + shlex.quote(binary),
                "MEMBENCH_EXPECT=" + expect, "MEMBENCH_TIME_LIMIT=10",
                "export HWLOC_XMLFILE=%s HWLOC_THISSYSTEM=1 MEMBENCH_TEST_TOPOLOGY_IS_MACHINE=1"
                % shlex.quote(self.topology)] + sanitizer

    def fake_membench(self, body):
        path = os.path.join(self.tmp.name, "fake-membench")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nulimit -c 0\n" + body + "\n")
        os.chmod(path, 0o755)
        return ["MEMBENCH=" + shlex.quote(path), "MEMBENCH_EXPECT=triad=1000"]

    def test_fail_inconclusive_own_error_pass(self):
        membench_test.skip_unless_all_cpus(self, "a passing health check (membench --acceptance)")
        rc = self.configure(self.real_membench("triad=999999999"))
        with open(os.path.join(self.tmp.name, "env")) as f:
            given = sorted(line.split("=", 1)[0] for line in f if "=" in line)
        sys.stderr.write("\nslurmd gave HealthCheckProgram (and sh added): %s\n"
                         % " ".join(given))
        sys.stderr.write("FAIL, the first: status %s, %s\n" % (rc, self.slurm.node_state()))
        self.assertEqual(rc, "0", self.log())  # left as it was: drained if the next confirms it
        self.assertIsNone(self.slurm.node_reason())
        self.assertIn("1 of 2 in a row", self.log())
        rc = self.wait_run(str(self.generation), nth=2)
        self.assertEqual(rc, "1", self.log())
        # a third run may be under way with this configuration: switched off, and every run
        # ended, the reason stays as the last real check left it
        self.configure(None)
        self.wait_settled()
        reason = self.slurm.node_reason()
        sys.stderr.write("FAIL, the second in a row: status %s, %s, Reason=%s\n"
                         % (rc, self.slurm.node_state(), reason))
        self.assertRegex(reason or "", r"^membench: Triad -\d+% \(\d+ of 999999999 MB/s.*"
                                       r"; 2 checks in a row$")
        self.assertEqual(self.slurm.node_state(), "drained")

        rc = self.configure(self.fake_membench(
            "echo 'membench: INCONCLUSIVE: Triad varied 23% across repetitions' >&2; exit 5"))
        sys.stderr.write("INCONCLUSIVE: status %s, %s\n" % (rc, self.slurm.node_state()))
        self.assertEqual(rc, "0", self.log())  # left as it is on purpose: not an error
        self.assertEqual(self.slurm.node_reason(), reason)
        self.assertEqual(self.slurm.node_state(), "drained")

        rc = self.configure(self.real_membench("triad=1000") + ['MEMBENCH_ARGS="--dry-run"'])
        sys.stderr.write("own error (--dry-run): status %s, %s\n" % (rc, self.slurm.node_state()))
        self.assertEqual(rc, "4", self.log())
        self.assertEqual(self.slurm.node_reason(), reason)
        self.assertIn("measures nothing", self.log())

        rc = self.configure(self.real_membench("triad=1000"))
        state = self.slurm.wait_state("idle")
        sys.stderr.write("PASS: status %s, %s, Reason=%s\n"
                         % (rc, state, self.slurm.node_reason()))
        self.assertEqual(rc, "0", self.log())
        self.assertEqual(state, "idle")
        self.assertIsNone(self.slurm.node_reason())

    def test_slurm_conf_found_from_slurmd(self):
        """No SLURM_CONF in the configuration file: the check takes slurmd's."""
        rc = self.configure(self.fake_membench("exit 1"), slurm_conf=False)
        self.assertEqual(rc, "4", self.log())  # exit 1 without a verdict is not a FAIL
        rc = self.configure(self.fake_membench("kill -s SEGV $$"), slurm_conf=False)
        self.assertEqual(rc, "1", self.log())
        self.assertEqual(self.slurm.node_reason(), "membench: crashed (SIGSEGV)")


if __name__ == "__main__":
    membench_test.main()
