# ctest: LABELS mpi emulation races
"""Real (small) runs on this machine: output formats, kernels, validation, -o."""

import calendar
import csv
import io
import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import SMALL, describe, run  # noqa: E402

ALL = ["Copy", "Scale", "Add", "Triad"]
WORDS = {"Copy": 2, "Scale": 2, "Add": 3, "Triad": 3}
HEADER = "Function    Best Rate MB/s  Avg time     Min time     Max time"
THREADS = membench_test.THREADS  # 2, or 1 where this process may use one CPU only
KERNEL_LINE = re.compile(r"(?m)^(Copy|Scale|Add|Triad):\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$")


class TextTest(membench_test.MembenchTestCase):
    """The STREAM-style text table."""

    def kernel_rows(self, out):
        """[(kernel, rate, avg, min, max)] from the text table."""
        return [(m.group(1),) + tuple(float(x) for x in m.group(2, 3, 4, 5))
                for m in KERNEL_LINE.finditer(out)]

    def test_default_kernels(self):
        """All four kernels, STREAM header, positive rates, Solution Validates."""
        out, _ = self.run_ok(SMALL)
        self.assertIn(HEADER + "\n", out)
        for name in ALL:
            m = re.search(r"(?m)^%s:\s+(\S+)" % name, out)
            self.assertIsNotNone(m, "%s line missing\n%s" % (name, out))
            self.assertGreater(float(m.group(1)), 0.0)
        rows = self.kernel_rows(out)
        self.assertEqual([r[0] for r in rows], ALL)
        for _, rate, avg, tmin, tmax in rows:
            self.assertGreater(rate, 0.0)
            self.assertLessEqual(tmin, avg)
            self.assertLessEqual(avg, tmax)
        self.assertRegex(out, r"(?m)^Solution Validates")
        self.assertNotIn("Failed Validation", out)
        self.assertRegex(out, r"(?m)^Array size = 2000000 \(elements\)")
        self.assertIn("Each kernel will be executed 3 times.", out)

    def test_triad_only(self):
        """--triad alone prints only the Triad line."""
        out, _ = self.run_ok(["--triad"] + SMALL)
        self.assertEqual([r[0] for r in self.kernel_rows(out)], ["Triad"])
        self.assertRegex(out, r"(?m)^Triad:\s+\S+")
        self.assertNotRegex(out, r"(?m)^(Copy|Scale|Add):")
        self.assertIn("Solution Validates", out)

    def test_copy_add_in_stream_order(self):
        """--add --copy prints Copy then Add, nothing else."""
        out, _ = self.run_ok(["--add", "--copy"] + SMALL)
        self.assertEqual([r[0] for r in self.kernel_rows(out)], ["Copy", "Add"])

    def test_copy_add(self):
        """--copy --add prints exactly Copy and Add in that order."""
        out, _ = self.run_ok(["--copy", "--add"] + SMALL)
        self.assertEqual([r[0] for r in self.kernel_rows(out)], ["Copy", "Add"])

    def test_offset_validates(self):
        """--offset 5 shifts the arrays and still validates."""
        out, _ = self.run_ok(SMALL + ["--offset", "5"])
        self.assertIn("Offset = 5 (elements)", out)
        self.assertIn("Solution Validates", out)


class CsvTest(membench_test.MembenchTestCase):
    """--format csv."""

    def test_csv_rows_and_bytes(self):
        """Header + one row per kernel; byte counts follow STREAM's words per element."""
        out, _ = self.run_ok(SMALL + ["--format", "csv"])
        lines = out.splitlines()
        self.assertEqual(len(lines), 1 + len(ALL), out)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual([r["kernel"] for r in rows], ALL)
        for r in rows:
            words = WORDS[r["kernel"]]
            n = int(r["array_elements"])
            self.assertEqual(n, 2000000)
            self.assertEqual(r["type"], "double")
            self.assertIn(r["stores"], ("normal", "nt"))  # auto measures which one runs
            self.assertGreater(float(r["best_rate_mbps"]), 0.0)
            self.assertEqual(int(r["bytes_counted"]), words * n * 8)
            # Normal stores read the destination line first (write-allocate).
            allocate = 1 if r["stores"] == "normal" else 0
            self.assertEqual(int(r["bytes_estimated_traffic"]), (words + allocate) * n * 8)
            self.assertLessEqual(float(r["min_time_s"]), float(r["avg_time_s"]))
            self.assertLessEqual(float(r["avg_time_s"]), float(r["max_time_s"]))
            self.assertEqual(r["validated"], "true")
            self.assertEqual(int(r["threads"]), THREADS)


