# ctest: LABELS threads
"""contrib/slurm/membench-healthcheck called directly, with a fake Slurm and fake membench
binaries (no root, no Slurm, no measurement): the fake `scontrol` and `sinfo` record their
arguments and environment and keep the node's reason in a file; each fake membench is a shell
script the test writes (exit N, kill itself with a signal, write a JSON report, hang, trap
SIGTERM). Every case of issue 25's health-check bullets: configurations that measure nothing
resume nothing, a crash drains naming the signal, the check's own bad arguments and membench's
usage errors never drain, a hang is killed by the check's timeout, SIGTERM/SIGINT to the check
are passed on at once, multi-partition nodes, the worst check first, exit 5 leaves the node.
The same script under a real slurmd: test_slurm.py."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import small_cache_topology  # noqa: E402

HEALTHCHECK = os.path.join(os.path.dirname(membench_test.TESTS_DIR), "contrib", "slurm",
                           "membench-healthcheck")
NODE = "node17"
OWN_DRAIN = "membench: Triad -41% (53100 of 90000 MB/s reference)"

FAKE_SCONTROL = r"""#!/bin/sh
# fake scontrol: records each call (its arguments one a line, then SLURM_CONF) in calls
D=@DIR@
{ for a in "$@"; do printf 'arg %s\n' "$a"; done; printf 'conf %s\n--\n' "${SLURM_CONF-}"; } \
    >>"$D/calls"
if [ -e "$D/scontrol-fails" ]; then
    echo "scontrol: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host" >&2
    exit 1
fi
case $1 in
    show)
        echo "NodeName=$3 Arch=x86_64 CoresPerSocket=1"
        echo "   CPUAlloc=0 CPUTot=2 CPULoad=0.01"
        echo "   Partitions=batch,debug"
        if [ -s "$D/reason" ]; then
            echo "   State=IDLE+DRAIN ThreadsPerCore=1"
            echo "   Reason=$(cat "$D/reason") [root@2026-12-02T01:00:00]"
        else
            echo "   State=IDLE ThreadsPerCore=1"
        fi ;;
    update)
        for a in "$@"; do
            case $a in
                reason=*) printf '%s' "${a#reason=}" >"$D/reason" ;;
                state=resume|state=RESUME) : >"$D/reason" ;;
            esac
        done ;;
esac
"""

# One line per partition the node is in (sinfo -N), as sinfo prints on such nodes.
FAKE_SINFO = r"""#!/bin/sh
D=@DIR@
{ for a in "$@"; do printf 'arg %s\n' "$a"; done; printf -- '--\n'; } >>"$D/sinfo-calls"
r=$(cat "$D/reason" 2>/dev/null); [ -n "$r" ] || r=none
printf '%s\n%s\n' "$r" "$r"
"""

# fake logger: the check's syslog lines, one a line (its arguments), in syslog
FAKE_LOGGER = r"""#!/bin/sh
printf '%s\n' "$*" >>@DIR@/syslog
"""

# Every fake membench starts so: its arguments in args, its pid in pid, $out is its -o FILE.
MEMBENCH_PRELUDE = r"""#!/bin/sh
ulimit -c 0
D=@DIR@
printf '%s\n' "$@" >"$D/args"
echo $$ >"$D/pid"
out='' prev=''
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
"""


def report(checks, tolerance=5.0):
    """A membench JSON report of acceptance checks: (name, measured, expected floor) for rates
    (expected floor = the reference less the tolerance), (name, measured, expected text) for
    the others; every check listed failed."""
    out = []
    for name, got, want in checks:
        if isinstance(got, (int, float)):
            out.append({"name": name, "passed": False, "measured": "%.1f" % got,
                        "expected": ">= %.1f" % want, "measured_mbps": got,
                        "expected_mbps": want})
        else:
            out.append({"name": name, "passed": False, "measured": got, "expected": want})
    out.append({"name": "locality", "passed": True, "measured": "100%", "expected": ">= 99%"})
    return {"schema": 1, "acceptance": {"passed": False, "tolerance_pct": tolerance,
                                        "checks": out}}


def pass_report(checks=("Copy", "Triad")):
    """membench's JSON report of a PASS: its verdict and the rate checks named."""
    out = [{"name": name, "measured": "95000.0", "expected": ">= 85500.0", "passed": True,
            "verdict": "PASS", "measured_mbps": 95000.0, "expected_mbps": 85500.0}
           for name in checks]
    return {"schema": 1, "dry_run": False,
            "acceptance": {"passed": bool(out), "verdict": "PASS", "tolerance_pct": 5.0,
                           "checks": out}}


