"""bench/plot.sh, bench/plot_tlb.sh and bench/pages_ab.sh: plots of small membench JSON reports
made here (a PNG and an SVG whose title names the CPU, host, threads, array size and date, and
whose LLC or TLB-reach marks come from the report), and their one-line usage errors."""

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import membench_test  # noqa: E402
from membench_test import describe, make_env, run  # noqa: E402

BENCH = os.path.join(os.path.dirname(membench_test.TESTS_DIR), "bench")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
HAVE_GNUPLOT = shutil.which("gnuplot") is not None
NO_GNUPLOT = "gnuplot not installed (apt-get install -y gnuplot-nox)"

_reports = {}
_tmp = []


def setUpModule():
    _tmp.append(tempfile.mkdtemp(prefix="membench-plots-"))


def tearDownModule():
    shutil.rmtree(_tmp[0], ignore_errors=True)


def script(name, args, env_extra=None, timeout=60):
    env = make_env(env_extra)
    proc = subprocess.run([os.path.join(BENCH, name)] + list(args), env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def svg_texts(path):
    """Every text drawn in an SVG, one string per <text> element."""
    root = ET.parse(path).getroot()
    return ["".join(t.itertext()) for t in root.iter() if t.tag.endswith("}text")]


class PlotCase(membench_test.MembenchTestCase):

    def setUp(self):
        super().setUp()
        self.tmp = _tmp[0]

    def report(self, name, args):
        """A membench JSON report made once per file (name -> path, parsed)."""
        if name not in _reports:
            path = os.path.join(self.tmp, name + ".json")
            rc, out, err = run(list(args) + ["--format", "json", "-o", path, "-q"],
                               timeout=120)
            self.assertEqual(rc, 0, describe(args, rc, out, err))
            with open(path) as f:
                _reports[name] = (path, json.load(f))
        return _reports[name]

    def assert_png(self, path):
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), PNG_MAGIC, path + " is not a PNG")

    def assert_title(self, texts, doc, threads, size_word):
        """The title's machine line: CPU model, host, threads, array size, date."""
        cpu = " ".join(doc["system"]["cpu_model"].split())
        lines = [t for t in texts if cpu in t]
        self.assertTrue(lines, "no text names the CPU %r: %r" % (cpu, texts[:5]))
        line = lines[0]
        self.assertIn(" on %s;" % doc["system"]["hostname"], line)
        self.assertIn(threads, line)
        self.assertIn(size_word, line)
        self.assertIn(doc["provenance"]["start_time"][:10], line)

    def assert_size_label(self, texts, prefix, nbytes):
        """A mark labelled 'PREFIX: N UNIT' with N UNIT within 5% of nbytes."""
        for t in texts:
            m = re.match(re.escape(prefix) + r": ([\d.]+) (KiB|MiB|GiB)", t)
            if m:
                shown = float(m.group(1)) * UNITS[m.group(2)]
                self.assertLess(abs(shown - nbytes), 0.05 * nbytes, t)
                return
        self.fail("no mark %r in %r" % (prefix, texts))


@unittest.skipUnless(HAVE_GNUPLOT, NO_GNUPLOT)
class StreamPlotTest(PlotCase):
    """plot.sh size|threads|pages on a small report of each kind."""

    def plot(self, mode, report):
        out = os.path.join(self.tmp, mode)
        rc, stdout, err = script("plot.sh", [mode, report, out])
        self.assertEqual(rc, 0, "plot.sh %s: %s%s" % (mode, stdout, err))
        self.assert_png(out + ".png")
        return svg_texts(out + ".svg")

    def test_size_sweep_title_axes_and_llc_marks(self):
        path, doc = self.report("size", ["-s", "1MiB,2MiB", "-n", "2", "-t", "1"])
        texts = self.plot("size", path)
        self.assert_title(texts, doc, "1 thread", "arrays of 1 MiB - 2 MiB")
        self.assertIn("array size, each of the 3 arrays (MiB)", texts)
        self.assertTrue(any(t.startswith("bandwidth") and "(MB/s" in t for t in texts), texts)
        llc = doc["runs"][0]["config"]["llc_bytes_used"]
        self.assert_size_label(texts, "LLC used by the threads", llc)
        self.assert_size_label(texts, "4xLLC", 4 * llc)

    def test_threads_and_pages_plots_have_titles(self):
        path, doc = self.report("threads", ["-s", "1MiB", "-n", "2", "-t", "1,2", "--triad"])
        texts = self.plot("threads", path)
        self.assert_title(texts, doc, "1, 2 threads", "arrays of 1 MiB")
        self.assertIn("threads", texts)
        path, doc = self.report("pages", ["-s", "2MiB", "-n", "2", "-t", "1",
                                          "--pages", "4k,default"])
        texts = self.plot("pages", path)
        self.assert_title(texts, doc, "1 thread", "arrays of 2 MiB")
        self.assertIn("pages 4k", texts)