class JsonTest(membench_test.MembenchTestCase):
    """--format json on real runs."""

    def check_run(self, r, elem_bytes, kernels=ALL):
        """Assert the invariants of one measured run."""
        cfg = r["config"]
        n = cfg["array_elements"]
        self.assertEqual(cfg["array_bytes"], n * elem_bytes)
        self.assertIs(r["validation"]["passed"], True)
        self.assertEqual([x["kernel"] for x in r["results"]], kernels)
        for x in r["results"]:
            self.assertGreater(x["best_rate_mbps"], 0.0)
            self.assertGreater(x["min_time_s"], 0.0)
            self.assertLessEqual(x["min_time_s"], x["avg_time_s"])
            self.assertLessEqual(x["avg_time_s"], x["max_time_s"])
            words = WORDS[x["kernel"]]
            self.assertEqual(x["bytes_counted"], words * n * elem_bytes)
            allocate = 1 if x["stores"] == "normal" else 0  # auto measured each kernel's kind
            self.assertIn(x["stores"], ("normal", "nt"))
            if cfg["stores"] != "mixed":
                self.assertEqual(x["stores"], cfg["stores"])
            self.assertEqual(x["bytes_estimated_traffic"], (words + allocate) * n * elem_bytes)
            want = x["bytes_counted"] / x["min_time_s"] / 1e6
            self.assertAlmostEqual(x["best_rate_mbps"] / want, 1.0, delta=1e-6,
                                   msg="%s rate %r vs bytes/min_time %r"
                                   % (x["kernel"], x["best_rate_mbps"], want))
        backing = r["backing"]
        self.assertIs(backing["verified"], True)
        self.assertIn(backing["page_size_bytes"], (4096, 2097152))
        self.assertIsInstance(backing["how"], str)
        placement = r["placement"]
        self.assertEqual(len(placement), cfg["threads"])
        self.assertEqual(sorted(p["thread"] for p in placement), list(range(cfg["threads"])))
        for p in placement:
            self.assertGreaterEqual(p["pu"], 0)

    def test_json_run(self):
        """Schema 1, validated results in STREAM order, rates from bytes/min time."""
        doc = self.run_json(SMALL)
        self.assertIs(doc["dry_run"], False)
        self.assertIsInstance(doc["membench_version"], str)
        s = doc["system"]
        for key in ("hostname", "cpu_model", "packages", "numa_nodes", "cores", "pus",
                    "llc_bytes_total", "llc_count", "thp_enabled", "kernel", "hugepages"):
            self.assertIn(key, s)
        self.assertIs(s["topology_is_this_system"], True)
        self.assertEqual(len(doc["runs"]), 1)
        r = doc["runs"][0]
        cfg = r["config"]
        self.assertEqual(cfg["threads"], THREADS)
        self.assertEqual(cfg["array_elements"], 2000000)
        self.assertEqual(cfg["ntimes"], 3)
        self.assertEqual(cfg["type"], "double")
        self.check_run(r, 8)

    def test_provenance_describes_this_build_and_machine(self):
        """Every JSON says which compiler built membench, with what OpenMP settings it ran,
        when, for how long, on how much memory, with which microcode."""
        start = time.time()
        doc = self.run_json(SMALL + ["--triad"], env_extra={"OMP_PROC_BIND": "close"})
        prov = doc["provenance"]
        prefix = {"GNU": "gcc ", "Clang": "clang "}.get(os.environ.get("MEMBENCH_C_COMPILER_ID"))
        if prefix:
            self.assertRegex(prov["compiler"], "^" + prefix + r"\d+\.\d+")
        self.assertIn("-O3", prov["cflags"])
        self.assertIn("OMP_PROC_BIND=close", prov["omp_env"])
        stamp = calendar.timegm(time.strptime(prov["start_time"], "%Y-%m-%dT%H:%M:%SZ"))
        self.assertLess(abs(stamp - start), 60)
        self.assertGreater(prov["duration_s"], 0.0)
        self.assertLess(prov["duration_s"], time.time() - start + 1)
        with open("/proc/meminfo") as f:
            total_kb = int(re.search(r"MemTotal:\s+(\d+) kB", f.read()).group(1))
        self.assertEqual(prov["mem_total_bytes"], total_kb * 1024)
        with open("/proc/cpuinfo") as f:
            micro = re.search(r"(?m)^microcode\s*:\s*(\S+)", f.read())
        if micro:
            self.assertEqual(prov["microcode"], micro.group(1))

    def test_provenance_cuts_a_long_omp_environment_at_its_field(self):
        """OpenMP variables longer than the field (511 bytes): whole "NAME=value" entries
        joined by "; ", the one that does not fit cut, none after it, no other variables."""
        membench_test.skip_unless_llc_known(self)
        extra = {"OMP_AA": "a" * 200, "GOMP_BB": "b" * 200, "KMP_CC": "c" * 200,
                 "KMP_DD": "d", "XOMP_EE": "e"}
        doc = self.run_json(["--dry-run"], env_extra=extra)
        items = doc["provenance"]["omp_env"].split("; ")
        self.assertEqual(len(doc["provenance"]["omp_env"]), 511)
        whole = ["%s=%s" % kv for kv in extra.items()] + ["OMP_NUM_THREADS=%d" % THREADS]
        for item in items[:-1]:
            self.assertIn(item, whole)
        self.assertTrue(any(w.startswith(items[-1]) and w != items[-1] for w in whole),
                        items[-1])
        self.assertNotIn("XOMP_EE=e", items)
        if not membench_test.UNDER_EMULATION:  # qemu-user hands environ over reversed
            self.assertNotIn("KMP_DD=d", items)

    def test_float(self):
        """--type float validates and counts 4 bytes per element."""
        doc = self.run_json(SMALL + ["--type", "float"])
        r = doc["runs"][0]
        self.assertEqual(r["config"]["type"], "float")
        self.check_run(r, 4)

    def test_long_float_run_validates(self):
        """-n 50 with floats: rounding drift must not fail validation."""
        doc = self.run_json(["-n", "50", "--type", "float", "--size", "200000"])
        r = doc["runs"][0]
        self.assertEqual(r["config"]["ntimes"], 50)
        self.check_run(r, 4)

    def test_long_double_run_validates(self):
        """-n 200 with doubles on a small array still validates."""
        doc = self.run_json(["-n", "200", "--size", "100000", "--triad"])
        self.check_run(doc["runs"][0], 8, ["Triad"])

    def test_omp_num_threads_one(self):
        """OMP_NUM_THREADS=1: one thread, one placement entry."""
        doc = self.run_json(SMALL, env_extra={"OMP_NUM_THREADS": "1"})
        r = doc["runs"][0]
        self.assertEqual(r["config"]["threads"], 1)
        self.assertEqual(r["config"]["threads_from"], "OMP_NUM_THREADS")
        self.check_run(r, 8)

    def test_threads_sweep(self):
        """-t 1,2: two measured runs, each validated."""
        doc = self.run_json(SMALL + ["-t", "1,2", "--triad"])
        self.assertEqual([r["config"]["threads"] for r in doc["runs"]], [1, 2])
        for r in doc["runs"]:
            self.check_run(r, 8, ["Triad"])

    def test_dry_run_real_machine(self):
        """--dry-run on this machine: exit 0 quickly, a plan without results."""
        membench_test.skip_unless_llc_known(self)
        start = time.monotonic()
        doc = self.run_json(["--dry-run"])
        self.assertLess(time.monotonic() - start, 5)
        self.assertIs(doc["dry_run"], True)
        self.assertGreaterEqual(len(doc["runs"]), 1)
        for r in doc["runs"]:
            self.assertNotIn("results", r)
            self.assertNotIn("validation", r)
            self.assertGreaterEqual(r["config"]["array_elements"], 1000000)


