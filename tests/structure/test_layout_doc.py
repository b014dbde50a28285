"""docs/layout.md names every source file: each .c and .h under src/, kernels/, affinity/ and
hugepages/ appears in its source tree by name (`report_tlb_{quiet,csv,json}.c` names three;
`log, clock` name log.c/.h and clock.c/.h), so that the map of the code does not fall behind
the code."""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import TESTS_DIR  # noqa: E402
from test_measurements import sources  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)
LAYOUT = os.path.join(ROOT, "docs", "layout.md")
MARK = "<!-- not output: the source tree -->"


def expand(token):
    """`a_{b,c}.c` -> [`a_b.c`, `a_c.c`], nested or repeated groups too."""
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    return [word for alt in m.group(1).split(",")
            for word in expand(token[:m.start()] + alt + token[m.end():])]


def named(text):
    """The names the source tree block of a layout document gives (file stems and words)."""
    block = text[text.index(MARK):].split("```")[1]
    names = set()
    for token in re.findall(r"[\w./+{},-]+", block):
        for word in expand(token):
            names.update(re.findall(r"\w+", word))
    return names


def unnamed(text, files):
    """The files whose stem the layout's source tree does not name."""
    names = named(text)
    return [f for f in files if os.path.splitext(os.path.basename(f))[0] not in names]


class LayoutDocTest(unittest.TestCase):

    def test_every_source_file_is_named(self):
        with open(LAYOUT, encoding="utf-8") as f:
            missing = unnamed(f.read(), list(sources(ROOT)))
        self.assertEqual(missing, [], "docs/layout.md's source tree does not name these; add "
                                      "each with what it holds")

    def test_a_missing_file_is_found(self):
        """The check itself: braces expand, and a file the tree leaves out is named."""
        text = MARK + "\n```\nsrc/x/  a.c (one), report_{b,c}.c\n```\n"
        self.assertEqual(unnamed(text, ["src/x/a.c", "src/x/report_b.c", "src/x/report_c.h",
                                        "src/x/d.c"]), ["src/x/d.c"])


if __name__ == "__main__":
    membench_test.main()
