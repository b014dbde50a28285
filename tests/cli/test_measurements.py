"""One declaration per measurement (docs/design.md, "How to add a measurement"): every
measurement folder defines exactly one `const struct measurement` (src/measure/measure.h), the
one table src/cli/measurements.c lists each, and no source outside a measurement's folder names
what is its own (its descriptor, result and plan types, writers): src/node and the report loop
over the table instead."""

import glob
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import membench_test  # noqa: E402
from membench_test import TESTS_DIR  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)
TABLE = "src/cli/measurements.c"

#: Folder -> the names only that folder (and the table's row file) may write. STREAM's runs
#: are the report's core (src/report, src/verdict and src/cluster read them): only its
#: descriptor is its own.
OWN = {
    "src/stream": [r"stream_measurement"],
    "src/probes": [r"probes_measurement", r"struct\s+probe_results", r"report_probes_\w+"],
    "src/tlb": [r"tlb_measurement", r"struct\s+tlb_result", r"struct\s+tlb_plan",
                r"report_tlb_\w+"],
    "src/latency": [r"latency_measurement", r"struct\s+latency_result",
                    r"struct\s+latency_plan", r"report_latency_\w+"],
}
DEFINITION = re.compile(r"^const\s+struct\s+measurement\s+(\w+)\s*=", re.M)


def sources(root):
    for folder in ("src", "kernels", "affinity", "hugepages"):
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.[ch]"), recursive=True)):
            yield os.path.relpath(path, root)


def code_of(root, rel):
    """The file without its comments and #include lines (a header's path is not a use)."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"^\s*#\s*include[^\n]*", " ", text, flags=re.M)


def definitions(root=ROOT):
    """{folder: [descriptor names defined there]} for every folder that defines one."""
    found = {}
    for rel in sources(root):
        for name in DEFINITION.findall(code_of(root, rel)):
            found.setdefault(os.path.dirname(rel), []).append(name)
    return found


def strays(root=ROOT, own=OWN):
    """'file names X (folder's own)' for each use of a measurement's own name elsewhere."""
    found = []
    for rel in sources(root):
        if rel == TABLE:
            continue
        code = code_of(root, rel)
        for folder, patterns in own.items():
            if rel.startswith(folder + "/"):
                continue
            for pattern in patterns:
                for name in sorted(set(re.findall(r"\b%s\b" % pattern, code))):
                    found.append("%s names %s (%s's own: loop over the table in %s instead)"
                                 % (rel, " ".join(name.split()), folder, TABLE))
    return found


class MeasurementsTest(unittest.TestCase):

    def test_each_measurement_folder_defines_one_descriptor(self):
        found = definitions()
        for folder in OWN:
            self.assertEqual(len(found.get(folder, [])), 1,
                             "%s must define exactly one const struct measurement, found %s"
                             % (folder, found.get(folder, [])))
        self.assertEqual(sorted(found), sorted(OWN),
                         "a folder defines a measurement this test does not know: add it to OWN")

    def test_the_table_lists_every_descriptor(self):
        table = code_of(ROOT, TABLE)
        for folder, names in definitions().items():
            self.assertRegex(table, r"\{\s*&%s\s*," % names[0],
                             "%s's %s is no row of %s" % (folder, names[0], TABLE))

    def test_no_file_outside_a_measurement_names_it(self):
        found = strays()
        if found:
            self.fail("%d use(s) of a measurement outside its folder:\n  %s"
                      % (len(found), "\n  ".join(found)))

    def test_the_check_catches_a_stray_name(self):
        """The checker itself, on a scratch tree: a node file naming the TLB result and a
        writer, and a folder with two descriptors, are found."""
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "src", "node"))
            os.makedirs(os.path.join(root, "src", "tlb"))
            with open(os.path.join(root, "src", "node", "n.c"), "w") as f:
                f.write('#include "src/tlb/report_tlb.h"\n/* struct tlb_result */\n'
                        "void f(const struct tlb_result *t) { report_tlb_text(0, t); }\n")
            with open(os.path.join(root, "src", "tlb", "m.c"), "w") as f:
                f.write("const struct measurement a = {0};\nconst struct measurement b = {0};\n")
            self.assertEqual(strays(root), [
                "src/node/n.c names struct tlb_result (src/tlb's own: loop over the table in "
                "src/cli/measurements.c instead)",
                "src/node/n.c names report_tlb_text (src/tlb's own: loop over the table in "
                "src/cli/measurements.c instead)"])
            self.assertEqual(definitions(root), {"src/tlb": ["a", "b"]})


if __name__ == "__main__":
    membench_test.main()
