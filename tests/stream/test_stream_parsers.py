"""Parsers written for STREAM 5.10 read membench's text output (issue 16).

STREAM's fixed lines keep its text byte for byte (its printf formats, from stream.c 5.10), the
validation line included; no other line begins with a kernel name and a number, so
`awk '/^Triad/ && NF==5'` and `^Triad:\\s+(\\S+)\\s+\\S+\\s+\\S+\\s+\\S+$` find exactly the rates.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import SMALL, describe, run, thp_mode  # noqa: E402

KERNELS = ["Copy", "Scale", "Add", "Triad"]
HLINE = "-------------------------------------------------------------"
HEADER = "Function    Best Rate MB/s  Avg time     Min time     Max time"
#: The sanity check sites run on STREAM output.
SANITY = re.compile(r"^Solution Validates: avg error less than \S+ on all three arrays$", re.M)
#: The perf regex: kernel, best rate and three times, nothing else on the line.
PERF = re.compile(r"^(Copy|Scale|Add|Triad):\s+(\S+)\s+\S+\s+\S+\s+\S+$")
#: STREAM's "%s%12.1f  %11.6f  %11.6f  %11.6f" with its labels "Copy:      " etc.
ROW = re.compile(r"^(Copy:      |Scale:     |Add:       |Triad:     )"
                 r"[ \d]{8,}\.\d  [ \d]{4,}\.\d{6}  [ \d]{4,}\.\d{6}  [ \d]{4,}\.\d{6}$")
#: STREAM's fixed lines, as regexes of its printf formats.
STREAM_LINES = [
    r"This system uses 8 bytes per array element\.",
    r"Array size = 2000000 \(elements\), Offset = 0 \(elements\)",
    r"Memory per array = \d+\.\d MiB \(= \d+\.\d GiB\)\.",
    r"Total memory required = \d+\.\d MiB \(= \d+\.\d GiB\)\.",
    r"Each kernel will be executed 3 times\.",
    r" The \*best\* time for each kernel \(excluding the first iteration\)",
    r" will be used to compute the reported bandwidth\.",
    r"Number of Threads requested = \d+",
    re.escape(HEADER),
    re.escape(HLINE),
]


def awk(program, text):
    """awk's output lines for text on stdin."""
    proc = subprocess.run(["awk", program], input=text.encode(), stdout=subprocess.PIPE,
                          check=True)
    return proc.stdout.decode().splitlines()


