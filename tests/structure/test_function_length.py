"""The size rule of docs/design.md: no function over 80 lines (its signature, however many
lines it takes, through its closing brace) in src/, kernels/, affinity/ and hugepages/; a file
over 500 lines there is a review trigger: it stays only with the reason it is one idea written
in REVIEWED_LONG_FILES, and files are split along an idea, never to meet the count.

Run directly with --list to print every function and file over the limits, longest first."""

import glob
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import TESTS_DIR  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)
FOLDERS = ("src", "kernels", "affinity", "hugepages")
MAX_FUNCTION_LINES = 80
MAX_FILE_LINES = 500

#: Files over MAX_FILE_LINES kept whole after review: path -> why the file is one idea that a
#: split would cut in the middle. An entry whose file is no longer over the limit is stale.
REVIEWED_LONG_FILES = {}

_NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def _signature_start(lines, brace):
    """The index of the first line of the declaration that the body at lines[brace] opens."""
    start = brace
    while start > 0:
        prev = lines[start - 1].rstrip()
        if (not prev or prev.startswith("#") or prev.endswith((";", "}", "*/", "{"))
                or prev.lstrip().startswith(("//", "/*", "*"))):
            break
        start -= 1
    return start


def functions(text):
    """(name, first line, line count) of every function defined in C text: a body opens with a
    "{" alone at column 0 (.clang-format: BreakBeforeBraces Linux) and closes with a "}" at
    column 0."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "{":
            start = _signature_start(lines, i)
            end = i + 1
            while end < len(lines) and not lines[end].startswith("}"):
                end += 1
            match = _NAME.search(" ".join(lines[start:i]))
            found.append((match.group(1) if match else "?", start + 1, end - start + 1))
            i = end
        i += 1
    return found


def sources(root=ROOT):
    for folder in FOLDERS:
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.[ch]"), recursive=True)):
            yield os.path.relpath(path, root)


def long_things(root=ROOT):
    """(lines, description, file) for every function and file over the limits."""
    found = []
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        count = text.count("\n")
        if count > MAX_FILE_LINES:
            found.append((count, "%s: %d lines (at most %d a file)"
                          % (rel, count, MAX_FILE_LINES), rel))
        for name, line, length in functions(text):
            if length > MAX_FUNCTION_LINES:
                found.append((length, "%s:%d: %s() is %d lines (at most %d a function)"
                              % (rel, line, name, length, MAX_FUNCTION_LINES), rel))
    return sorted(found, reverse=True)


class FunctionLengthTest(unittest.TestCase):

    def test_the_scan_sees_the_functions(self):
        names = set()
        for rel in sources():
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                names.update(name for name, _, _ in functions(f.read()))
        self.assertGreater(len(names), 500)
        for name in ("main", "run_stream", "tlb_plan_build", "shootdown_probe_run"):
            self.assertIn(name, names)

    def test_no_function_over_the_limit(self):
        found = [what for _, what, rel in long_things() if "()" in what]
        if found:
            self.fail("%d function(s) over the size rule of docs/design.md; split them into "
                      "helpers with one job each:\n  %s" % (len(found), "\n  ".join(found)))

    def test_every_long_file_was_reviewed(self):
        long_files = {rel: what for _, what, rel in long_things() if "()" not in what}
        found = [what for rel, what in long_files.items() if rel not in REVIEWED_LONG_FILES]
        if found:
            self.fail("%d file(s) over %d lines (docs/design.md, Size): split each along an idea "
                      "it holds, or, where it is one idea, write why in REVIEWED_LONG_FILES of "
                      "%s:\n  %s" % (len(found), MAX_FILE_LINES, os.path.basename(__file__),
                                     "\n  ".join(found)))
        for rel, why in REVIEWED_LONG_FILES.items():
            self.assertTrue(why.strip(), "%s: a reviewed long file needs its reason" % rel)
            self.assertIn(rel, long_files, "%s is no longer over %d lines: drop its entry from "
                          "REVIEWED_LONG_FILES" % (rel, MAX_FILE_LINES))

    def test_the_check_counts_a_multi_line_signature_and_a_static_function(self):
        text = ("/* a */\n#include <x.h>\n\nstatic int\nf(int a,\n  int b)\n{\n"
                + "    a++;\n" * 3 + "}\n\nstatic const int t[] = {\n    1,\n};\n"
                "void g(void)\n{\n}\n")
        self.assertEqual(functions(text), [("f", 4, 8), ("g", 16, 3)])


if __name__ == "__main__":
    if "--list" in sys.argv:
        for _, what, rel in long_things():
            print(what + ("  (reviewed: %s)" % REVIEWED_LONG_FILES[rel]
                          if rel in REVIEWED_LONG_FILES else ""))
        sys.exit(0)
    membench_test.main()