class HealthCheckCase(unittest.TestCase):
    """A scratch directory with the fake Slurm on PATH and a node NODE whose reason is in
    reason (empty: not drained)."""

    maxDiff = None

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="membench-hc-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        for name, text in (("scontrol", FAKE_SCONTROL), ("sinfo", FAKE_SINFO),
                           ("logger", FAKE_LOGGER)):
            self.write_exe(os.path.join(self.bin, name), text.replace("@DIR@", self.dir))
        self.set_reason("")
        self.membench = os.path.join(self.dir, "membench")
        self.fake_pass()
        self.addCleanup(self.kill_fake)

    def write_exe(self, path, text):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)

    def fake(self, body):
        """The fake membench: the prelude, then body (shell)."""
        self.write_exe(self.membench, MEMBENCH_PRELUDE.replace("@DIR@", self.dir) + body + "\n")

    def fake_report(self, doc, status=1, stderr="", indent=None):
        """A fake membench that writes doc as its JSON report and exits status."""
        path = os.path.join(self.dir, "canned.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=indent)
        self.fake("cp %s \"$out\"\nprintf '%%s' '%s' >&2\nexit %d" % (path, stderr, status))

    def fake_pass(self, indent=None):
        """A fake membench that passes: a PASS report, exit 0."""
        self.fake_report(pass_report(), status=0, indent=indent)

    def syslog(self):
        try:
            with open(os.path.join(self.dir, "syslog")) as f:
                return f.read()
        except OSError:
            return ""

    def kill_fake(self):
        """Never leave a fake membench running, whatever the test did."""
        pid = self.fake_pid()
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                ours = self.dir.encode() in f.read() or b"sleep" in f.read()
        except (OSError, TypeError):
            return
        if ours:
            os.kill(pid, signal.SIGKILL)

    def fake_pid(self):
        try:
            with open(os.path.join(self.dir, "pid")) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    def set_reason(self, reason):
        with open(os.path.join(self.dir, "reason"), "w") as f:
            f.write(reason)

    def reason(self):
        with open(os.path.join(self.dir, "reason")) as f:
            return f.read()

    def calls(self):
        """The fake scontrol's calls: a list of (argument list, SLURM_CONF)."""
        try:
            with open(os.path.join(self.dir, "calls")) as f:
                text = f.read()
        except OSError:
            return []
        calls = []
        for block in text.split("--\n")[:-1]:
            lines = block.splitlines()
            calls.append(([l[4:] for l in lines if l.startswith("arg ")],
                          [l[5:] for l in lines if l.startswith("conf ")][0]))
        return calls

    def forget_calls(self):
        if os.path.exists(os.path.join(self.dir, "calls")):
            os.remove(os.path.join(self.dir, "calls"))

    def updates(self):
        return [args for args, _ in self.calls() if args and args[0] == "update"]

    def membench_ran(self):
        return os.path.exists(os.path.join(self.dir, "args"))

    def membench_args(self):
        with open(os.path.join(self.dir, "args")) as f:
            return f.read().splitlines()

    def env(self, extra=None):
        env = {"PATH": self.bin + ":/usr/bin:/bin", "SLURMD_NODENAME": NODE,
               "MEMBENCH_HEALTHCHECK_CONFIG": os.devnull, "MEMBENCH": self.membench,
               "MEMBENCH_EXPECT": "triad=90000", "LC_ALL": "C", "TMPDIR": self.dir,
               # a FAIL drains at once (ConfirmTest: the default, 2 in a row), the count of
               # rate FAILs in the scratch directory, never in /var/lib
               "MEMBENCH_HEALTHCHECK_CONFIRM": "1",
               "MEMBENCH_HEALTHCHECK_STATE": os.path.join(self.dir, "state")}
        return membench_test.update_unsetting(env, extra)

    def check(self, args=(), env=None, timeout=60):
        """Run the health check to its end; a CompletedProcess of text."""
        return subprocess.run([HEALTHCHECK] + list(args), env=self.env(env),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)

    def describe(self, proc):
        return "rc=%d\n--- stderr ---\n%s--- scontrol calls ---\n%s" % (
            proc.returncode, proc.stderr, self.calls())

    def assert_untouched(self, proc, status, reason, *words):
        """Exit status, no scontrol update, the node's reason as it was, and every word in
        the check's stderr."""
        msg = self.describe(proc)
        self.assertEqual(proc.returncode, status, msg)
        self.assertEqual(self.updates(), [], msg)
        self.assertEqual(self.reason(), reason, msg)
        for word in words:
            self.assertIn(word, proc.stderr, msg)

    def assert_drained(self, proc, status, reason_start):
        msg = self.describe(proc)
        self.assertEqual(proc.returncode, status, msg)
        self.assertTrue(self.reason().startswith(reason_start),
                        "reason %r\n%s" % (self.reason(), msg))
        self.assertEqual(len(self.updates()), 1, msg)
        self.assertIn("state=drain", self.updates()[0], msg)


class ConfirmTest(HealthCheckCase):
    """A FAIL of rates alone drains only when it is the CONFIRM-th in a row (default 2): one
    slow phase of a drifting node is not a drain; any other failure drains at once."""

    SLOW = [("Triad", 53100.0, 85500.0)]

    def confirm_env(self, extra=None):
        return dict({"MEMBENCH_HEALTHCHECK_CONFIRM": None}, **(extra or {}))

    def count_file(self):
        return os.path.join(self.dir, "state", NODE + ".rate-fails")

    def test_the_second_rate_fail_in_a_row_drains(self):
        self.fake_report(report(self.SLOW))
        proc = self.check(env=self.confirm_env())
        self.assert_untouched(proc, 0, "", "membench: Triad -41%", "1 of 2 in a row",
                              "left as it was", "exit 0: no action yet")
        self.assertRegex(self.syslog(), r"-p daemon\.warning -- .*1 of 2 in a row")
        with open(self.count_file()) as f:
            self.assertEqual(f.read(), "1\n")
        proc = self.check(env=self.confirm_env())
        self.assert_drained(proc, 1, "membench: Triad -41% (53100 of 90000 MB/s expected)")
        self.assertTrue(self.reason().endswith("; 2 checks in a row"), self.reason())
        self.assertFalse(os.path.exists(self.count_file()))

    def test_a_pass_between_starts_the_count_again(self):
        self.fake_report(report(self.SLOW))
        self.assertEqual(self.check(env=self.confirm_env()).returncode, 0)
        self.fake_pass()
        self.assertEqual(self.check(env=self.confirm_env()).returncode, 0)
        self.assertFalse(os.path.exists(self.count_file()))
        self.fake_report(report(self.SLOW))
        self.assert_untouched(self.check(env=self.confirm_env()), 0, "", "1 of 2 in a row")

    def test_an_inconclusive_run_between_keeps_the_count(self):
        self.fake_report(report(self.SLOW))
        self.assertEqual(self.check(env=self.confirm_env()).returncode, 0)
        self.fake("echo 'membench: INCONCLUSIVE: Triad varied 30%' >&2; exit 5")
        self.assertEqual(self.check(env=self.confirm_env()).returncode, 0)
        self.fake_report(report(self.SLOW))
        self.assert_drained(self.check(env=self.confirm_env()), 1, "membench: Triad -41%")

    def test_other_failures_drain_at_once(self):
        for doc in (report([("validation", "failed", "passed")]),
                    report([("cpus", "1 of 2 PUs usable", "all 2 PUs"), self.SLOW[0]])):
            with self.subTest(check=doc["acceptance"]["checks"][0]["name"]):
                self.set_reason("")
                self.forget_calls()
                self.fake_report(doc)
                proc = self.check(env=self.confirm_env())
                self.assert_drained(proc, 1, "membench: " + doc["acceptance"]["checks"][0]["name"])
        self.set_reason("")
        self.forget_calls()
        self.fake("kill -SEGV $$")
        self.assert_drained(self.check(env=self.confirm_env()), 1, "membench: crashed (SIGSEGV)")

    def test_three_in_a_row(self):
        self.fake_report(report(self.SLOW))
        env = self.confirm_env({"MEMBENCH_HEALTHCHECK_CONFIRM": "3"})
        self.assert_untouched(self.check(env=env), 0, "", "1 of 3 in a row")
        self.assert_untouched(self.check(env=env), 0, "", "2 of 3 in a row")
        self.assert_drained(self.check(env=env), 1, "membench: Triad -41%")

    def test_bad_confirm_and_unwritable_state(self):
        self.fake_report(report(self.SLOW))
        for value in ("0", "11", "two", "2x"):
            with self.subTest(confirm=value):
                proc = self.check(["--confirm", value], env=self.confirm_env())
                self.assertEqual(proc.returncode, 2, self.describe(proc))
                self.assertIn("confirm", proc.stderr)
                self.assertFalse(self.membench_ran())
        blocker = os.path.join(self.dir, "not-a-dir")
        with open(blocker, "w") as f:
            f.write("x")
        proc = self.check(env=self.confirm_env({"MEMBENCH_HEALTHCHECK_STATE": blocker}))
        self.assert_untouched(proc, 4, "", "cannot keep the count of failed checks",
                              "MEMBENCH_HEALTHCHECK_CONFIRM=1")
        self.assertFalse(self.membench_ran())


class NothingMeasuredTest(HealthCheckCase):
    """Configurations that measure or judge nothing are the check's own error: exit 4, one
    line, membench not run, and a node membench drained earlier is not resumed."""

    def test_words_that_measure_nothing(self):
        cases = [({"MEMBENCH_ARGS": "--dry-run"}, [], "--dry-run"),
                 ({"MEMBENCH_ARGS": "--tolerance 10 --dry"}, [], "--dry"),
                 ({}, ["--", "--help"], "--help"),
                 ({}, ["--", "-h"], "-h"),
                 ({}, ["--", "--version"], "--version"),
                 ({}, ["--", "-V"], "-V"),
                 ({"MEMBENCH_ARGS": "--vers"}, [], "--vers")]
        for env, args, word in cases:
            with self.subTest(env=env, args=args):
                self.set_reason(OWN_DRAIN)
                proc = self.check(args, env)
                self.assert_untouched(proc, 4, OWN_DRAIN, "'%s'" % word, "measures nothing")
                self.assertFalse(self.membench_ran(), "membench was run")
                self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)

    def test_words_the_check_owns(self):
        """--time-limit in MEMBENCH_ARGS would outrun the timeout; --save-reference would make
        the reference follow the node."""
        for words, why in (("--time-limit 50", "MEMBENCH_TIME_LIMIT"),
                           ("--save-reference /etc/membench/ref.json", "must not rewrite")):
            with self.subTest(words=words):
                proc = self.check(env={"MEMBENCH_ARGS": words})
                self.assert_untouched(proc, 4, "", why)
                self.assertFalse(self.membench_ran())

    def test_no_reference_and_no_expectation(self):
        self.set_reason(OWN_DRAIN)
        proc = self.check(env={"MEMBENCH_EXPECT": None})
        self.assert_untouched(proc, 4, OWN_DRAIN, "no reference and no expectation",
                              "MEMBENCH_REFERENCE")
        self.assertFalse(self.membench_ran())
        # the configuration file missing: the default path named, said not found
        if os.path.exists("/etc/default/membench-healthcheck"):
            self.skipTest("/etc/default/membench-healthcheck exists on this machine")
        proc = self.check(env={"MEMBENCH_EXPECT": None, "MEMBENCH_HEALTHCHECK_CONFIG": None})
        self.assert_untouched(proc, 4, OWN_DRAIN, "/etc/default/membench-healthcheck (not found)")

    def test_expectation_in_membench_args_counts(self):
        proc = self.check(env={"MEMBENCH_EXPECT": None,
                               "MEMBENCH_ARGS": "--expect=triad=1000"})
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertIn("--expect=triad=1000", self.membench_args())

    def test_unreadable_reference(self):
        missing = os.path.join(self.dir, "no-such-ref.json")
        proc = self.check(["--reference", missing])
        self.assert_untouched(proc, 4, "", missing, "--save-reference")
        self.assertFalse(self.membench_ran())