@unittest.skipUnless(HAVE_GNUPLOT, NO_GNUPLOT)
class TlbPlotTest(PlotCase):
    """plot_tlb.sh on a short --tlb sweep: title and the TLB-reach marks of its levels."""

    def tlb(self):
        return self.report("tlb", ["--tlb", "--tlb-max-pages", "256", "--repeat", "2"])

    def plot(self, report, ext):
        out = os.path.join(self.tmp, "tlb-" + os.path.basename(report) + "." + ext)
        rc, stdout, err = script("plot_tlb.sh", [report, out])
        self.assertEqual(rc, 0, "plot_tlb.sh: %s%s" % (stdout, err))
        return out

    def test_png_and_svg_with_title_and_level_marks(self):
        path, doc = self.tlb()
        self.assert_png(self.plot(path, "png"))
        texts = svg_texts(self.plot(path, "svg"))
        self.assert_title(texts, doc, "thread", "up to 256 pages (1 MiB)")
        self.assertIn("latency per access, min of the repeats (ns)", texts)
        for level in doc["tlb"]["levels"]:
            if level["entries"]:
                self.assertIn("4k %s: %d pages" % (level["name"], level["entries"]),
                              " ".join(texts))

    def test_a_level_in_the_report_is_marked_at_its_reach(self):
        path, doc = self.tlb()
        doc = copy.deepcopy(doc)
        doc["tlb"]["levels"] = [{"name": "L1 DTLB", "entries": 64, "reach_bytes": 262144}]
        forged = os.path.join(self.tmp, "tlb-level.json")
        with open(forged, "w") as f:
            json.dump(doc, f)
        texts = svg_texts(self.plot(forged, "svg"))
        self.assertIn("4k L1 DTLB: 64 pages = 256 KiB reach", texts)


class UsageTest(PlotCase):
    """Bad usage: one line 'SCRIPT: why; usage: ...' on stderr, exit 2; gnuplot missing: 3."""

    def assert_usage(self, name, args, code, why, env_extra=None):
        rc, out, err = script(name, args, env_extra)
        self.assertEqual(rc, code, "%s %r: rc=%d %s" % (name, args, rc, err))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertRegex(err, r"^%s: .*%s.*; usage: " % (re.escape(name), why))
        self.assertEqual(out, "")

    def not_a_report(self):
        path = os.path.join(self.tmp, "notes.txt")
        with open(path, "w") as f:
            f.write("not a report\n")
        other = os.path.join(self.tmp, "other.json")
        with open(other, "w") as f:
            json.dump({"name": "x"}, f)
        return path, other

    def test_plot_sh(self):
        out = os.path.join(self.tmp, "x")
        self.assert_usage("plot.sh", [], 2, "give a mode")
        self.assert_usage("plot.sh", ["bars", "r.json", out], 2, "size, threads or pages")
        self.assert_usage("plot.sh", ["size"], 2, "give a membench JSON report")
        self.assert_usage("plot.sh", ["size", "/nonexistent.json", out], 2, "cannot read")
        for path in self.not_a_report():
            self.assert_usage("plot.sh", ["size", path, out], 2, "not a membench report")
        path, _ = self.report("size", ["-s", "1MiB,2MiB", "-n", "2", "-t", "1"])
        self.assert_usage("plot.sh", ["size", path, out, "1000000"], 2, "too many arguments")
        self.assert_usage("plot.sh", ["size", path, out], 3, "gnuplot-nox",
                          {"GNUPLOT": "/nonexistent/gnuplot"})
        self.assert_usage("plot_tlb.sh", [path], 2, "STREAM report, not --tlb")

    def test_plot_tlb_sh(self):
        self.assert_usage("plot_tlb.sh", [], 2, "give the JSON report")
        self.assert_usage("plot_tlb.sh", ["/nonexistent.json"], 2, "cannot read")
        for path in self.not_a_report():
            self.assert_usage("plot_tlb.sh", [path], 2, "not a membench report")
            self.assert_usage("plot_tlb.sh", [path, "out.pdf"], 2, "end in .png or .svg")

    def test_pages_ab_sh(self):
        self.assert_usage("pages_ab.sh", ["many"], 2, "ROUNDS must be a whole number")
        self.assert_usage("pages_ab.sh", ["1", "1MiB", "1", "x"], 2, "too many arguments")
        self.assert_usage("pages_ab.sh", ["1"], 3, "no membench at",
                          {"MEMBENCH": "/nonexistent/membench"})


if __name__ == "__main__":
    unittest.main()
