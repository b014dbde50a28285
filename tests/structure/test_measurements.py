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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import TESTS_DIR  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)
TABLE = "src/cli/measurements.c"

#: A descriptor: its name and the body of its initialiser.
DESCRIPTOR = re.compile(r"^const\s+struct\s+measurement\s+(\w+)\s*=\s*\{(.*?)\};", re.M | re.S)
SIZE_OF = re.compile(r"\.(request|plan|result)_size\s*=\s*sizeof\(\s*struct\s+(\w+)\s*\)")


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
        for name, _ in DESCRIPTOR.findall(code_of(root, rel)):
            found.setdefault(os.path.dirname(rel), []).append(name)
    return found


def own_names(root=ROOT):
    """{folder: patterns of the names only that folder (and the table's row file) may write},
    read off each folder's descriptor: its own name and, unless it is the judged one
    (.judged: STREAM's result is read by the verdict, the saved reference and src/node), the
    plan and result types it sizes (not its request's: that may be its options block,
    struct NAME_options, which src/cli's checks read) and the folder's writers,
    report_<folder>_*. A new measurement needs no edit here."""
    own = {}
    for rel in sources(root):
        for name, body in DESCRIPTOR.findall(code_of(root, rel)):
            folder = os.path.dirname(rel)
            patterns = own.setdefault(folder, [])
            patterns.append(name)
            sized = dict((part, struct) for part, struct in SIZE_OF.findall(body))
            judged = re.search(r"\.judged\s*=\s*true", body)
            for part in ("result", "plan"):
                struct = sized.get(part)
                if struct and struct != sized.get("request") and not judged:
                    patterns.append(r"struct\s+%s" % struct)
            writers = r"report_%s_\w+" % os.path.basename(folder)
            if writers not in patterns:  # a folder's second descriptor names the same writers
                patterns.append(writers)
    return own


def strays(root=ROOT, own=None):
    """'file names X (folder's own)' for each use of a measurement's own name elsewhere."""
    own = own_names(root) if own is None else own
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
        for folder in ("src/stream", "src/probes", "src/tlb", "src/latency"):
            self.assertIn(folder, found, "%s defines no const struct measurement" % folder)
        for folder, names in found.items():
            self.assertEqual(len(names), 1, "%s must define exactly one const struct "
                             "measurement, found %s" % (folder, names))

    def test_one_measurement_is_judged(self):
        judged = [name for rel in sources(ROOT) for name, body in DESCRIPTOR.findall(
            code_of(ROOT, rel)) if re.search(r"\.judged\s*=\s*true", body)]
        self.assertEqual(judged, ["stream_measurement"], "report_stream() reads the one judged "
                         "measurement's result as STREAM's runs")

    def test_what_is_own_is_read_off_the_descriptors(self):
        own = own_names()
        self.assertEqual(own["src/stream"], ["stream_measurement", r"report_stream_\w+"])
        self.assertEqual(own["src/tlb"], ["tlb_measurement", r"struct\s+tlb_result",
                                          r"struct\s+tlb_plan", r"report_tlb_\w+"])
        self.assertEqual(own["src/latency"], ["latency_measurement", r"struct\s+latency_result",
                                              r"struct\s+latency_plan", r"report_latency_\w+"])
        # the probes' plan is their request (struct probe_options, their options block)
        self.assertEqual(own["src/probes"], ["probes_measurement", r"struct\s+probe_results",
                                             r"report_probes_\w+"])

    def test_the_table_lists_every_descriptor(self):
        table = code_of(ROOT, TABLE)
        for folder, names in definitions().items():
            self.assertRegex(table, r"\{\s*\.m\s*=\s*&%s\s*[,}]" % names[0],
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
                f.write("const struct measurement tlb_measurement = {\n"
                        "    .result_size = sizeof(struct tlb_result),\n};\n"
                        "const struct measurement b = {0};\n")
            self.assertEqual(strays(root), [
                "src/node/n.c names struct tlb_result (src/tlb's own: loop over the table in "
                "src/cli/measurements.c instead)",
                "src/node/n.c names report_tlb_text (src/tlb's own: loop over the table in "
                "src/cli/measurements.c instead)"])
            self.assertEqual(definitions(root), {"src/tlb": ["tlb_measurement", "b"]})


if __name__ == "__main__":
    membench_test.main()
