"""The layering rule of docs/design.md, checked on every #include "..." of the sources:

    src/base <- src/sys <- {kernels, affinity, hugepages} <- src/measure
             <- {the measurements: src/stream, src/tlb, src/probes, src/latency, ...}
             <- {src/verdict, src/report} <- src/cli <- {src/node, src/cluster, src/main.c}

A folder includes only folders of lower tiers and itself; folders of one tier may include each
other only where no folder-level include cycle results (and no cycle at all is allowed). A
folder that defines a measurement (a const struct measurement) is of the measurements' tier."""

import collections
import glob
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import TESTS_DIR  # noqa: E402
from test_measurements import definitions  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)

#: The tier of every folder that defines a measurement (a const struct measurement): a new
#: measurement's folder takes it without an edit here.
MEASUREMENT_TIER = 4
#: Folder -> tier; a file belongs to the longest folder that holds it.
TIERS = {
    "src/base": 0,
    "src/sys": 1,
    "kernels": 2, "affinity": 2, "hugepages": 2,
    "src/measure": 3,
    "src/verdict": 5, "src/report": 5,
    "src/cli": 6,
    "src/node": 7, "src/cluster": 7, "src": 7, "tests/hooks": 7,
}
TIERS.update((folder, MEASUREMENT_TIER) for folder in definitions(ROOT))
TIER_NAMES = ["base", "sys", "kernels/affinity/hugepages", "measure",
              "measurements (stream/tlb/probes/latency)", "verdict/report", "cli",
              "node/cluster/main"]
#: Headers generated into the build tree.
GENERATED = {"version.h"}
#: (file, header): why it is allowed for now. Keep this empty.
ALLOWED = {}


def folder_of(path):
    """The layering folder of a repository-relative path, or None."""
    best = None
    for folder in TIERS:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def sources(root):
    for folder in ("src", "kernels", "affinity", "hugepages", "tests/hooks"):
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.[ch]"), recursive=True)):
            yield os.path.relpath(path, root)


def includes(root):
    """(file, header) for every #include "..." of the layered sources."""
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            for header in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M):
                yield rel, header


def violations(root=ROOT, allowed=ALLOWED):
    """Lines naming each file, its include and the rule it breaks."""
    found = []
    for rel, header in includes(root):
        if header in GENERATED or (rel, header) in allowed:
            continue
        src, dst = folder_of(rel), folder_of(header)
        if src is None:
            found.append("%s: folder has no tier in the layering rule (docs/design.md)" % rel)
        elif not os.path.exists(os.path.join(root, header)):
            found.append('%s includes "%s": no such file (includes are relative to the '
                         "repository root)" % (rel, header))
        elif dst is None:
            found.append('%s includes "%s": that folder has no tier in the layering rule'
                         % (rel, header))
        elif TIERS[dst] > TIERS[src]:
            found.append('%s includes "%s": %s (tier %s) may not include %s (tier %s), a '
                         "higher tier (docs/design.md, Layers)"
                         % (rel, header, src, TIER_NAMES[TIERS[src]], dst,
                            TIER_NAMES[TIERS[dst]]))
    return found


def folder_graph(root=ROOT, allowed=ALLOWED):
    graph = collections.defaultdict(set)
    for rel, header in includes(root):
        if header in GENERATED or (rel, header) in allowed:
            continue
        src, dst = folder_of(rel), folder_of(header)
        if src and dst and src != dst:
            graph[src].add(dst)
    return graph


def cycles(graph):
    """Each folder-level include cycle, as "a -> b -> a"."""
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


#: What only one architecture has: its headers, inline assembly, its CPU-feature builtins.
ARCH_CODE = {
    "x86": re.compile(r'^\s*#\s*include\s*<(immintrin|x86intrin|cpuid|x86gprintrin|'
                      r'sys/platform/x86)\.h>|__builtin_ia32_|__builtin_cpu_(supports|init)'
                      r'|\b__rdtscp?\s*\(|\b_mm(256|512)?_\w+\s*\(', re.M),
    "arm": re.compile(r'^\s*#\s*include\s*<(arm_neon|arm_sve|arm_acle|asm/hwcap)\.h>'
                      r'|\bHWCAP2?_\w+|\bsv\w+_[fsu]\d+\w*\s*\(|\bv\w+q_[fsu]\d+\s*\(', re.M),
}
#: Inline assembly with instructions in it ("" alone is a compiler barrier, on every target).
ASM = re.compile(r'\b(__asm__|asm)\s*(volatile|__volatile__)?\s*\(\s*"(?!")')


