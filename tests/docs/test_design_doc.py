"""docs/design.md is the contract: every JSON key that membench writes is listed there, and the
README and docs/*.md point only at files (and headings) that are in the repository."""

import glob
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import TESTS_DIR  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)
DESIGN = os.path.join(ROOT, "docs", "design.md")

#: Lowercase string literals in JSON writer calls that are values, not keys.
VALUES = {"unclear"}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def keys_in_sources():
    """(key, file) for each lowercase string literal inside a jansson writer call in src/."""
    found = set()
    for path in glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]"), recursive=True):
        text = read(path)
        for call in re.finditer(r"json_(?:object_set_new|object_set|pack)\s*\((.*?)\);", text,
                                re.S):
            for key in re.findall(r'"([a-z][a-z0-9_]*)"', call.group(1)):
                if key not in VALUES:
                    found.add((key, os.path.relpath(path, ROOT)))
    return found


def keys_in_document(doc, found):
    """Every key of a parsed JSON document (lowercase names; kernel names are data)."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if re.fullmatch(r"[a-z][a-z0-9_]*", key):
                found.add(key)
            keys_in_document(value, found)
    elif isinstance(doc, list):
        for value in doc:
            keys_in_document(value, found)
    return found


def documented(doc, key):
    return re.search(r"\b%s\b" % re.escape(key), doc) is not None


class DesignDocTest(unittest.TestCase):

    def setUp(self):
        if not os.path.isfile(DESIGN):
            self.fail("docs/design.md is missing")
        self.doc = read(DESIGN)

    def test_the_scan_finds_keys(self):
        """The source scan is not vacuous: it sees keys of every document kind."""
        keys = {k for k, _ in keys_in_sources()}
        for key in ("best_rate_mbps", "membench_reference", "walk_throughput", "mad_k",
                    "shootdowns_per_op"):
            self.assertIn(key, keys)

    def test_every_key_written_by_the_sources_is_documented(self):
        missing = sorted("%s (%s)" % (k, f) for k, f in keys_in_sources()
                         if not documented(self.doc, k))
        self.assertEqual(missing, [], "JSON keys missing from docs/design.md")

    def test_every_key_of_the_golden_documents_is_documented(self):
        keys = set()
        for path in glob.glob(os.path.join(TESTS_DIR, "golden", "*.json")):
            keys_in_document(json.loads(read(path)), keys)
        self.assertGreater(len(keys), 100)
        self.assertEqual(sorted(k for k in keys if not documented(self.doc, k)), [])

    def test_exit_codes_are_documented(self):
        for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "128+N", "130", "143"):
            self.assertIn(code, self.doc)

    def test_readme_points_only_at_files_in_the_repository(self):
        readme = read(os.path.join(ROOT, "README.md"))
        targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
        tops = ("docs/", "src/", "tests/", "bench/", "contrib/", "kernels/", "affinity/",
                "hugepages/", ".ci/")
        targets += [t for t in re.findall(r"`([A-Za-z0-9_./-]+)`", readme)
                    if t.startswith(tops) and "*" not in t and "<" not in t]
        self.assertIn("docs/design.md", targets, "the README links the contract")
        missing = sorted({t for t in targets if not t.startswith(("http:", "https:"))
                          and not os.path.exists(os.path.join(ROOT, t))})
        self.assertEqual(missing, [], "README points at files that are not in the repository")
        self.assertNotRegex(readme, r"(?<!docs/)DESIGN\.md",
                            "DESIGN.md is not in the repository; the contract is docs/design.md")

    def test_docs_point_only_at_files_and_headings_that_exist(self):
        """Links in README.md and docs/*.md, relative to the file, reach a file; a #anchor
        into a Markdown file reaches one of its headings (GitHub's slugs)."""
        bad = []
        for path in [os.path.join(ROOT, "README.md")] + glob.glob(os.path.join(ROOT, "docs",
                                                                              "*.md")):
            text = read(path)
            for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
                if target.startswith(("http:", "https:", "mailto:")):
                    continue
                full = os.path.normpath(os.path.join(os.path.dirname(path), target)) \
                    if target else path
                where = "%s: %s" % (os.path.relpath(path, ROOT), target + ("#" + anchor
                                                                            if anchor else ""))
                if not os.path.exists(full):
                    bad.append(where)
                elif anchor and full.endswith(".md") and anchor not in slugs(read(full)):
                    bad.append(where + " (no such heading)")
        self.assertEqual(sorted(bad), [])


def slugs(markdown):
    """GitHub's anchors of a Markdown file's headings."""
    found = set()
    for heading in re.findall(r"(?m)^#{1,6}\s+(.*?)\s*$", re.sub(r"(?ms)^\s*```.*?^\s*```",
                                                                  "", markdown)):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


if __name__ == "__main__":
    membench_test.main()
