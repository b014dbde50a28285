# ctest: LABELS hugetlb timing threads
"""Every test declares what it needs (tests/README.md): a CI job runs the tests of its labels
only, so a test that reads the huge page pool without the `hugetlb` label would never run
where there is no pool, and one that waits on a named pause or a time limit without `timing`,
or skips by the CPUs it may use without `threads`, would never run on one CPU or beside a
CPU hog. Read from the sources; lib/membench_test.py (check_declared, require_label) checks
the same rule at run time on every run of membench the Python tests make. Labelled with
those labels itself, so the jobs that run them run it too."""

import glob
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import TESTS_DIR  # noqa: E402

#: Where a source shows it uses what a label stands for: (label, pattern, for which files).
USES = [
    ("hugetlb", re.compile(r"\b(hugepage_pool|hugetlb_pool_offered|"
                           r"skip_if_hugetlb_under_emulation)\(|[\[(,]\s*\"hugectl\""), ".py"),
    ("hugetlb", re.compile(r"\bmem_env_system\b"), ".c"),
    ("timing", re.compile(r"\bstart_paused\(|\b(PAUSE_AT|TIME_LIMIT_AT)\b"), ".py"),
    ("threads", re.compile(r"\bskip_unless_(all_)?cpus\("), ".py"),
]

#: The labels a test may declare (tests/README.md says what each means).
KNOWN = {"timing", "hugetlb", "vm", "mpi", "slurm", "emulation", "slow", "threads", "races"}

DECLARED = re.compile(r"(?m)^(?:# |/\* )ctest: LABELS ([^*\n]*)")


def test_files():
    """Every test source ctest runs: tests/*/test_*.py and tests/unit/test_*.c."""
    return sorted(glob.glob(os.path.join(TESTS_DIR, "*", "test_*.py"))
                  + glob.glob(os.path.join(TESTS_DIR, "unit", "test_*.c")))


def declared(text):
    """The labels a source declares on its 'ctest: LABELS' lines."""
    return {label for line in DECLARED.findall(text) for label in line.split()}


def missing_labels(path, text):
    """[(label, what in the file uses it)] for each use whose label the file lacks."""
    have = declared(text)
    out = []
    for label, pattern, ext in USES:
        m = pattern.search(text) if path.endswith(ext) else None
        if m and label not in have:
            out.append((label, m.group(0)))
    return out


class LabelsTest(unittest.TestCase):

    def test_every_use_carries_its_label(self):
        bad = []
        for path in test_files():
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for label, what in missing_labels(path, text):
                bad.append("%s uses %r but does not declare 'ctest: LABELS %s'"
                           % (os.path.relpath(path, TESTS_DIR), what, label))
        self.assertEqual(bad, [])

    def test_only_known_labels(self):
        bad = []
        for path in test_files():
            with open(path, encoding="utf-8") as f:
                unknown = declared(f.read()) - KNOWN
            if unknown:
                bad.append("%s: %s" % (os.path.relpath(path, TESTS_DIR), sorted(unknown)))
        self.assertEqual(bad, [], "labels not in tests/README.md")

    def test_the_check_sees_an_unlabelled_use(self):
        """The rule fails a file that reads the pool or pauses membench without the label."""
        self.assertEqual(missing_labels("x/test_a.py", "pool = hugepage_pool(2048)\n"),
                         [("hugetlb", "hugepage_pool(")])
        self.assertEqual(missing_labels("x/test_a.py", 'run(args, wrapper=["hugectl", "--heap"])'),
                         [("hugetlb", '["hugectl"')])
        self.assertEqual(missing_labels("x/test_a.py", "proc, _ = start_paused(a, 'p')\n"),
                         [("timing", "start_paused(")])
        self.assertEqual(missing_labels("unit/test_a.c", "b->probe(&mem_env_system, 1)"),
                         [("hugetlb", "mem_env_system")])
        self.assertEqual(missing_labels("x/test_a.py", "skip_unless_cpus(self, 2)\n"),
                         [("threads", "skip_unless_cpus(")])
        self.assertEqual(missing_labels("x/test_a.py", "# ctest: LABELS hugetlb timing\n"
                                        "hugepage_pool(1)\nstart_paused(a, 'p')\n"), [])

    def test_the_run_time_check_refuses_an_undeclared_run(self):
        """lib/membench_test.py's check: a run with 2 MB pages, HUGETLB_MORECORE, hugectl, a
        probe that tries the pool by default, a --time-limit or a pause needs its label."""
        saved = membench_test.LABELS
        self.addCleanup(setattr, membench_test, "LABELS", saved)
        membench_test.LABELS = {"structure"}
        for args, env, wrapper in [(["--pages", "4k,2m"], None, ()),
                                   (["--pages=1G"], None, ()),
                                   ([], {"HUGETLB_MORECORE": "yes"}, ()),
                                   ([], None, ("/usr/bin/hugectl", "--heap")),
                                   (["--latency"], None, ()),
                                   (["--time-limit", "5"], None, ()),
                                   ([], {"MEMBENCH_TEST_PAUSE_AT": "first touch"}, ())]:
            with self.subTest(args=args, env=env, wrapper=wrapper):
                with self.assertRaisesRegex(AssertionError, "ctest: LABELS"):
                    membench_test.check_declared(args, env, wrapper)
        membench_test.check_declared(["--pages", "4k", "--latency"], {"X": "1"})
        membench_test.LABELS = {"hugetlb", "timing"}
        membench_test.check_declared(["--pages", "2m", "--time-limit", "5"])


if __name__ == "__main__":
    membench_test.main()