def arch_of(rel):
    """The architecture whose folder holds a file (x86/ or arm/ anywhere in its path)."""
    parts = rel.split("/")[:-1]
    return next((a for a in ARCH_CODE if a in parts), None)


def arch_violations(root=ROOT):
    """Files outside an x86/ or arm/ folder that use one architecture's code, or inside one
    that use another's."""
    found = []
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = re.sub(r"/\*.*?\*/|//[^\n]*", "", f.read(), flags=re.S)
        home = arch_of(rel)
        for arch, pattern in ARCH_CODE.items():
            m = pattern.search(text)
            if m and arch != home:
                found.append("%s: %r is %s code; it belongs under an %s/ folder (docs/design.md, "
                             "Architectures)" % (rel, m.group(0).strip(), arch, arch))
        m = ASM.search(text)
        if m and home is None:
            found.append("%s: inline assembly outside an architecture folder (x86/, arm/)" % rel)
    return found


class LayeringTest(unittest.TestCase):

    def test_the_scan_sees_the_sources(self):
        seen = list(includes(ROOT))
        self.assertGreater(len(seen), 200)
        folders = {folder_of(f) for f, _ in seen}
        for folder in TIERS:
            if folder != "src" and os.path.isdir(os.path.join(ROOT, folder)):
                self.assertIn(folder, folders, "no includes found under %s" % folder)

    def test_no_folder_includes_a_higher_tier(self):
        found = violations()
        if found:
            self.fail("%d include(s) break the layering rule:\n  %s"
                      % (len(found), "\n  ".join(found)))

    def test_no_include_cycle_between_folders(self):
        found = cycles(folder_graph())
        if found:
            self.fail("include cycles between folders:\n  %s" % "\n  ".join(found))

    def test_architecture_code_lives_in_its_folder(self):
        found = arch_violations()
        if found:
            self.fail("%d file(s) use one architecture's code outside its folder:\n  %s"
                      % (len(found), "\n  ".join(found)))

    def test_the_architecture_check_catches_stray_code(self):
        with tempfile.TemporaryDirectory() as root:
            files = {"kernels/stream.c": "#include <immintrin.h>\n",
                     "kernels/arm/neon.c": "#include <arm_neon.h>\nx = vld1q_f64(p);\n",
                     "kernels/arm/mixed.c": "t = __rdtsc();\n",
                     "src/sys/clock.c": 'asm volatile("mrs %0, cntvct_el0" : "=r"(t));\n',
                     "kernels/sink.c": '__asm__ volatile("" : : "r"(sum));\n',
                     "src/sys/x86/cpuid.c": "#include <cpuid.h>\n/* not <arm_neon.h> */\n"}
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            found = "\n".join(arch_violations(root))
            self.assertIn("kernels/stream.c: '#include <immintrin.h>' is x86 code", found)
            self.assertIn("kernels/arm/mixed.c: '__rdtsc(' is x86 code", found)
            self.assertIn("src/sys/clock.c: inline assembly", found)
            self.assertNotIn("neon.c", found)
            self.assertNotIn("sink.c", found)
            self.assertNotIn("cpuid.c", found)

    def test_the_check_catches_a_forbidden_include_and_a_cycle(self):
        """The checker itself: a base file including a stream header is named, and two folders
        including each other are a cycle."""
        self.assertEqual(cycles({"a": {"b"}, "b": {"a"}}), ["a -> b -> a"])
        self.assertEqual(cycles({"a": {"b"}, "b": set()}), [])
        self.assertEqual(folder_of("src/base/log.c"), "src/base")
        self.assertEqual(folder_of("src/main.c"), "src")
        self.assertEqual(folder_of("kernels/dispatch.c"), "kernels")

    def test_a_measurement_folder_takes_its_tier_from_its_descriptor(self):
        for folder in ("src/stream", "src/tlb", "src/probes", "src/latency"):
            self.assertEqual(TIERS[folder], MEASUREMENT_TIER, folder)
        self.assertEqual(TIERS["src/measure"], MEASUREMENT_TIER - 1)


if __name__ == "__main__":
    membench_test.main()