class ResumeTest(HealthCheckCase):
    """A node is resumed only from the report membench wrote in this run: read, its verdict
    PASS, with at least one check; never from membench's exit status or the words of its
    options alone."""

    def test_bundled_short_options_measure_nothing(self):
        """getopt reads -qV as -q -V: membench prints its version and exits 0."""
        for words in ("-qV", "-qh", "-Vq", "-n5 -qV", "-q -hV"):
            with self.subTest(words=words):
                self.set_reason(OWN_DRAIN)
                proc = self.check(env={"MEMBENCH_ARGS": words})
                self.assert_untouched(proc, 4, OWN_DRAIN, "measures nothing")
                self.assertFalse(self.membench_ran(), "membench was run")
        proc = self.check(["--", "-qV"])
        self.assert_untouched(proc, 4, OWN_DRAIN, "'-qV'", "measures nothing")

    def test_a_short_option_value_is_not_an_option(self):
        """-n5 -sV...: the rest of a cluster after an option that takes a value is its value."""
        self.set_reason(OWN_DRAIN)
        proc = self.check(env={"MEMBENCH_ARGS": "-qn5 -s 1000000"})
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertEqual(self.reason(), "")
        self.assertIn("-qn5", self.membench_args())

    def test_exit_0_without_a_pass_report_resumes_nothing(self):
        checks = pass_report()["acceptance"]["checks"]
        no_checks = pass_report(())
        no_checks["acceptance"]["passed"] = True
        disagree = pass_report()
        disagree["acceptance"]["passed"] = False
        elsewhere = {"schema": 1, "runs": [pass_report()]}
        truncated = json.dumps(pass_report(), indent=2)[:-40]
        cases = [("no report", "echo 'membench 0.1.0'"),
                 ("empty report", ': >"$out"'),
                 ("not JSON", "echo 'membench 0.1.0' >\"$out\""),
                 ("truncated", "cat >\"$out\" <<'EOF'\n%s\nEOF" % truncated),
                 ("FAIL", report([("Triad", 53100.0, 85500.0)])),
                 ("INCONCLUSIVE", dict(pass_report(), acceptance=dict(
                     pass_report()["acceptance"], passed=False, verdict="INCONCLUSIVE"))),
                 ("no check", no_checks),
                 ("passed false", disagree),
                 ("no acceptance", {"schema": 1, "dry_run": True}),
                 ("a check's verdict only", {"acceptance": {"passed": True, "checks": checks}}),
                 ("not the top level's", elsewhere),
                 ("two documents", "cat %s %s >\"$out\"")]
        for name, fake in cases:
            with self.subTest(name=name):
                self.set_reason(OWN_DRAIN)
                if name == "two documents":
                    self.fake_report(report([("Triad", 53100.0, 85500.0)]))
                    fail = os.path.join(self.dir, "fail.json")
                    shutil.copy(os.path.join(self.dir, "canned.json"), fail)
                    self.fake_pass()
                    fake = fake % (fail, os.path.join(self.dir, "canned.json"))
                if isinstance(fake, str):
                    self.fake(fake + "\nexit 0")
                else:
                    self.fake_report(fake, status=0)
                proc = self.check()
                self.assert_untouched(proc, 4, OWN_DRAIN, "exited 0", "left as it was")

    def test_pass_reports_resume(self):
        """Compact JSON and membench's own layout (indented), strings with JSON's
        punctuation and escapes in them."""
        odd = pass_report()
        odd["acceptance"]["checks"][0]["measured"] = 'a "quoted" }{ ][ :, \\ text'
        odd["system"] = {"hostname": "n\"1\\", "verdict": "FAIL", "checks": []}
        for doc, indent in ((pass_report(), None), (pass_report(), 2), (odd, None), (odd, 2),
                            (pass_report(("Triad",)), 2)):
            with self.subTest(indent=indent, doc=doc):
                self.set_reason(OWN_DRAIN)
                self.forget_calls()
                self.fake_report(doc, status=0, indent=indent)
                proc = self.check()
                self.assertEqual(proc.returncode, 0, self.describe(proc))
                self.assertEqual(self.updates(), [["update", "nodename=node17", "state=resume"]])

    def test_an_earlier_runs_report_is_not_read(self):
        self.set_reason(OWN_DRAIN)
        self.assertEqual(self.check().returncode, 0)
        self.assertEqual(self.reason(), "")
        self.set_reason(OWN_DRAIN)
        self.forget_calls()
        self.fake("exit 0")
        proc = self.check()
        self.assert_untouched(proc, 4, OWN_DRAIN, "exited 0", "no report")
        self.assertEqual([n for n in os.listdir(self.dir) if n.startswith("membench-health")],
                         [])


