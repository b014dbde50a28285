# ctest: LABELS emulation races
"""Kernel variants end to end: every ISA the CPU has x normal/non-temporal stores, odd sizes,
thread counts 1..4 and offsets all validate; byte accounting and the tuned label follow the
stores; auto is left to the measurement (test_store_choice.py); with an ISA masked
off through GLIBC_TUNABLES (as on a CPU without it) dispatch falls back to the next widest."""

import functools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
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


#: The ISA every CPU of the build's architecture has (x86-64: SSE2, aarch64: NEON).
BASE_ISA = {"x86-64": "sse2", "aarch64": "neon"}.get(membench_test.BUILD_ARCH, "scalar")
X86 = membench_test.BUILD_ARCH == "x86-64"


@functools.lru_cache(maxsize=None)
def isas():
    """This CPU's ISAs of the build, narrowest first (scalar aside)."""
    if not X86:
        wider = {"aarch64": ["sve"]}.get(membench_test.BUILD_ARCH, [])
        return [BASE_ISA] + [i for i in wider if membench_test.run(
            ["--isa", i, "--size", "1000", "--dry-run"])[0] == 0]
    flags = cpu_flags()
    found = ["sse2"]
    if "avx2" in flags:
        found.append("avx2")
    if "avx512f" in flags:
        found.append("avx512")
    if membench_test.UNDER_EMULATION:  # /proc/cpuinfo is the host's, not the emulated CPU's
        found = [i for i in found
                 if membench_test.run(["--isa", i, "--size", "1000", "--dry-run"])[0] == 0]
    return found


# glibc.cpu.hwcaps feature names that mask each ISA above SSE2.
HWCAP_MASK = {"avx512": "-AVX512F", "avx2": "-AVX2"}


def masked(*isas_off):
    return {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=" + ",".join(HWCAP_MASK[i] for i in isas_off)}


def glibc_masks_isas():
    """glibc 2.33+ exports the CPU features it uses (sys/platform/x86.h), tunables included."""
    version = os.confstr("CS_GNU_LIBC_VERSION") if "CS_GNU_LIBC_VERSION" in os.confstr_names \
        else ""
    parts = version.split()[-1].split(".") if version.startswith("glibc") else []
    return len(parts) >= 2 and (int(parts[0]), int(parts[1])) >= (2, 33)


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
            run = self.run_variant(BASE_ISA, stores, n, 2, 0)
            for r in run["results"]:
                read, written = WORDS[r["kernel"]]
                self.assertEqual(r["bytes_counted"], (read + written) * n * 8, r["kernel"])
                per_write = 1 if stores == "nt" else 2
                self.assertEqual(r["bytes_estimated_traffic"],
                                 (read + per_write * written) * n * 8, r["kernel"])

    def test_auto_stores(self):
        """auto is decided by measurement when the run runs (test_store_choice.py): a dry run
        says auto at every size, known LLC or not, and claims no tuned run."""
        env = {"HWLOC_SYNTHETIC": "pack:1 l3:1(size=8MiB) core:2 pu:1"}
        doc = self.run_json(["--dry-run", "-s", "0.5xLLC,4xLLC"], env_extra=env)
        got = [(r["config"]["stores"], r["config"]["tuned"]) for r in doc["runs"]]
        self.assertEqual(got, [("auto", False), ("auto", False)])
        doc = self.run_json(["--dry-run", "-s", "1GiB"],
                            env_extra={"HWLOC_SYNTHETIC": "pack:1 core:2 pu:1"})
        self.assertEqual(doc["runs"][0]["config"]["stores"], "auto")

    def test_tuned_label_in_text(self):
        out, _ = self.run_ok(["--triad", "--stores", "nt", "--size", "100000", "-n", "3"])
        self.assertIn("TUNED run", out)
        out, _ = self.run_ok(["--triad", "--stores", "normal", "--size", "100000", "-n", "3"])
        self.assertNotIn("TUNED", out)

    def test_scalar_isa_has_no_nt_stores(self):
        """scalar (plain C, every build) validates every kernel; auto runs normal stores and
        says why, and nt asked for is refused rather than run as normal stores."""
        self.run_variant("scalar", "normal", 100003, 2, 1)
        self.run_variant("scalar", "normal", 4099, 3, 5, "float")
        doc = self.run_json(ALL_KERNELS + ["--isa", "scalar", "--size", "100003", "-n", "3"])
        run = doc["runs"][0]
        self.assertTrue(run["validation"]["passed"])
        self.assertEqual((run["config"]["stores"], run["config"]["tuned"]), ("normal", False))
        self.assertEqual(run["config"]["stores_requested"], "auto")
        out, _ = self.run_ok(["--isa", "scalar", "--triad", "--size", "100000", "-n", "3"])
        self.assertIn("Stores: auto, this ISA has no non-temporal stores: normal stores", out)
        self.assert_error(["--isa", "scalar", "--stores", "nt", "--dry-run"], 2,
                          ["--stores nt", "scalar", "no non-temporal stores", "--stores normal"])

    def test_isa_from_environment(self):
        doc = self.run_json(["--dry-run"], env_extra={"MEMBENCH_ISA": BASE_ISA})
        self.assertEqual(doc["runs"][0]["config"]["isa"], BASE_ISA)

    def test_missing_isa_falls_back_to_the_next_widest(self):
        if not X86:
            self.skipTest("GLIBC_TUNABLES masks x86 ISAs only; this build is %s"
                          % membench_test.BUILD_ARCH)
        if not glibc_masks_isas():
            self.skipTest("glibc older than 2.33: GLIBC_TUNABLES cannot mask an ISA")
        have = isas()
        if len(have) < 2:
            self.skipTest("this CPU has only SSE2: no wider ISA to mask")
        top, below = have[-1], have[-2]
        env = masked(top)
        doc = self.run_json(["--copy", "--triad", "--size", "100003", "-n", "3", "-t", "2",
                             "--stores", "nt"], env_extra=env)
        run = doc["runs"][0]
        self.assertEqual(run["config"]["isa"], below)
        self.assertTrue(run["validation"]["passed"])
        self.assert_error(["--isa", top, "--dry-run"], 3,
                          ["--isa " + top, "GLIBC_TUNABLES", "use --isa " + below], env)
        self.assert_error(["--dry-run"], 3, ["MEMBENCH_ISA " + top, "MEMBENCH_ISA=" + below],
                          dict(env, MEMBENCH_ISA=top))

    def test_sse2_when_every_wider_isa_is_masked(self):
        if not X86:
            self.skipTest("GLIBC_TUNABLES masks x86 ISAs only; this build is %s"
                          % membench_test.BUILD_ARCH)
        if not glibc_masks_isas():
            self.skipTest("glibc older than 2.33: GLIBC_TUNABLES cannot mask an ISA")
        doc = self.run_json(ALL_KERNELS + ["--size", "1000003", "-n", "3", "-t", "3",
                                           "--offset", "5"],
                            env_extra=masked("avx512", "avx2"))
        run = doc["runs"][0]
        self.assertEqual(run["config"]["isa"], "sse2")
        self.assertTrue(run["validation"]["passed"])

    def test_extra_kernels_in_text_table(self):
        out, _ = self.run_ok(["--dot", "--read", "--write", "--nstream", "--size", "100000",
                              "-n", "3"])
        for label in ("Dot:", "Read:", "Write:", "Nstream:"):
            self.assertRegex(out, r"(?m)^%s\s+\d+\.\d" % label)
        self.assertNotRegex(out, r"(?m)^Copy:")
        self.assertIn("Dot sum matches its closed form", out)


if __name__ == "__main__":
    membench_test.main()
