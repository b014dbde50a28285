"""Names in text output stay on their line: a host name, a file name or a reference's CPU model
holding a newline, a tab or a terminal escape is shown escaped (\\n, \\t, \\x1B) in the text
report and in error lines, never raw; JSON keeps the name as it is. The code before this test
printed them raw (a split table, a two-line error, an escape sent to the terminal).

The host name is set inside a UTS namespace of the run's own (unshare --uts, root), never the
machine's; that test skips where it cannot be made."""

import json
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

DRY = ["--dry-run", "--size", "100000"]
HOSTILE = "cn\n\tevil\x1b[31m"
SHOWN = "cn\\n\\tevil\\x1B[31m"
#: Sets the host name (argv[1]) in the new UTS namespace, then runs the rest.
SET_NAME = ("import os, socket, sys; socket.sethostname(sys.argv[1].encode()); "
            "os.execv(sys.argv[2], sys.argv[2:])")


def assert_one_line_each(test, text):
    """No control character but the newlines that end the lines."""
    bad = [c for c in text if ord(c) < 0x20 and c != "\n" or ord(c) == 0x7F]
    test.assertEqual(bad, [], text)


class TextNamesTest(membench_test.MembenchTestCase):

    def run_named(self, args):
        machine = socket.gethostname()
        try:
            proc = subprocess.run(["unshare", "--uts", sys.executable, "-c", SET_NAME, HOSTILE]
                                  + membench_test.command(membench_test.BIN) + args,
                                  env=membench_test.make_env(),
                                  capture_output=True, text=True, timeout=60)
        except OSError as exc:
            self.skipTest("unshare cannot run: %s" % exc)
        if proc.returncode != 0 and "sethostname" in proc.stderr or "unshare:" in proc.stderr:
            self.skipTest("no UTS namespace here (needs root): %s" % proc.stderr.strip())
        self.assertEqual(socket.gethostname(), machine, "the machine was renamed")
        return proc

    def test_host_name_in_the_text_report(self):
        proc = self.run_named(DRY)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("Host: %s, Linux " % SHOWN, proc.stdout)
        assert_one_line_each(self, proc.stdout)
        proc = self.run_named(DRY + ["--format", "json"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["system"]["hostname"], HOSTILE)

    def test_file_name_in_an_error_line(self):
        path = "/nonexistent\n\x1b[2J/out.txt"
        line = self.assert_error(DRY + ["-o", path], 2, ["/nonexistent\\n\\x1B[2J/out.txt"])
        assert_one_line_each(self, line)


class ReferenceModelTest(membench_test.ReferenceFileCase):

    def test_cpu_model_of_a_reference_in_the_checks(self):
        model = "Evil\x1b]0;title\x07CPU\nFAIL"
        self.write_ref({"membench_reference": 1, "system": {"cpu_model": model, "cores": 1},
                        "rates_mbps": {"Triad": 1.0}})
        args = ["--triad", "-t", "1", "--size", "100000", "-n", "2", "--reference", self.ref]
        rc, out, err = membench_test.run(args)
        self.assertEqual(rc, 1, membench_test.describe(args, rc, out, err))  # another CPU
        self.assertIn("Evil\\x1B]0;title\\x07CPU\\nFAIL", out)
        assert_one_line_each(self, out)


if __name__ == "__main__":
    membench_test.main()