class QuietTest(membench_test.MembenchTestCase):
    """-q: one line per run."""

    def test_quiet_one_line(self):
        """-q prints one validated line with the Triad rate; it starts with "MB/s", never with a
        kernel name (a STREAM parser reads "Triad:" and a number as a rate row)."""
        out, _ = self.run_ok(SMALL + ["-q"])
        lines = out.splitlines()
        self.assertEqual(len(lines), 1, out)
        self.assertTrue(lines[0].startswith("MB/s Copy="), lines[0])
        self.assertIn("validated=yes", lines[0])
        m = re.search(r" Triad=(\S+) ", lines[0])
        self.assertGreater(float(m.group(1)), 0.0)

    def test_quiet_two_runs(self):
        """-t 1,2 -q prints two lines, one per thread count."""
        out, _ = self.run_ok(SMALL + ["-t", "1,2", "-q"])
        lines = out.splitlines()
        self.assertEqual(len(lines), 2, out)
        self.assertIn("threads=1", lines[0])
        self.assertIn("threads=2", lines[1])
        for line in lines:
            self.assertIn("validated=yes", line)


class BelowRuleMarkTest(membench_test.ScratchDirCase):
    """A row below the STREAM rule (arrays under 4x the LLC: caches inflate its rates) is marked
    wherever it is a row: -q lines and the sweep's summary table, as CSV and JSON flag it."""

    SIZES = ["--size", "0.25xLLC,4xLLC", "-n", "2"]

    def setUp(self):
        super().setUp()
        xml = self.path("small-llc.xml")  # a 1 MiB LLC: 4xLLC is 4 MiB arrays
        why = membench_test.small_cache_topology(xml)
        if why:
            self.skipTest(why)
        self.env = {"HWLOC_XMLFILE": xml}
        plan = self.run_json(self.SIZES + ["--dry-run"], self.env)
        self.assertEqual([r["config"]["below_stream_rule"] for r in plan["runs"]], [True, False])

    def test_quiet_lines_mark_it(self):
        out, _ = self.run_ok(self.SIZES + ["-q"], self.env)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2, out)
        self.assertTrue(lines[0].endswith(" validated=yes below_stream_rule=yes"), lines[0])
        self.assertTrue(lines[1].endswith(" validated=yes"), lines[1])

    def test_the_summary_table_marks_it(self):
        out, _ = self.run_ok(self.SIZES, self.env)
        rows = out[out.index("Summary: best rate per run"):].splitlines()[2:4]
        self.assertRegex(rows[0], r"^  1 .*  yes  below the STREAM rule: caches inflate it$")
        self.assertRegex(rows[1], r"^  2 .*  yes$")