class CrashTest(HealthCheckCase):
    """A membench killed by a fault signal drains, naming it; SIGINT/SIGTERM/SIGHUP of membench
    itself (a person, slurmd) leave the node as it was."""

    def test_fault_signals_drain(self):
        for sig in ("SEGV", "BUS", "ILL", "ABRT", "FPE"):
            with self.subTest(sig=sig):
                self.set_reason("")
                self.forget_calls()
                self.fake("kill -s %s $$\nexit 0" % sig)
                proc = self.check()
                self.assert_drained(proc, 1, "membench: crashed (SIG%s)" % sig)

    def test_shell_report_of_a_crash(self):
        """A wrapper whose shell reports the death in words, its status not 128+N (ksh gives
        256+N, so 139 became 11)."""
        self.fake("echo \"$D/membench: line 3: 4242 Segmentation fault (core dumped)\" >&2\n"
                  "exit 11")
        proc = self.check()
        self.assert_drained(proc, 1, "membench: crashed (SIGSEGV)")

    def test_stop_signals_leave_the_node(self):
        for name, status in (("SIGTERM", 143), ("SIGINT", 130), ("SIGHUP", 129)):
            with self.subTest(sig=name):
                self.set_reason(OWN_DRAIN)
                # python, since a background sh cannot undo the SIGINT its shell ignored
                self.fake("exec %s -c 'import os, signal; signal.signal(signal.%s, "
                          "signal.SIG_DFL); os.kill(os.getpid(), signal.%s)'"
                          % (sys.executable, name, name))
                proc = self.check()
                self.assert_untouched(proc, status, OWN_DRAIN, name, "left as it was")