class StreamParsersTest(membench_test.MembenchTestCase):
    """Each output a site might feed its STREAM tools: default, --triad, sweeps, A/B."""

    def output(self, args):
        out, _ = self.run_ok(list(args))
        return out

    def check_parsers(self, out, runs, kernels):
        """runs runs of kernels: one perf line per kernel per run, each a positive rate; the
        sanity line once per run; no other line starts with a kernel name."""
        lines = out.splitlines()
        self.assertEqual(lines.count(HEADER), runs, out)
        self.assertEqual(len(SANITY.findall(out)), runs, out)
        rates = {k: [] for k in KERNELS}
        for line in lines:
            if not re.match(r"(Copy|Scale|Add|Triad)\b", line):
                continue
            m = PERF.match(line)
            self.assertIsNotNone(m, "a line starts with a kernel name but is no rate line: %r"
                                 % line)
            self.assertRegex(line, ROW, "not STREAM's row format")
            rates[m.group(1)].append(float(m.group(2)))
        for k in KERNELS:
            want = runs if k in kernels else 0
            self.assertEqual(len(rates[k]), want, "%s rate lines\n%s" % (k, out))
            for rate in rates[k]:
                self.assertGreater(rate, 0.0, k)
            # The awk one-liner sites use: the same lines, the same numbers.
            got = awk("/^%s/ && NF==5 {print $2}" % k, out)
            self.assertEqual([float(x) for x in got], rates[k], "awk '/^%s/ && NF==5'" % k)
            self.assertEqual(len(awk("/^%s/" % k, out)), want, "awk '/^%s/'" % k)

    def test_default_run(self):
        """The four kernels; every STREAM line present byte for byte; double's epsilon."""
        out = self.output(SMALL)
        self.check_parsers(out, 1, KERNELS)
        for pattern in STREAM_LINES:
            self.assertRegex(out, re.compile("^%s$" % pattern, re.M))
        self.assertIn("\nSolution Validates: avg error less than 1.000000e-13 on all three "
                      "arrays\n", out)
        # membench's own check on its own line, right after STREAM's.
        self.assertRegex(out, r"(?m)^Solution Validates: .*\nValidation: max relative error "
                              r"\S+ <= \S+ on every element$")

    def test_float_epsilon(self):
        """--type float: STREAM's float epsilon, 1.e-6, in STREAM's %e."""
        out = self.output(SMALL + ["--type", "float"])
        self.assertIn("\nSolution Validates: avg error less than 1.000000e-06 on all three "
                      "arrays\n", out)
        self.assertIn("\nThis system uses 4 bytes per array element.\n", out)

    def test_quiet_line_is_no_rate_row(self):
        """-q's one line per run names the kernels after "MB/s": no line starts with a kernel
        name and a number, which STREAM parsers would read as a rate row."""
        out = self.output(SMALL + ["-t", "1,2", "-q"])
        self.assertEqual(len(out.splitlines()), 2, out)
        self.assertIsNone(re.search(r"(?m)^(Copy|Scale|Add|Triad)\W+\d", out), out)
        self.assertEqual(len(re.findall(r"(?m)^MB/s Copy=\S+ Scale=\S+ Add=\S+ Triad=\S+ ", out)),
                         2, out)

    def test_triad_only(self):
        out = self.output(SMALL + ["--triad"])
        self.check_parsers(out, 1, ["Triad"])

    def test_thread_sweep(self):
        out = self.output(SMALL + ["-t", "1,2"])
        self.check_parsers(out, 2, KERNELS)

    def test_size_sweep(self):
        out = self.output(["--size", "1000000,2000000", "-n", "3", "--triad", "--copy"])
        self.check_parsers(out, 2, ["Copy", "Triad"])

    def test_page_ab(self):
        """--pages 4k,thp: the comparison lines start with 'Comparison', not a kernel name."""
        mode = thp_mode()
        if mode in (None, "never"):
            self.skipTest("transparent huge pages are %s here"
                          % ("absent" if mode is None else "'never'"))
        out = self.output(SMALL + ["--pages", "4k,thp"])
        self.check_parsers(out, 2, KERNELS)
        for k in KERNELS:
            self.assertRegex(out, r"(?m)^Comparison thp vs 4k: %s [+-]\d+\.\d%%$" % k)

    def test_failed_validation(self):
        """A corrupted element (membench-hooked): STREAM's failure lines, then membench's."""
        args = SMALL
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_CORRUPT": "1"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 1, msg)
        self.assertIsNone(SANITY.search(out), msg)
        self.assertRegex(out, re.compile(
            r"^Failed Validation on array a\[\], AvgRelAbsErr > epsilon \(1\.000000e-13\)\n"
            r"     Expected Value: \S+e[+-]\d\d, AvgAbsErr: \S+e[+-]\d\d, "
            r"AvgRelAbsErr: \S+e[+-]\d\d\n"
            r"     For array a\[\], 1 errors were found\.\n"
            r"Validation: first bad element a\[\d+\] = \S+, expected \S+; "
            r"max relative error \S+ > \S+$", re.M), msg)

    def test_failed_reduction_is_no_solution_that_validates(self):
        """The three arrays are right but the Dot sum is not (a broken Dot, membench-hooked):
        the run fails, and a STREAM sanity check must not find "Solution Validates"."""
        args = SMALL + ["--dot", "--triad"]
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_BROKEN_KERNEL": "dot"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 1, msg)
        self.assertIsNone(SANITY.search(out), msg)
        self.assertRegex(out, r"(?m)^Failed Validation on the Dot sum: it does not match its "
                              r"closed form$", msg)


if __name__ == "__main__":
    membench_test.main()
