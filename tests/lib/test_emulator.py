# ctest: LABELS timing emulation
"""MEMBENCH_TEST_EMULATOR: the suite starts membench and membench-hooked through the emulator
command it names (run(), start_paused(), launcher() for MEMBENCH= and shell commands, the docs'
commands), and starts them directly without it. The emulator here is a recorder script that
writes its argv to a file and then runs the binary (under the suite's own emulator, if any)."""

import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import membench_test  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

#: Run in a child Python with MEMBENCH_TEST_EMULATOR set: the harness reads it at import.
CHILD = r"""
import json, subprocess, sys
sys.path.insert(0, sys.argv[1])
import doc_samples, membench_test as m
rc, out, _ = m.run(["--version"])
hooked_rc, _, _ = m.run(["--version"], env_extra={"MEMBENCH_TEST_ANNOUNCE": "1"})
proc, _ = m.start_paused(["-s", "100000", "-n", "2", "-q"], "first touch")
m.resume(proc)
paused_out, _ = proc.communicate(timeout=120)
shell = subprocess.run(["sh", "-c", '"$0" --version', m.launcher(m.BIN)], env=m.make_env(),
                       capture_output=True, text=True, timeout=120)
_, docs_argv = doc_samples.argv_of("membench --version")
print(json.dumps({"under": m.UNDER_EMULATION, "emulator": m.EMULATOR, "rc": rc, "out": out,
                  "hooked_rc": hooked_rc, "paused_rc": proc.returncode,
                  "paused_out": paused_out, "shell_rc": shell.returncode,
                  "shell_out": shell.stdout, "docs_argv": docs_argv}))
"""


class EmulatorTest(membench_test.MembenchTestCase):

    def setUp(self):
        super().setUp()
        tmp = tempfile.TemporaryDirectory(prefix="membench-emu-test-")
        self.addCleanup(tmp.cleanup)
        self.log = os.path.join(tmp.name, "argv.log")
        self.recorder = os.path.join(tmp.name, "record emulator")  # a space: quoted right
        with open(self.recorder, "w") as f:
            f.write('#!/bin/sh\nprintf "%%s\\n" "$*" >> %s\nshift\nexec %s "$@"\n'
                    % (shlex.quote(self.log), shlex.join(membench_test.EMULATOR)))
        os.chmod(self.recorder, 0o755)

    def child(self):
        env = dict(os.environ, MEMBENCH_TEST_EMULATOR=shlex.join([self.recorder, "--opt"]))
        proc = subprocess.run([sys.executable, "-c", CHILD, HERE], env=env,
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout.splitlines()[-1])

    def recorded(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def test_every_start_goes_through_the_emulator(self):
        got = self.child()
        self.assertTrue(got["under"])
        self.assertEqual(got["emulator"], [self.recorder, "--opt"])
        self.assertEqual((got["rc"], got["hooked_rc"], got["paused_rc"], got["shell_rc"]),
                         (0, 0, 0, 0), got)
        self.assertRegex(got["out"], r"^membench \S+")
        self.assertEqual(got["shell_out"], got["out"])
        self.assertRegex(got["paused_out"], r"^MB/s ")
        self.assertEqual(got["docs_argv"], [self.recorder, "--opt", membench_test.BIN,
                                            "--version"])
        bin_, hooked = membench_test.BIN, membench_test.HOOKED_BIN
        self.assertEqual(self.recorded(), [
            "--opt %s --version" % bin_,
            "--opt %s --version" % hooked,
            "--opt %s -s 100000 -n 2 -q" % hooked,
            "--opt %s --version" % bin_])

    def test_without_the_variable_binaries_start_directly(self):
        env = {k: v for k, v in os.environ.items() if k != "MEMBENCH_TEST_EMULATOR"}
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import membench_test as m; "
                "print(m.UNDER_EMULATION, m.command(m.BIN) == [m.BIN], m.launcher(m.BIN) == m.BIN)")
        proc = subprocess.run([sys.executable, "-c", code, HERE], env=env, capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.stdout, "False True True\n", proc.stderr)


if __name__ == "__main__":
    membench_test.main()