class OwnArgumentsTest(HealthCheckCase):
    """The check's own bad arguments are exit 2 before anything runs; membench's usage error
    (exit 2), a missing temporary directory and scontrol failing are exit 4; none drains."""

    def test_bad_time_limits_and_timeouts(self):
        cases = [(["--time-limit", "abc"], {}, "time limit 'abc'"),
                 ([], {"MEMBENCH_TIME_LIMIT": "-5"}, "time limit '-5'"),
                 ([], {"MEMBENCH_TIME_LIMIT": "1e9"}, "time limit '1e9'"),
                 (["--time-limit", "0"], {}, "time limit '0'"),
                 (["--time-limit", "3601"], {}, "time limit '3601'"),
                 (["--time-limit", "99999999999999999999"], {}, "seconds in 1..3600"),
                 (["--timeout", "x"], {}, "timeout 'x'"),
                 ([], {"MEMBENCH_HEALTHCHECK_TIMEOUT": "0"}, "timeout '0'"),
                 (["--time-limit", "30", "--timeout", "30"], {}, "more than the time limit"),
                 (["--time-limit", "0.5"], {}, "time limit '0.5'")]
        for args, env, words in cases:
            with self.subTest(args=args, env=env):
                proc = self.check(args, env)
                self.assert_untouched(proc, 2, "", words)
                self.assertFalse(self.membench_ran())

    def test_refusals_name_the_range(self):
        for args, words in ((["--time-limit", "0.5"], "whole number of seconds in 1..3600"),
                            (["--time-limit", "abc"], "whole number of seconds in 1..3600"),
                            (["--timeout", "2.5"], "whole number of seconds in 1..3900"),
                            (["--confirm", "1.5"], "whole number in 1..10")):
            with self.subTest(args=args):
                proc = self.check(args)
                self.assert_untouched(proc, 2, "", words)

    def test_leading_zeros_are_decimal(self):
        """08 is 8 seconds (not the shell's 'Illegal number'), 010 is 10 (not octal 8)."""
        for args, env, limit in ((["--time-limit", "08"], {}, "8"),
                                 ([], {"MEMBENCH_TIME_LIMIT": "010"}, "10"),
                                 (["--time-limit", "9", "--timeout", "010"], {}, "9"),
                                 (["--time-limit", "0009", "--confirm", "02"], {}, "9")):
            with self.subTest(args=args, env=env):
                proc = self.check(args, env)
                self.assertEqual(proc.returncode, 0, self.describe(proc))
                got = self.membench_args()
                self.assertEqual(got[got.index("--time-limit") + 1], limit)

    def test_membench_not_an_executable_file(self):
        plain = os.path.join(self.dir, "plain")
        with open(plain, "w") as f:
            f.write("#!/bin/sh\n")
        for path in ("/tmp", plain, os.path.join(self.dir, "missing")):
            with self.subTest(path=path):
                proc = self.check(["--membench", path])
                self.assert_untouched(proc, 2, "", path)

    def test_membench_usage_error_is_a_configuration_error(self):
        self.set_reason(OWN_DRAIN)
        self.fake("echo \"membench: unknown option '--bogus'; see membench --help\" >&2\nexit 2")
        proc = self.check(env={"MEMBENCH_ARGS": "--bogus"})
        self.assert_untouched(proc, 4, OWN_DRAIN, "exit 2", "unknown option '--bogus'",
                              "left as it was")

    def test_unusable_tmpdir(self):
        proc = self.check(env={"TMPDIR": os.path.join(self.dir, "missing")})
        self.assert_untouched(proc, 4, "", "temporary directory", "TMPDIR")
        self.assertFalse(self.membench_ran())

    def test_full_tmpdir(self):
        full = os.path.join(self.dir, "full")
        os.mkdir(full)
        mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full],
                               capture_output=True, text=True)
        if mount.returncode != 0:
            self.skipTest("cannot mount a small tmpfs here (needs root): "
                          + mount.stderr.strip())
        self.addCleanup(subprocess.run, ["umount", full])
        with open(os.path.join(full, "filler"), "wb") as f:
            try:
                f.write(b"\0" * (1 << 20))
            except OSError:
                pass
        proc = self.check(env={"TMPDIR": full})
        self.assert_untouched(proc, 4, "", "TMPDIR", "full")
        self.assertFalse(self.membench_ran())

    def test_report_not_written_is_not_the_nodes_fault(self):
        """membench's exit 3 about this check's own temporary report: exit 4, not a drain."""
        self.fake("echo \"membench: cannot write '$out': No space left on device; choose a "
                  "writable path\" >&2\nexit 3")
        proc = self.check()
        self.assert_untouched(proc, 4, "", "No space left")

    def test_scontrol_failure_is_loud(self):
        open(os.path.join(self.dir, "scontrol-fails"), "w").close()
        proc = self.check()
        self.assert_untouched(proc, 4, "", "scontrol show node node17 failed", "SLURM_CONF")
        self.assertFalse(self.membench_ran(), "measured although Slurm cannot be reached")


