"""Kernel variants end to end: every ISA the CPU has x normal/non-temporal stores, odd sizes,
thread counts 1..4 and offsets all validate; byte accounting and the tuned label follow the
stores; auto picks non-temporal stores only for arrays beyond the caches."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402

ALL_KERNELS = ["--copy", "--scale", "--add", "--triad", "--dot", "--read", "--write",
               "--nstream"]
WORDS = {"Copy": (1, 1), "Scale": (1, 1), "Add": (2, 1), "Triad": (2, 1), "Dot": (2, 0),
         "Read": (1, 0), "Write": (0, 1), "Nstream": (3, 1)}


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def isas():
    flags = cpu_flags()
    found = ["sse2"]
    if "avx2" in flags:
        found.append("avx2")
    if "avx512f" in flags:
        found.append("avx512")
    return found


class VariantTest(MembenchTestCase):

    def run_variant(self, isa, stores, size, threads, offset, kind="double"):
        args = ALL_KERNELS + ["--isa", isa, "--stores", stores, "--size", str(size),
                              "-n", "3", "-t", str(threads), "--offset", str(offset),
                              "--type", kind]
        doc = self.run_json(args)
        run = doc["runs"][0]
        self.assertTrue(run["validation"]["passed"], (isa, stores, size, threads, offset))
        self.assertEqual(run["config"]["isa"], isa)
        self.assertEqual(run["config"]["stores"], stores)
        self.assertEqual(run["config"]["tuned"], stores == "nt")
        return run

    def test_every_isa_and_store_kind_on_odd_sizes(self):
        cases = [(1, 1, 0), (7, 2, 1), (1000003, 3, 3), (4099, 4, 5)]
        for isa in isas():
            for stores in ("normal", "nt"):
                for size, threads, offset in cases:
                    with self.subTest(isa=isa, stores=stores, size=size):
                        self.run_variant(isa, stores, size, threads, offset)
                with self.subTest(isa=isa, stores=stores, kind="float"):
                    self.run_variant(isa, stores, 100003, 2, 1, "float")

    def test_reductions_are_checked(self):
        run = self.run_variant(isas()[-1], "normal", 300001, 2, 0)
        dot = [r for r in run["results"] if r["kernel"] == "Dot"][0]
        self.assertLess(dot["reduction_rel_error"], 1e-10)

    def test_byte_accounting_follows_stores(self):
        n = 200000
        for stores in ("normal", "nt"):
            run = self.run_variant("sse2", stores, n, 2, 0)
            for r in run["results"]:
                read, written = WORDS[r["kernel"]]
                self.assertEqual(r["bytes_counted"], (read + written) * n * 8, r["kernel"])
                per_write = 1 if stores == "nt" else 2
                self.assertEqual(r["bytes_estimated_traffic"],
                                 (read + per_write * written) * n * 8, r["kernel"])

    def test_auto_stores(self):
        """auto = non-temporal only when the arrays keep the STREAM rule."""
        env = {"HWLOC_SYNTHETIC": "pack:1 l3:1(size=8MiB) core:2 pu:1"}
        doc = self.run_json(["--dry-run", "-s", "0.5xLLC,4xLLC"], env_extra=env)
        got = [(r["config"]["stores"], r["config"]["tuned"]) for r in doc["runs"]]
        self.assertEqual(got, [("normal", False), ("nt", True)])
        doc = self.run_json(["--dry-run", "-s", "1GiB"],
                            env_extra={"HWLOC_SYNTHETIC": "pack:1 core:2 pu:1"})
        self.assertEqual(doc["runs"][0]["config"]["stores"], "normal",
                         "unknown LLC: never assume the arrays are beyond the caches")

    def test_tuned_label_in_text(self):
        out, _ = self.run_ok(["--triad", "--stores", "nt", "--size", "100000", "-n", "3"])
        self.assertIn("TUNED run", out)
        out, _ = self.run_ok(["--triad", "--stores", "normal", "--size", "100000", "-n", "3"])
        self.assertNotIn("TUNED", out)

    def test_isa_from_environment(self):
        doc = self.run_json(["--dry-run"], env_extra={"MEMBENCH_ISA": "sse2"})
        self.assertEqual(doc["runs"][0]["config"]["isa"], "sse2")

    def test_extra_kernels_in_text_table(self):
        out, _ = self.run_ok(["--dot", "--read", "--write", "--nstream", "--size", "100000",
                              "-n", "3"])
        for label in ("Dot:", "Read:", "Write:", "Nstream:"):
            self.assertRegex(out, r"(?m)^%s\s+\d+\.\d" % label)
        self.assertNotRegex(out, r"(?m)^Copy:")
        self.assertIn("Dot sum matches its closed form", out)


if __name__ == "__main__":
    membench_test.main()