class OutputFileTest(membench_test.MembenchTestCase):
    """-o FILE writes atomically and replaces an existing file."""

    def test_output_file(self):
        """JSON goes to FILE, stdout stays empty, no temporary files remain."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.json")
            with open(path, "w") as f:
                f.write("old contents, not JSON\n")
            args = SMALL + ["--triad", "-o", path, "--format", "json"]
            rc, out, err = run(args)
            self.assertEqual(rc, 0, describe(args, rc, out, err))
            self.assertEqual(out, "")
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(doc["schema"], 1)
            self.assertEqual([x["kernel"] for x in doc["runs"][0]["results"]], ["Triad"])
            self.assertEqual(os.listdir(d), ["out.json"])


class ValidationFailureTest(membench_test.MembenchTestCase):
    """MEMBENCH_TEST_CORRUPT=1 (membench-hooked) flips a bit in one element: the run fails."""

    def check_failure(self, args):
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_CORRUPT": "1"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 1, msg)
        self.assertTrue(any(line.startswith("membench: ") and "failed validation" in line
                            for line in err.splitlines()), msg)
        self.assertIn("Failed Validation", out, msg)
        self.assertNotIn("Solution Validates", out, msg)

    def test_corrupt_double(self):
        """Default (double) arrays: a corrupted element fails validation."""
        self.check_failure(SMALL)

    def test_corrupt_float(self):
        """Float arrays: a corrupted element fails validation."""
        self.check_failure(SMALL + ["--type", "float"])

    def test_corrupt_json(self):
        """The JSON report says validation did not pass (float, see test_corrupt_double)."""
        args = SMALL + ["--triad", "--type", "float", "--format", "json"]
        rc, out, err = run(args, env_extra={"MEMBENCH_TEST_CORRUPT": "1"})
        self.assertEqual(rc, 1, describe(args, rc, out, err))
        doc = json.loads(out)
        self.assertIs(doc["runs"][0]["validation"]["passed"], False)


if __name__ == "__main__":
    membench_test.main()