class NodeFaultTest(HealthCheckCase):
    """What drains: a failed check (worst first), a missing resource; and what resumes."""

    def test_worst_rate_first_and_short_head(self):
        self.fake_report(report([("Copy", 81000.0, 85500.0), ("Triad", 53100.0, 85500.0),
                                 ("Add", 92000.0, 99000.0 * 0.95)]))
        proc = self.check(["--reference", self.write_ref()])
        self.assert_drained(proc, 1, "membench: Triad -41% (53100 of 90000 MB/s reference)")
        self.assertEqual(self.reason()[:20], "membench: Triad -41%")
        self.assertIn("; Copy -10%", self.reason())
        self.assertLess(self.reason().index("Copy"), self.reason().index("Add"))

    def test_other_checks_before_rates(self):
        self.fake_report(report([("Triad", 53100.0, 85500.0),
                                 ("cpus", "1 of 2 PUs usable (0)", "all 2 PUs"),
                                 ("validation", "failed", "passed")]))
        proc = self.check()
        self.assert_drained(proc, 1, "membench: validation: failed, expected passed; cpus: ")
        self.assertIn("; Triad -41% (53100 of 90000 MB/s expected)", self.reason())

    def test_inconclusive_check_beside_a_failed_one(self):
        """membench's report with a check's verdict (INCONCLUSIVE is not the node's fault) and
        the rate before the tolerance (reference_mbps)."""
        doc = report([("Triad", 53100.0, 85500.0), ("Copy", 80000.0, 85500.0)])
        doc["acceptance"]["checks"][0].update(verdict="FAIL", reference_mbps=90000.0,
                                              from_reference=True)
        doc["acceptance"]["checks"][1].update(verdict="INCONCLUSIVE", reference_mbps=90000.0,
                                              from_reference=True)
        self.fake_report(doc)
        proc = self.check()
        self.assert_drained(proc, 1, "membench: Triad -41% (53100 of 90000 MB/s reference)")
        self.assertNotIn("Copy", self.reason())

    def test_likely_causes_follow_the_worst_check(self):
        """The report's first two likely causes, after the worst check: the reason says what
        failed, then why; a report without causes adds nothing."""
        doc = report([("Triad", 53100.0, 85500.0), ("Copy", 81000.0, 85500.0)])
        doc["diagnosis"] = [{"cause": c, "summary": s, "evidence": "e", "remedy": "r"}
                            for c, s in (("empty_channel", "socket 1 channel C empty"),
                                         ("other_work", "other work took 48% of the run's CPUs"),
                                         ("thp_never", "THP never: 4 KB pages"))]
        self.fake_report(doc)
        proc = self.check()
        self.assert_drained(proc, 1, "membench: Triad -41% (53100 of 90000 MB/s expected); "
                            "likely: socket 1 channel C empty, other work took 48% of the run's "
                            "CPUs; Copy -10%")
        self.assertNotIn("THP", self.reason())
        self.set_reason("")
        self.forget_calls()
        doc["diagnosis"] = []
        self.fake_report(doc)
        proc = self.check()
        self.assert_drained(proc, 1, "membench: Triad -41% (53100 of 90000 MB/s expected); Copy")
        self.assertNotIn("likely", self.reason())

    def test_multi_partition_node_drains(self):
        """sinfo -N prints a line per partition: the FAIL must drain anyway."""
        self.fake_report(report([("Triad", 53100.0, 85500.0)]))
        proc = self.check()
        self.assert_drained(proc, 1, "membench: Triad -41%")

    def test_missing_resource_drains(self):
        self.fake("echo 'membench: --pages 2m: 0 of 24 huge pages of 2 MB free; reserve them "
                  "(vm.nr_hugepages)' >&2\nexit 3")
        proc = self.check()
        self.assert_drained(proc, 3, "membench: --pages 2m: 0 of 24 huge pages")
        self.assertTrue(self.reason().endswith("(exit 3)"), self.reason())

    def test_pass_resumes_only_its_own_drain(self):
        self.set_reason(OWN_DRAIN)
        proc = self.check()
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertEqual(self.updates(), [["update", "nodename=node17", "state=resume"]])
        self.assertEqual(self.reason(), "")
        self.set_reason("DIMM B2 replaced")
        self.forget_calls()
        proc = self.check()
        self.assert_untouched(proc, 0, "DIMM B2 replaced")
        self.fake_report(report([("Triad", 53100.0, 85500.0)]))
        proc = self.check()
        self.assert_untouched(proc, 1, "DIMM B2 replaced", "membench: Triad -41%")

    def test_exit_1_without_a_verdict_is_not_a_fail(self):
        """exit 1 with no report and no membench: line (a runtime library's abort) proves
        nothing about the node."""
        self.fake("echo 'libgomp: Invalid value for environment variable GOMP_CPU_AFFINITY' "
                  ">&2\nexit 1")
        proc = self.check()
        self.assert_untouched(proc, 4, "", "libgomp")

    def test_inconclusive_leaves_the_node(self):
        """Left as it is on purpose: exit 0 (slurmd logs any other status as an error), the
        reason in the check's own syslog line."""
        for reason in (OWN_DRAIN, ""):
            with self.subTest(reason=reason):
                self.set_reason(reason)
                self.fake("echo 'membench: INCONCLUSIVE: Triad varied 23% across repetitions, "
                          "more than the 5% tolerance' >&2\nexit 5")
                proc = self.check()
                self.assert_untouched(proc, 0, reason, "inconclusive (Triad varied 23%",
                                      "trying again next interval")
                self.assertIn("-t membench-healthcheck", self.syslog())
                self.assertIn("inconclusive (Triad varied 23%", self.syslog())

    def test_inconclusive_names_the_likely_cause(self):
        doc = report([("Triad", 80000.0, 85500.0)])
        doc["acceptance"]["verdict"] = "INCONCLUSIVE"
        doc["diagnosis"] = [{"cause": "cpu_steal", "summary": "hypervisor took 31% of the CPUs",
                             "evidence": "e", "remedy": "r"}]
        self.fake_report(doc, status=5, stderr="membench: INCONCLUSIVE: Triad varied 23% across "
                         "repetitions")
        proc = self.check()
        self.assert_untouched(proc, 0, "", "inconclusive (Triad varied 23% across repetitions; "
                              "likely: hypervisor took 31% of the CPUs); trying again")

    def write_ref(self):
        path = os.path.join(self.dir, "ref.json")
        with open(path, "w") as f:
            f.write("{}")
        return path


