"""Hostile input: empty strings, huge numbers, NaN, overlapping ranges, very long arguments,
unreadable files. Never a crash or a hang: always exit 2 or 3, nothing on stdout, and exactly
one 'membench: ' line on stderr."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, run, describe  # noqa: E402

SEED = {"HWLOC_SYNTHETIC": "pack:2 l3:1(size=20MiB) core:8 pu:1"}
VALUE_OPTIONS = ["-t", "-s", "-n", "--type", "--format", "-o", "--pages", "--bind", "--stores",
                 "--offset", "--isa", "--per-domain", "--expect", "--tolerance", "--reference",
                 "--save-reference", "--time-limit", "--peak", "--faults-size", "--faults-dir",
                 "--faults-backing", "--shootdown-remote", "--shootdown-pages"]
HUGE = "9" * 400


def cases():
    tmp = tempfile.gettempdir()
    out = []
    for opt in VALUE_OPTIONS:
        out.append(("empty " + opt, [opt, ""], None))
    for opt in ["-t", "-n", "--offset", "--tolerance", "--time-limit", "--peak",
                "--shootdown-remote", "--shootdown-pages"]:
        out.append(("huge " + opt, [opt, HUGE], None))
    for opt in ["--tolerance", "--time-limit", "--peak"]:
        out += [("nan " + opt, [opt, "nan"], None), ("inf " + opt, [opt, "inf"], None),
                ("negative " + opt, [opt, "-1"], None)]
    out += [
        ("huge size", ["--size", HUGE + "GiB"], None),
        ("huge size exponent", ["--size", "1e400"], None),
        ("nan size", ["--size", "nanGiB"], None),
        ("huge expectation", ["--expect", "triad=1e400"], None),
        ("nan expectation", ["--expect", "triad=nan"], None),
        ("overlapping ranges", ["--bind", "0-3,2-5", "-t", "4", "--dry-run"], SEED),
        ("range inside range", ["--bind", "0-7,3", "-t", "2", "--dry-run"], SEED),
        ("huge range", ["--bind", "0-" + HUGE, "--dry-run"], SEED),
        ("long size", ["--size", "1" * 100000], None),
        ("long list", ["--bind", "0," * 50000 + "0"], None),
        ("long threads list", ["-t", "1," * 20000 + "1"], None),
        ("long expect", ["--expect", "triad=1," * 10000 + "x=1"], None),
        ("long option", ["--" + "x" * 100000], None),
        ("long output name", ["-o", "a" * 5000, "--dry-run"], None),
        ("output is a directory", ["-o", tmp, "--dry-run"], None),
        ("reference is a directory", ["--reference", tmp], None),
        ("reference unreadable", ["--reference", "/proc/self/mem"], None),
        ("reference missing", ["--reference", "/nonexistent/ref.json"], None),
        ("reference empty", ["--reference", "/dev/null"], None),
        ("binary garbage", ["--size", "\x01\x02\x7f"], None),
        ("utf-8 garbage", ["--bind", "\u00e9\u00e9"], None),
        ("option=value garbage", ["--threads=\u2603"], None),
        ("faults dir missing", ["--faults", "--faults-dir", "/nonexistent/dir"], None),
        ("probe option without probe", ["--shootdown-pages", "1"], None),
        ("synthetic garbage", ["--dry-run"], {"HWLOC_SYNTHETIC": "pack:x core:-1"}),
        ("xml missing", ["--dry-run"], {"HWLOC_XMLFILE": "/nonexistent.xml"}),
        ("OMP_NUM_THREADS huge", [], {"OMP_NUM_THREADS": HUGE}),
        ("MEMBENCH_ISA garbage", [], {"MEMBENCH_ISA": "\u2603"}),
        ("HUGETLB_MORECORE garbage", ["--dry-run"], {"HUGETLB_MORECORE": "maybe"}),
    ]
    return out


class HostileInputTest(MembenchTestCase):

    def test_every_hostile_input(self):
        for name, args, env in cases():
            with self.subTest(name=name):
                rc, out, err = run(args, env, timeout=30)
                msg = describe(args[:3], rc, out[:300], err[:600])
                self.assertIn(rc, (2, 3), msg)
                self.assertEqual(out, "", msg)
                lines = err.splitlines()
                self.assertEqual(len(lines), 1, msg)
                self.assertTrue(lines[0].startswith("membench: "), msg)
                self.assertLess(len(lines[0]), 600, "the message stays readable")


if __name__ == "__main__":
    membench_test.main()