class SlurmConfTest(HealthCheckCase):
    """slurm.conf off the default path: SLURM_CONF from the configuration file, else from the
    slurmd that started the check."""

    def test_slurm_conf_from_the_configuration_file(self):
        conf = os.path.join(self.dir, "hc.conf")
        with open(conf, "w") as f:
            f.write("SLURM_CONF=/srv/slurm/etc/slurm.conf\nMEMBENCH_EXPECT=triad=1000\n")
        proc = self.check(env={"MEMBENCH_HEALTHCHECK_CONFIG": conf})
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertTrue(self.calls())
        self.assertEqual({c for _, c in self.calls()}, {"/srv/slurm/etc/slurm.conf"})

    def test_slurm_conf_of_the_parent_slurmd(self):
        """No SLURM_CONF anywhere: the -f FILE of the slurmd process that runs the check."""
        slurmd = os.path.join(self.dir, "slurmd")
        os.symlink("/bin/sh", slurmd)
        script = '"$0" ; exit $?'
        proc = subprocess.run([slurmd, "-c", script, HEALTHCHECK, "-D", "-f",
                               "/srv/other/slurm.conf"], env=self.env({"SLURM_CONF": None}),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertEqual({c for _, c in self.calls()}, {"/srv/other/slurm.conf"})


class TimeoutSignalTest(HealthCheckCase):
    """The check's own timeout around membench, and signals to the check passed on to it."""

    TRAP_TERM = ("trap 'echo TERM >\"$D/got\"; kill $s 2>/dev/null; exit 143' TERM\n"
                 ": >\"$D/started\"\nsleep 1000 & s=$!\nwait $s\nexit 0")
    IGNORE_TERM = "trap '' TERM\n: >\"$D/started\"\nexec sleep 1000"

    def got(self):
        try:
            with open(os.path.join(self.dir, "got")) as f:
                return f.read().strip()
        except OSError:
            return None

    def assert_fake_gone(self):
        pid = self.fake_pid()
        self.assertIsNotNone(pid)
        try:
            with open("/proc/%d/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return
        self.assertEqual(state, "Z", "membench (pid %d) is still running" % pid)

    def test_hang_is_killed_and_drains(self):
        self.fake(self.TRAP_TERM)
        proc = self.check(["--time-limit", "1", "--timeout", "2"])
        self.assert_drained(proc, 1, "membench: hung (killed after 2 s)")
        self.assertEqual(self.got(), "TERM")
        self.assert_fake_gone()

    def test_hang_ignoring_sigterm_is_killed(self):
        self.fake(self.IGNORE_TERM)
        proc = self.check(["--time-limit", "1", "--timeout", "2"], timeout=30)
        self.assert_drained(proc, 1, "membench: hung (killed after 2 s)")
        self.assert_fake_gone()

    def start_and_signal(self, sig, body):
        """Start the check, wait until the fake membench says it started (an event), send sig
        to the check; (CompletedProcess-like tuple of rc, stderr, seconds it took to end)."""
        self.fake(body)
        proc = subprocess.Popen([HEALTHCHECK, "--time-limit", "600"], env=self.env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        started = os.path.join(self.dir, "started")
        deadline = time.monotonic() + 60
        while not os.path.exists(started):
            self.assertIsNone(proc.poll(), "the check ended before membench started")
            self.assertLess(time.monotonic(), deadline, "membench never started")
            time.sleep(0.01)
        t0 = time.monotonic()
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            self.fail("the check was still running 10 s after %s" % sig.name)
        return proc.returncode, err, time.monotonic() - t0

    def test_sigterm_and_sigint_are_passed_on(self):
        for sig, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
            with self.subTest(sig=sig.name):
                self.set_reason(OWN_DRAIN)
                for name in ("got", "started"):
                    if os.path.exists(os.path.join(self.dir, name)):
                        os.remove(os.path.join(self.dir, name))
                rc, err, seconds = self.start_and_signal(sig, self.TRAP_TERM)
                sys.stderr.write("\n%s to the check: ended after %.2f s\n" % (sig.name, seconds))
                self.assertEqual(rc, status, err)
                self.assertEqual(self.got(), "TERM", "membench was not sent SIGTERM")
                self.assertLess(seconds, 3, err)
                self.assertIn("left as it was", err)
                self.assertEqual(self.reason(), OWN_DRAIN)
                self.assertEqual(self.updates(), [])
                self.assert_fake_gone()

    def test_sigterm_with_membench_ignoring_it(self):
        rc, err, seconds = self.start_and_signal(signal.SIGTERM, self.IGNORE_TERM)
        self.assertEqual(rc, 143, err)
        self.assertLess(seconds, 4, err)
        self.assert_fake_gone()


class RealMembenchTest(HealthCheckCase):
    """The real membench (membench-hooked, on this machine's topology with 1 MiB caches, told
    that it is this machine) behind the fake Slurm: a FAIL drains, a PASS resumes, a noisy run
    (MEMBENCH_TEST_SLOW_REPETITION, where the build has it) is INCONCLUSIVE and leaves the
    node, --metrics-file writes the OpenMetrics file (where the build has the option)."""

    def setUp(self):
        super().setUp()
        if not (os.path.isfile(membench_test.HOOKED_BIN)
                and os.access(membench_test.HOOKED_BIN, os.X_OK)):
            self.skipTest("membench-hooked not built: %s" % membench_test.HOOKED_BIN)
        self.topology = os.path.join(self.dir, "topology.xml")
        reason = small_cache_topology(self.topology)
        if reason:
            self.skipTest(reason)

    def real(self, args, hooks=None, expect="triad=1000"):
        env = membench_test.make_env(dict(hooks or {}, MEMBENCH_TEST_TOPOLOGY_IS_MACHINE="1",
                                          OMP_NUM_THREADS=None, HWLOC_XMLFILE=self.topology,
                                          HWLOC_THISSYSTEM="1"))
        env.update(self.env({"MEMBENCH": membench_test.launcher(membench_test.HOOKED_BIN),
                             "MEMBENCH_EXPECT": expect,
                             "PATH": self.bin + ":" + env.get("PATH", "/usr/bin:/bin")}))
        return subprocess.run([HEALTHCHECK, "--time-limit", "10"] + list(args), env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)

    def test_fail_drains_pass_resumes(self):
        membench_test.skip_unless_all_cpus(self, "a passing health check (membench --acceptance)")
        proc = self.real([], expect="triad=999999999")
        self.assert_drained(proc, 1, "membench: Triad -")
        # what disturbed the run (this machine's other work) may follow as its likely cause
        self.assertRegex(self.reason(), r"^membench: Triad -\d+% \(\d+ of 999999999 MB/s "
                                        r"expected\)(; likely: [^;]+)?$")
        self.forget_calls()
        # the passing run's rates are set (the hook), so that a loaded machine cannot fail it
        proc = self.real([], {"MEMBENCH_TEST_RATES": "*:copy=10000,scale=10000,add=10000,"
                                                     "triad=10000"})
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        self.assertEqual(self.reason(), "")
        self.assertEqual(self.updates(), [["update", "nodename=node17", "state=resume"]])

    def test_noisy_run_is_inconclusive(self):
        hooks = {"MEMBENCH_TEST_SLOW_REPETITION": "1"}
        probe = subprocess.run(membench_test.command(membench_test.HOOKED_BIN) + ["--dry-run"],
                               env=membench_test.make_env(hooks), capture_output=True,
                               text=True, timeout=60)
        if probe.returncode == 0:
            self.skipTest("this membench-hooked has no MEMBENCH_TEST_SLOW_REPETITION hook "
                          "(helper 'confidence' adds it with exit 5)")
        membench_test.skip_unless_all_cpus(self, "the acceptance profile")
        membench_test.skip_under_emulation(self, "the verdict rests on the spread of measured "
                                           "repetitions: " + membench_test.TIMING)
        self.set_reason(OWN_DRAIN)
        # Triad 10% below its floor, one repetition 4x as long: a 75% spread explains it
        rates = "*:copy=10000,scale=10000,add=10000,triad=9000"
        proc = self.real(["--", "-n", "5"], {"MEMBENCH_TEST_RATES": rates,
                                             "MEMBENCH_TEST_SLOW_REPETITION": "3:4"},
                         expect="triad=10000")
        self.assert_untouched(proc, 0, OWN_DRAIN, "inconclusive (", "trying again next interval")

    def test_metrics_file(self):
        helptext = subprocess.run(membench_test.command(membench_test.HOOKED_BIN) + ["--help"],
                                  capture_output=True, text=True, timeout=60).stdout
        if "--metrics-file" not in helptext:
            self.skipTest("this membench has no --metrics-file (helper 'outputs' adds it)")
        membench_test.skip_unless_all_cpus(self, "a passing health check (membench --acceptance)")
        metrics = os.path.join(self.dir, "membench.prom")
        # emulated rates are a fraction of triad=1000 MB/s: set them (the hook), the file is
        # what this test is about
        rates = {"MEMBENCH_TEST_RATES": "*:copy=10000,scale=10000,add=10000,triad=10000"}
        proc = self.real(["--metrics-file", metrics],
                         rates if membench_test.UNDER_EMULATION else None)
        self.assertEqual(proc.returncode, 0, self.describe(proc))
        with open(metrics) as f:
            text = f.read()
        self.assertIn("# TYPE ", text)
        self.assertIn("# HELP ", text)


class WiringTest(HealthCheckCase):

    def test_metrics_file_passed_on(self):
        metrics = os.path.join(self.dir, "membench.prom")
        for args, env in ((["--metrics-file", metrics], {}),
                          ([], {"MEMBENCH_METRICS_FILE": metrics})):
            with self.subTest(args=args):
                proc = self.check(args, env)
                self.assertEqual(proc.returncode, 0, self.describe(proc))
                got = self.membench_args()
                self.assertIn("--metrics-file", got)
                self.assertEqual(got[got.index("--metrics-file") + 1], metrics)

    def test_install_paths(self):
        """--help and docs/slurm.md name where each install puts the check: cmake --install
        /usr/local/sbin, the Debian package /usr/sbin (cmake/packaging.cmake); the metrics file
        in the directory of Debian's prometheus-node-exporter."""
        helptext = self.check(["--help"]).stdout
        with open(os.path.join(os.path.dirname(membench_test.TESTS_DIR), "docs",
                               "slurm.md")) as f:
            doc = f.read()
        for text in (helptext, doc):
            self.assertIn("HealthCheckProgram=/usr/sbin/membench-healthcheck", text)
            self.assertIn("/usr/local/sbin/membench-healthcheck", text)
        self.assertIn("MEMBENCH_METRICS_FILE=/var/lib/prometheus/node-exporter/membench.prom",
                      doc)
        self.assertNotIn("/var/lib/node_exporter", doc)

    def test_short_options_as_membench_has_them(self):
        """The check reads clusters of membench's short options (-qV, -n5) with the letters
        that take a value: those of membench --help."""
        helptext = subprocess.run([membench_test.BIN, "--help"], capture_output=True,
                                  text=True, timeout=60).stdout
        shorts = re.findall(r"^  -([A-Za-z]), --[a-z-]+( [A-Z])?", helptext, re.M)
        self.assertIn(("V", ""), shorts)
        with open(HEALTHCHECK) as f:
            script = re.search(r"^SHORT_WITH_VALUE=([A-Za-z]+)", f.read(), re.M).group(1)
        self.assertEqual(sorted(script), sorted(letter for letter, value in shorts if value))

    def test_help_has_the_exit_codes(self):
        proc = self.check(["--help"])
        self.assertEqual(proc.returncode, 0)
        for line in ("  4  this check's own error",
                     "     confirmed (--confirm; syslog priority warning)",
                     "inconclusive (membench exit 5)", "crashed (SIGSEGV)",
                     "MEMBENCH_HEALTHCHECK_TIMEOUT", "SLURM_CONF", "sinfo -R -o"):
            self.assertIn(line, proc.stdout)


if __name__ == "__main__":
    membench_test.main()
