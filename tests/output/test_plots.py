# ctest: LABELS hugetlb
"""contrib/plot/membench-plot KIND REPORT.json [-o OUT]: each kind drawn from a membench JSON
report, no text over another text or over the data (read back from the SVG gnuplot wrote),
claims that follow the report's fields (TLB reach, STREAM rule, store kind, MB/s), headroom
above the tallest bar, one-line usage errors (exit 2) and gnuplot or python3 missing (exit 3);
hostile reports (non-finite, out-of-range or wrong-typed numbers, deep nesting) are exit 2 with
one line naming the field; the repetitions' spread and the report's warnings are drawn.
Also bench/pages_ab.sh's usage errors."""

import copy
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import describe, make_env, run  # noqa: E402

ROOT = os.path.dirname(membench_test.TESTS_DIR)
PLOT = os.path.join(ROOT, "contrib", "plot", "membench-plot")
BENCH = os.path.join(ROOT, "bench")
LATENCY_REPORT = os.path.join(BENCH, "latency-build-vm.json")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HAVE_GNUPLOT = shutil.which("gnuplot") is not None
NO_GNUPLOT = "gnuplot not installed (apt-get install -y gnuplot-nox)"
SVG_NS = "{http://www.w3.org/2000/svg}"

_reports = {}
_tmp = []


def setUpModule():
    _tmp.append(tempfile.mkdtemp(prefix="membench-plots-"))


def tearDownModule():
    shutil.rmtree(_tmp[0], ignore_errors=True)


def plot(args, env_extra=None, cwd=None):
    proc = subprocess.run([PLOT] + list(args), env=make_env(env_extra), cwd=cwd,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def plot_module():
    """membench-plot loaded as a module, to read the figure it builds before gnuplot draws."""
    loader = importlib.machinery.SourceFileLoader("membench_plot", PLOT)
    spec = importlib.util.spec_from_loader("membench_plot", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def sample(kind):
    """bench/plot-KIND.json, one real run of each kind: (path, parsed)."""
    path = os.path.join(BENCH, "plot-%s.json" % kind)
    with open(path) as f:
        return path, json.load(f)


def text_width(text, size):
    """About how wide a sans-serif text is drawn (px): DejaVu Sans's advance widths."""
    em = 0.0
    for ch in text:
        em += (0.32 if ch in "ijlrtfI.,:;'()[]| !/" else 0.64 if ch.isdigit() or ch.isupper()
               else 0.55)
    return em * size


class Svg:
    """What a gnuplot SVG draws: text boxes, the plot frame, and the data (points, line
    segments and bars of the plotted series) inside the frame."""

    def __init__(self, path):
        self.texts, self.points, self.segments, self.bars, frames = [], [], [], [], []
        root = ET.parse(path).getroot()
        box = (root.get("viewBox") or "0 0 %s %s" % (root.get("width"), root.get("height")))
        self.size = tuple(float(v) for v in box.split()[2:])
        self.walk(root, False, frames)
        # the frame is the border: the largest closed rectangle drawn outside the series
        self.frame = max(frames, key=lambda r: (r[2] - r[0]) * (r[3] - r[1]))
        inside = self.inside
        self.points = [p for p in self.points if inside(p)]
        self.segments = [s for s in self.segments if inside(s[0]) and inside(s[1])]
        self.bars = [b for b in self.bars if inside((b[0], b[1])) and inside((b[2], b[3]))]

    def inside(self, p):
        x0, y0, x1, y1 = self.frame
        return x0 - 0.5 <= p[0] <= x1 + 0.5 and y0 - 0.5 <= p[1] <= y1 + 0.5

    def walk(self, node, in_plot, frames):
        tag = node.tag.replace(SVG_NS, "")
        in_plot = in_plot or (tag == "g" and node.get("id", "").startswith("gnuplot_plot_"))
        if tag == "g" and any(c.tag == SVG_NS + "text" for c in node):
            self.add_text(node)
        elif tag == "path" and node.get("d"):
            self.add_path(node.get("d"), in_plot, frames)
        elif tag == "use" and in_plot:
            m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)(?: scale\(([\d.]+)\))?",
                         node.get("transform", ""))
            if m:  # gnuplot's point shapes span +-1.33 units, scaled
                self.points.append((float(m.group(1)), float(m.group(2)),
                                    1.33 * float(m.group(3) or 3)))
        elif tag == "polygon" and in_plot:
            xy = [tuple(map(float, p.split(","))) for p in node.get("points").split()]
            xs, ys = [p[0] for p in xy], [p[1] for p in xy]
            self.bars.append((min(xs), min(ys), max(xs), max(ys)))
        for child in node:
            self.walk(child, in_plot, frames)

    def add_text(self, g):
        m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)( rotate\((?:-90|270)\))?", g.get("transform"))
        x, y, rotated = float(m.group(1)), float(m.group(2)), bool(m.group(3))
        size = float(g.get("font-size", "10"))
        text = "".join("".join(t.itertext()) for t in g if t.tag == SVG_NS + "text").strip()
        if not text:
            return
        w = text_width(text, size)
        start = {"start": 0.0, "middle": -w / 2, "end": -w}[g.get("text-anchor", "start")]
        up, down = 0.72 * size, 0.2 * size  # ascent above the baseline, descent below
        if rotated:  # the text reads upwards: its start is at the bottom
            box = (x - up, y - start - w, x + down, y - start)
        else:
            box = (x + start, y - up, x + start + w, y + down)
        self.texts.append((text, box))

    def add_path(self, d, in_plot, frames):
        for sub in re.findall(r"M[^M]*", d):
            xy = [tuple(map(float, p)) for p in re.findall(r"([-\d.]+),([-\d.]+)", sub)]
            if in_plot:
                self.segments += list(zip(xy, xy[1:]))
            elif "Z" in sub and len(xy) == 5:
                xs, ys = [p[0] for p in xy], [p[1] for p in xy]
                frames.append((min(xs), min(ys), max(xs), max(ys)))

    def collisions(self):
        """Every text that overlaps another text, a data point, a data line or a bar."""
        found = []
        for i, (a, box) in enumerate(self.texts):
            if box[0] < 0 or box[1] < 0 or box[2] > self.size[0] or box[3] > self.size[1]:
                found.append("%r outside the figure" % a)
            for b, other in self.texts[i + 1:]:
                if overlaps(box, other):
                    found.append("%r over %r" % (a, b))
            for p in self.points:
                if overlaps(box, (p[0] - p[2], p[1] - p[2], p[0] + p[2], p[1] + p[2])):
                    found.append("%r over the data point at %.0f,%.0f" % (a, p[0], p[1]))
                    break
            for s in self.segments:
                if crosses(box, s):
                    found.append("%r over the data line %r" % (a, s))
                    break
            for bar in self.bars:
                if overlaps(box, bar):
                    found.append("%r over the bar %r" % (a, bar))
                    break
        return found

    def all_text(self):
        return "\n".join(t for t, _ in self.texts)


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def crosses(box, seg):
    (x0, y0), (x1, y1) = seg
    n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    return any(box[0] <= x0 + (x1 - x0) * i / n <= box[2] and
               box[1] <= y0 + (y1 - y0) * i / n <= box[3] for i in range(n + 1))


class PlotCase(membench_test.MembenchTestCase):

    def setUp(self):
        super().setUp()
        self.tmp = _tmp[0]

    def report(self, name, args):
        """A membench JSON report made once per name: (path, parsed)."""
        if name not in _reports:
            path = os.path.join(self.tmp, name + ".json")
            rc, out, err = run(list(args) + ["--format", "json", "-o", path, "-q"],
                               timeout=120)
            self.assertEqual(rc, 0, describe(args, rc, out, err))
            with open(path) as f:
                _reports[name] = (path, json.load(f))
        return _reports[name]

    def size_report(self):
        return self.report("size", ["-s", "1MiB,2MiB,4MiB", "-n", "2", "-t", "1"])

    def tlb_report(self):
        return self.report("tlb", ["--tlb", "--tlb-max-pages", "256", "--repeat", "1"])

    def latency_report(self):
        with open(LATENCY_REPORT) as f:
            return LATENCY_REPORT, json.load(f)

    def forge(self, name, doc):
        path = os.path.join(self.tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def draw(self, kind, report, ext="svg"):
        out = os.path.join(self.tmp, "%s-%s.%s" % (kind, os.path.basename(report), ext))
        rc, stdout, err = plot([kind, report, "-o", out])
        self.assertEqual(rc, 0, "membench-plot %s %s: %s%s" % (kind, report, stdout, err))
        self.assertEqual(stdout, out + "\n")
        if ext == "png":
            with open(out, "rb") as f:
                self.assertEqual(f.read(8), PNG_MAGIC, out + " is not a PNG")
            return out
        return Svg(out)

    def assert_clear(self, svg, what):
        self.assertEqual(svg.collisions(), [], what)


@unittest.skipUnless(HAVE_GNUPLOT, NO_GNUPLOT)
class KindsTest(PlotCase):
    """Every kind from a report of that kind: a PNG, and an SVG whose texts sit clear."""

    def reports(self):
        threads = self.report("threads", ["-s", "1MiB", "-n", "2", "-t", "1", "--triad",
                                          "--bind", "compact,scatter"])
        pages = self.report("pages", ["-s", "2MiB", "-n", "2", "-t", "1",
                                      "--pages", "4k,default"])
        return {"size": self.size_report(), "threads": threads, "pages": pages,
                "tlb": self.tlb_report(), "latency": self.latency_report()}

    def test_each_kind_draws_a_png_and_an_svg_with_nothing_over_anything(self):
        for kind, (path, doc) in self.reports().items():
            with self.subTest(kind=kind):
                self.draw(kind, path, "png")
                svg = self.draw(kind, path)
                self.assertGreater(len(svg.points) + len(svg.bars), 0, "no data found")
                self.assert_clear(svg, kind)
                cpu = " ".join(doc["system"]["cpu_model"].split())
                self.assertIn("%s on %s;" % (cpu, doc["system"]["hostname"]), svg.all_text())
                self.assertIn(doc["provenance"]["start_time"][:10], svg.all_text())
                self.assertNotIn("GB/s", svg.all_text())
                if kind != "tlb":
                    self.assertIn("MB/s", svg.all_text())

    def test_the_default_output_is_kind_png_beside_the_report(self):
        path, _ = self.size_report()
        folder = tempfile.mkdtemp(dir=self.tmp)
        report = os.path.join(folder, "r.json")
        shutil.copy(path, report)
        rc, out, err = plot(["size", report])
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, os.path.join(folder, "size.png") + "\n")
        self.assertEqual(sorted(os.listdir(folder)), ["r.json", "size.png"])

    def test_the_size_plot_marks_the_llc_and_states_the_rule_and_stores(self):
        membench_test.skip_unless_llc_known(self)  # the STREAM rule is 4x the LLC
        path, doc = self.size_report()
        svg = self.draw("size", path)
        cfg = doc["runs"][0]["config"]
        text = svg.all_text()
        self.assertIn("stores: " + cfg["stores"], text)
        self.assertIn("arrays below the STREAM rule (each < 4x LLC): not a STREAM result",
                      text)
        mib = cfg["llc_bytes_used"] / 1048576.0
        self.assertRegex(text, r"LLC used by the threads: %g MiB" % round(mib, 1))

    def test_a_run_keeping_the_rule_says_so_and_names_a_tuned_run(self):
        path, doc = self.size_report()
        doc = copy.deepcopy(doc)
        for r in doc["runs"]:
            r["config"].update(below_stream_rule=False, stores="nt", tuned=True)
        text = self.draw("size", self.forge("kept", doc)).all_text()
        self.assertIn("arrays keep the STREAM rule", text)
        self.assertNotIn("below the STREAM rule", text)
        self.assertIn("stores: nt", text)
        self.assertIn("a TUNED run under STREAM's rules", text)

    def test_some_runs_below_the_rule_are_counted(self):
        membench_test.skip_unless_llc_known(self)  # the STREAM rule is 4x the LLC
        path, doc = self.size_report()
        doc = copy.deepcopy(doc)
        doc["runs"][-1]["config"]["below_stream_rule"] = False
        text = self.draw("size", self.forge("some-below", doc)).all_text()
        self.assertIn("2 of 3 runs below the STREAM rule", text)

    def test_llc_marks_among_the_data_keep_their_labels_off_it(self):
        path, doc = self.size_report()
        doc = copy.deepcopy(doc)
        for r in doc["runs"]:
            r["config"]["llc_bytes_used"] = 1 << 20  # marks at 1 and 4 MiB, on data points
        svg = self.draw("size", self.forge("llc-on-data", doc))
        self.assert_clear(svg, "LLC marks among the data")
        self.assertIn("LLC used by the threads: 1 MiB", svg.all_text())
        self.assertIn("4xLLC: 4 MiB (the STREAM rule)", svg.all_text())

    def test_control_characters_in_names_are_escaped(self):
        path, doc = self.size_report()
        doc = copy.deepcopy(doc)
        doc["system"]["hostname"] = "evil\nhost\x1b[31m"
        out = os.path.join(self.tmp, "escaped.svg")
        rc, stdout, err = plot(["size", self.forge("evil-host", doc), "-o", out])
        self.assertEqual(rc, 0, err)
        with open(out, encoding="utf-8") as f:
            self.assertNotIn("\x1b", f.read())
        self.assertIn(" on evil\\x0ahost\\x1b[31m;", Svg(out).all_text())

    def test_unpaired_surrogates_and_long_names_draw(self):
        """JSON may escape a lone UTF-16 half (\\ud800), which UTF-8 cannot write, and a name
        may be far longer than a title line: shown escaped and cut, never a traceback."""
        _, doc = sample("size")
        for name, host, shown in (("surrogate", "vm\ud800", "vm\\ud800"),
                                  ("long-host", ", ".join(["node"] * 100000), "node, node")):
            with self.subTest(name):
                doc = copy.deepcopy(doc)
                doc["system"]["hostname"] = host
                svg = self.draw("size", self.forge(name, doc))
                self.assertIn(" on %s" % shown, svg.all_text())
                self.assert_clear(svg, name)

    def test_the_tallest_bar_keeps_headroom(self):
        membench_test.skip_unless_llc_known(self)  # the STREAM rule is 4x the LLC
        path, doc = self.report("pages", ["-s", "2MiB", "-n", "2", "-t", "1",
                                          "--pages", "4k,default"])
        svg = self.draw("pages", path)
        top, bottom = svg.frame[1], svg.frame[3]
        tallest = min(b[1] for b in svg.bars)
        self.assertGreater(tallest - top, 0.10 * (bottom - top),
                           "the tallest bar is within 10% of the frame's top")
        self.assertIn("pages 4k", svg.all_text())
        self.assertIn("arrays below the STREAM rule", svg.all_text())
        self.assertIn("stores: ", svg.all_text())


@unittest.skipUnless(HAVE_GNUPLOT, NO_GNUPLOT)
class TlbLabelsTest(PlotCase):
    """The TLB plot's level labels: where the report's fields allow, and never over each
    other even when two sweeps put a level at the same page count."""

    def forged(self, extends):
        path, doc = self.tlb_report()
        doc = copy.deepcopy(doc)
        tlb = doc["tlb"]
        level = {"name": "L1 DTLB", "entries": 64, "reach_bytes": 262144,
                 "entries_decided": True}
        tlb["levels"] = [level, dict(level, name="L2 TLB", entries=128, reach_bytes=524288)]
        huge_points = [dict(p, ns_per_access=p["ns_per_access"] * 1.5) for p in tlb["points"]]
        tlb["huge"] = {"measured": True, "extends_reach": extends, "sweep": {
            "page_size_bytes": 2097152, "points": huge_points, "control_points": [],
            "levels": [dict(level, reach_bytes=134217728 if extends else None)]}}
        return self.forge("tlb-%s" % extends, doc)

    def labels(self, svg, prefix):
        return [t for t in svg.all_text().splitlines() if prefix in t]

    def test_levels_at_one_page_count_get_labels_clear_of_each_other(self):
        svg = self.draw("tlb", self.forged(True))
        self.assert_clear(svg, "two L1 labels at 64 pages")
        self.assertTrue(self.labels(svg, "4 KiB L1 DTLB: 64 entries = 256 KiB reach"))
        self.assertTrue(self.labels(svg, "2 MiB L1 DTLB: 64 entries = 128 MiB reach"))
        self.assertTrue(self.labels(svg, "4 KiB L2 TLB: 128 entries"))
        self.assertIn("control: the same cache lines", svg.all_text())

    def test_no_2mb_reach_where_the_report_says_huge_pages_do_not_extend_it(self):
        svg = self.draw("tlb", self.forged(False))
        self.assert_clear(svg, "extends_reach false")
        huge = self.labels(svg, "2 MiB L1 DTLB")
        self.assertTrue(huge, svg.all_text())
        for label in huge:
            self.assertNotIn("reach", label)
        self.assertIn("2 MB pages do NOT extend the TLB reach", svg.all_text())
        self.assertTrue(self.labels(svg, "4 KiB L1 DTLB: 64 entries = 256 KiB reach"))

    def test_an_undecided_size_is_drawn_as_its_range(self):
        path, doc = self.tlb_report()
        doc = copy.deepcopy(doc)
        doc["tlb"]["levels"] = [{"name": "L2 TLB", "entries": 100, "entries_decided": False,
                                 "size_range_low": 80, "size_range_high": 160,
                                 "reach_bytes": 409600}]
        svg = self.draw("tlb", self.forge("tlb-undecided", doc))
        self.assertTrue(self.labels(svg, "4 KiB L2 TLB: 80-160 entries (undecided)"))

    def test_the_checker_sees_two_labels_at_one_place(self):
        """The overlap check itself: two texts drawn at one point are found."""
        path = os.path.join(self.tmp, "two.svg")
        with open(path, "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
                    '<path d="M10,10 L10,90 L90,90 '
                    'L90,10 L10,10 Z"/>' + '<g transform="translate(40.00,95.00) rotate(-90)" '
                    'font-size="10" text-anchor="start"><text>4k L1 DTLB: 64</text></g>' * 2 +
                    "</svg>")
        self.assertEqual(Svg(path).collisions(), ["'4k L1 DTLB: 64' over '4k L1 DTLB: 64'"])


@unittest.skipUnless(HAVE_GNUPLOT, NO_GNUPLOT)
class LatencyPlotTest(PlotCase):

    def test_latency_in_mb_per_second_with_the_idle_line(self):
        path, doc = self.latency_report()
        svg = self.draw("latency", path)
        self.assertIn("bandwidth of the load threads (MB/s", svg.all_text())
        self.assertIn("idle: %.1f ns" % doc["latency"]["idle_ns"], svg.all_text())
        self.assert_clear(svg, "latency")


class UsageTest(PlotCase):
    """Bad usage: one line 'membench-plot: why; usage: ...' on stderr, nothing on stdout,
    exit 2, and no output file; gnuplot or python3 missing: exit 3."""

    def assert_usage(self, args, code, why, env_extra=None):
        rc, out, err = plot(args, env_extra)
        self.assertEqual(rc, code, "%r: rc=%d %s" % (args, rc, err))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertRegex(err, r"^membench-plot: .*%s.*; usage: membench-plot " % why)
        self.assertEqual(out, "")

    def test_bad_usage(self):
        text = os.path.join(self.tmp, "notes.txt")
        with open(text, "w") as f:
            f.write("not a report\n")
        csv = os.path.join(self.tmp, "r.csv")
        with open(csv, "w") as f:
            f.write("run,threads,bind\n")
        other = self.forge("other", {"name": "x"})
        out = os.path.join(self.tmp, "x.png")
        self.assert_usage([], 2, "give a kind")
        self.assert_usage(["bars", other], 2, "size, threads, pages, tlb, latency")
        self.assert_usage(["size"], 2, "give a membench JSON report")
        self.assert_usage(["size", "/nonexistent.json"], 2, "cannot read")
        self.assert_usage(["size", text, "-o", out], 2, "not a membench report")
        self.assert_usage(["size", other, "-o", out], 2, "not a membench report")
        self.assert_usage(["size", csv, "-o", out], 2, "membench CSV")
        self.assert_usage(["size", other, "out.png"], 2, "too many arguments")
        self.assert_usage(["size", other, "-o", "out.pdf"], 2, r"end in \.png or \.svg")
        self.assert_usage(["size", other, "-o", "/nonexistent/x.png"], 2, "no folder")
        self.assert_usage(["size", other, "-o"], 2, "-o needs a file name")
        self.assert_usage(["size", other, "--colour"], 2, "unknown option")
        self.assert_usage(["size", other, "-o", self.tmp + "/"], 2, r"end in \.png")
        folder = os.path.join(self.tmp, "folder.png")
        os.makedirs(folder, exist_ok=True)
        self.assert_usage(["size", other, "-o", folder], 2, "is a folder")
        broken = dict(json.load(open(self.size_report()[0])), runs=[{"results": [
            {"kernel": "Copy", "best_rate_mbps": 1.0}], "config": 5}])
        self.assert_usage(["size", self.forge("broken", broken), "-o", out], 2,
                          r"cannot be drawn as size: runs\[0\]\.config is 5; it must be a JSON "
                          "object")
        self.assertFalse(os.path.exists(out))

    def test_a_report_of_another_kind_names_the_right_one(self):
        path, _ = self.size_report()
        self.assert_usage(["tlb", path], 2, "it is a STREAM report: membench-plot size")
        self.assert_usage(["latency", path], 2, "no latency measurement")
        path, _ = self.tlb_report()
        self.assert_usage(["size", path], 2, "it is a --tlb report: membench-plot tlb")

    def test_a_latency_report_without_a_curve_says_why(self):
        _, doc = self.latency_report()
        doc = copy.deepcopy(doc)
        doc["latency"].update(loaded=[], loaded_measured=False, loaded_why="one core only")
        self.assert_usage(["latency", self.forge("no-curve", doc)], 2, r"\(one core only\)")

    def test_a_failed_plot_leaves_an_existing_output_as_it_was(self):
        out = os.path.join(self.tmp, "kept.png")
        with open(out, "w") as f:
            f.write("previous")
        path, _ = self.tlb_report()
        self.assert_usage(["size", path, "-o", out], 2, "--tlb report")
        with open(out) as f:
            self.assertEqual(f.read(), "previous")

    def test_gnuplot_or_python3_missing_is_exit_3(self):
        path, _ = self.size_report()
        self.assert_usage(["size", path, "-o", os.path.join(self.tmp, "g.png")], 3,
                          "gnuplot-nox", {"GNUPLOT": "/nonexistent/gnuplot"})
        self.assert_usage(["size", path], 3, r"python3 not found; install it",
                          {"PATH": "/nonexistent"})

    def test_help(self):
        rc, out, err = plot(["--help"])
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("Usage: membench-plot size|threads|pages|tlb|latency "
                                       "REPORT.json [-o OUT.png|OUT.svg]"), out)
        for kind in ("size", "threads", "pages", "tlb", "latency"):
            self.assertRegex(out, r"\n  %s " % kind)

    def test_pages_ab_sh(self):
        def script(args, env_extra=None):
            proc = subprocess.run([os.path.join(BENCH, "pages_ab.sh")] + args,
                                  env=make_env(env_extra), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            return proc.returncode, proc.stdout.decode(), proc.stderr.decode()

        for args, code, why, env in ((["many"], 2, "ROUNDS must be a whole number", None),
                                     (["1", "1MiB", "1", "x"], 2, "too many arguments", None),
                                     (["1"], 3, "no membench at",
                                      {"MEMBENCH": "/nonexistent/membench"})):
            rc, out, err = script(args, env)
            self.assertEqual(rc, code, err)
            self.assertRegex(err, r"^pages_ab\.sh: .*%s.*; usage: " % why)
            self.assertEqual(len(err.splitlines()), 1, err)


DELETE = object()


class Raw(str):
    """JSON text put in place of a value as it is (Infinity, NaN, 1e400: json.dumps cannot)."""


R0 = ("runs", 0)
RES = R0 + ("results", 0)
CFG = R0 + ("config",)
LAT = ("latency",)
TLB = ("tlb",)
# (kind, field path in bench/plot-KIND.json, value put there, what the one-line error says)
HOSTILE = (
    ("size", RES + ("best_rate_mbps",), Raw("Infinity"), "the number Infinity, which JSON "
     "does not have"),
    ("size", RES + ("best_rate_mbps",), Raw("-Infinity"), "the number -Infinity"),
    ("size", RES + ("min_time_s",), Raw("NaN"), "the number NaN"),
    ("size", RES + ("best_rate_mbps",), Raw("1e400"), "the number 1e400, larger than any"),
    ("size", RES + ("bytes_counted",), Raw("1" + "0" * 30), "larger than any membench writes"),
    ("size", RES + ("best_rate_mbps",), 0, r"runs\[0\]\.results\[0\]\.best_rate_mbps is 0; "
     "it must be a number above 0"),
    ("size", RES + ("best_rate_mbps",), -27081.7, "best_rate_mbps is -27081.7"),
    ("size", RES + ("best_rate_mbps",), "27081", r"best_rate_mbps is the text \"27081\""),
    ("size", RES + ("best_rate_mbps",), True, "best_rate_mbps is true"),
    ("size", RES + ("best_rate_mbps",), [1], "best_rate_mbps is a list"),
    ("size", RES + ("min_time_s",), 0, "min_time_s is 0"),
    ("size", RES + ("max_time_s",), 1e-9, "max_time_s .* out of order"),
    ("size", RES + ("avg_time_s",), -1, "avg_time_s is -1"),
    ("size", RES + ("repetition_spread_pct",), -3, "repetition_spread_pct is -3"),
    ("size", RES + ("repetition_spread_pct",), 150, "repetition_spread_pct is 150"),
    ("size", RES + ("kernel",), DELETE, r"results\[0\]\.kernel is missing"),
    ("size", RES + ("kernel",), {"a": 1}, "kernel is an object; it must be text"),
    ("size", RES, 5, r"runs\[0\]\.results\[0\] is 5; it must be a JSON object"),
    ("size", R0 + ("results",), {"Copy": 1}, "results is an object; it must be a list"),
    ("size", ("runs",), "all", "runs is the text"),
    ("size", CFG, 5, "config is 5; it must be a JSON object"),
    ("size", CFG + ("array_bytes",), 0, "array_bytes is 0; it must be a whole number above 0"),
    ("size", CFG + ("array_bytes",), -16777216, "array_bytes is -16777216"),
    ("size", CFG + ("array_bytes",), 1.5, "array_bytes is 1.5"),
    ("size", CFG + ("array_bytes",), "16MiB", "array_bytes is the text"),
    ("size", CFG + ("array_bytes",), DELETE, "array_bytes is missing; the size plot needs it"),
    ("size", CFG + ("llc_bytes_used",), 0, "llc_bytes_used is 0"),
    ("size", CFG + ("llc_count_used",), -1, "llc_count_used is -1"),
    ("size", CFG + ("below_stream_rule",), "yes", "below_stream_rule is the text"),
    ("size", CFG + ("bind",), ["compact"], "bind is a list; it must be text"),
    ("size", R0 + ("warnings",), "slow", "warnings is the text .*list of strings"),
    ("size", R0 + ("warnings",), [1], r"warnings is a list; it must be a list of strings"),
    ("size", ("provenance",), 5, "provenance is 5; it must be a JSON object"),
    ("size", ("system", "hostname"), {"h": 1}, "hostname is an object"),
    ("threads", CFG + ("threads",), 0, "threads is 0"),
    ("threads", CFG + ("threads",), 1.5, "threads is 1.5; it must be a whole number"),
    ("threads", CFG + ("threads",), "2", "threads is the text"),
    ("threads", CFG + ("threads",), DELETE, "threads is missing; the threads plot needs it"),
    ("pages", RES + ("best_rate_mbps",), -1, "best_rate_mbps is -1"),
    ("pages", CFG + ("pages",), {}, "pages is an object"),
    ("tlb", TLB + ("points", 3, "pages"), 0, r"tlb\.points\[3\]\.pages is 0"),
    ("tlb", TLB + ("points", 3, "pages"), None, r"tlb\.points\[3\]\.pages is missing"),
    ("tlb", TLB + ("points", 3, "ns_per_access"), -1.5, "ns_per_access is -1.5"),
    ("tlb", TLB + ("points", 3, "ns_per_access"), Raw("Infinity"), "the number Infinity"),
    ("tlb", TLB + ("points", 3), [], r"tlb\.points\[3\] is a list"),
    ("tlb", TLB + ("control_points", 0, "lines"), -64, "lines is -64"),
    ("tlb", TLB + ("page_size_bytes",), "4k", "page_size_bytes is the text"),
    ("tlb", TLB + ("page_size_bytes",), 0, "page_size_bytes is 0"),
    ("tlb", TLB + ("levels", 0, "entries"), 0.5, r"levels\[0\]\.entries is 0\.5"),
    ("tlb", TLB + ("levels", 0, "entries"), -96, "entries is -96"),
    ("tlb", TLB + ("levels",), [{"entries": n} for n in range(1, 40)], "more than 24 sizes"),
    ("tlb", TLB + ("huge", "sweep", "page_size_bytes"), 0, r"huge\.sweep\.page_size_bytes"),
    ("tlb", TLB + ("huge", "extends_reach"), "no", "extends_reach is the text"),
    ("tlb", TLB + ("config", "threads"), -2, r"tlb\.config\.threads is -2"),
    ("tlb", TLB + ("warnings",), 7, r"tlb\.warnings is 7"),
    ("latency", LAT + ("loaded", 0, "bandwidth_mbps"), -460, "bandwidth_mbps is -460"),
    ("latency", LAT + ("loaded", 0, "ns"), 0, r"loaded\[0\]\.ns is 0"),
    ("latency", LAT + ("loaded", 0, "ns"), Raw("NaN"), "the number NaN"),
    ("latency", LAT + ("loaded", 0), "fast", r"loaded\[0\] is the text"),
    ("latency", LAT + ("idle_ns",), -199.4, "idle_ns is -199.4"),
    ("latency", LAT + ("idle_ns_min",), 250.0, "idle_ns_min .* out of order"),
    ("latency", LAT + ("buffer_bytes",), 0, "buffer_bytes is 0"),
    ("latency", LAT + ("page_size_bytes",), -4096, "page_size_bytes is -4096"),
    ("latency", LAT + ("load_threads",), -1, "load_threads is -1"),
    ("latency", LAT + ("warnings",), {"w": 1}, r"latency\.warnings is an object"),
)


def hostile_text(doc, path, value):
    doc = copy.deepcopy(doc)
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
        return json.dumps(doc)
    if not isinstance(value, Raw):
        node[path[-1]] = value
        return json.dumps(doc)
    node[path[-1]] = "@@hostile@@"
    return json.dumps(doc).replace('"@@hostile@@"', value)


class HostileInputTest(PlotCase):
    """Every report field a figure reads, given what membench never writes: exit 2, one line
    naming the field, no traceback, no output; the table covers each kind's numbers
    (non-finite, too large, zero or negative where an axis or a division uses them, wrong
    types, missing keys) and JSON nested too deeply to read."""

    def assert_refused(self, kind, text, why, what):
        report = os.path.join(self.tmp, "hostile.json")
        with open(report, "w") as f:
            f.write(text)
        out = os.path.join(self.tmp, "hostile.svg")
        rc, stdout, err = plot([kind, report, "-o", out])
        self.assertNotIn("Traceback", err, what)
        self.assertEqual(rc, 2, "%s: rc=%d %s" % (what, rc, err))
        self.assertEqual(len(err.splitlines()), 1, "%s: %s" % (what, err))
        self.assertRegex(err, r"^membench-plot: '%s' .*%s.*; usage: membench-plot " % (
            re.escape(report), why), what)
        self.assertEqual(stdout, "", what)
        self.assertFalse(os.path.exists(out), what)

    def test_hostile_fields(self):
        for kind, path, value, why in HOSTILE:
            what = "%s %s = %r" % (kind, ".".join(str(k) for k in path),
                                   "(deleted)" if value is DELETE else value)
            with self.subTest(what):
                self.assert_refused(kind, hostile_text(sample(kind)[1], path, value), why,
                                    what)

    def test_deep_nesting(self):
        _, doc = sample("size")
        text = json.dumps(doc)[:-1] + ', "deep": ' + "[" * 200000 + "]" * 200000 + "}"
        self.assert_refused("size", text, "nests deeper than Python reads", "deep nesting")


class SpreadTest(PlotCase):
    """The repetitions' spread from the report drawn as a range bar under each point (size,
    threads) or bar (pages): from the slowest repetition's rate to the best, a point at the
    mean; read from the figure membench-plot builds for gnuplot."""

    def ranges(self, kind):
        path, doc = sample(kind)
        fig = plot_module().stream_figure(kind, doc, path)
        found = [p for name, points, style, k in fig.series if k == "range"
                 for p in points]
        return doc, fig, found

    def test_each_result_has_its_range(self):
        for kind in ("size", "threads", "pages"):
            with self.subTest(kind=kind):
                doc, fig, found = self.ranges(kind)
                results = [res for r in doc["runs"] for res in r["results"]]
                self.assertEqual(len(found), len(results))
                for res in results:
                    slowest = res["bytes_counted"] / res["max_time_s"] / 1e6
                    mean = res["bytes_counted"] / res["avg_time_s"] / 1e6
                    self.assertTrue(any(abs(lo / slowest - 1) < 1e-6 and abs(
                        hi - res["best_rate_mbps"]) < 1e-6 and abs(y / mean - 1) < 1e-6
                        for _, y, lo, hi in found), "%s %s: no range %.1f-%.1f" % (
                        kind, res["kernel"], slowest, res["best_rate_mbps"]))
                script = fig.script(self.tmp)
                self.assertIn("using 1:2:3:4 with yerrorbars", script)
                self.assertIn("bars: each run's timed repetitions, slowest to fastest",
                              "\n".join(line for line, _ in fig.footnotes))

    def test_the_threads_plot_separates_bindings_at_one_count(self):
        """Compact and scatter at one thread count: side by side, each with its own bar."""
        doc, fig, found = self.ranges("threads")
        xs = sorted(x for x, _, _, _ in found)
        self.assertEqual(len(set(xs)), len(xs), xs)
        self.assertEqual(sorted(round(x) for x in xs), [1, 1, 2, 2])

    def test_a_report_without_spread_says_so(self):
        path, doc = sample("threads")
        doc = copy.deepcopy(doc)
        for r in doc["runs"]:
            for res in r["results"]:
                res["repetition_spread_pct"] = None
        fig = plot_module().stream_figure("threads", doc, path)
        self.assertFalse([s for s in fig.series if s[3] == "range"])
        self.assertIn("no spread drawn: the report has none", fig.notes[0][0])

    @unittest.skipUnless(HAVE_GNUPLOT, NO_GNUPLOT)
    def test_the_bars_are_drawn_clear_of_the_labels(self):
        for kind in ("size", "threads", "pages"):
            with self.subTest(kind=kind):
                svg = self.draw(kind, sample(kind)[0])
                self.assert_clear(svg, kind)
                self.assertIn("bars: each run's timed repetitions", svg.all_text())
                vertical = [s for s in svg.segments if abs(s[0][0] - s[1][0]) < 0.01
                            and abs(s[0][1] - s[1][1]) > 1]
                self.assertGreaterEqual(len(vertical), 4, kind)


@unittest.skipUnless(HAVE_GNUPLOT, NO_GNUPLOT)
class WarningsTest(PlotCase):
    """What the report warns about the figure's numbers is on the figure, under the plot."""

    def text(self, kind, doc, name):
        svg = self.draw(kind, self.forge(name, doc))
        self.assert_clear(svg, name)
        return " ".join(svg.all_text().split())

    def test_latency_buffer_below_4x_llc(self):
        _, doc = self.latency_report()
        doc = copy.deepcopy(doc)
        lat = doc["latency"]
        lat["buffer_bytes"] = lat["llc_bytes"]
        warning = ("the buffer is below 4x the LLC of PU 0: part of the chase hits the cache, "
                   "so this is not memory latency")
        lat["warnings"].append(warning)
        text = self.text("latency", doc, "lat-small")
        self.assertIn("WARNING: " + warning, text)
        self.assertIn("WARNING: the chase runs on thp pages", text)
        self.assertIn("idle: the repetitions' range, %.1f to %.1f ns" % (
            lat["idle_ns_min"], lat["idle_ns_max"]), text)

    def test_a_run_warning_names_its_run(self):
        _, doc = sample("threads")
        doc = copy.deepcopy(doc)
        doc["runs"][1]["warnings"] = ["threads moved between CPUs during the run (unbound)"]
        text = self.text("threads", doc, "run-warning")
        self.assertIn("WARNING: run 2: threads moved between CPUs during the run", text)

    def test_tlb_warnings_and_an_early_stop(self):
        _, doc = sample("tlb")
        doc = copy.deepcopy(doc)
        doc["tlb"]["warnings"] = ["the sweep was disturbed"]
        doc["kept"] = "the TLB probe stopped in the 4 KB sweep at 1024 pages"
        text = self.text("tlb", doc, "tlb-warning")
        self.assertIn("WARNING: stopped early: the TLB probe stopped", text)
        self.assertIn("WARNING: the sweep was disturbed", text)

    def test_many_warnings_leave_room_for_the_plot(self):
        _, doc = sample("pages")
        doc = copy.deepcopy(doc)
        doc["runs"][0]["warnings"] = ["warning number %d about this run" % i
                                      for i in range(40)]
        text = self.text("pages", doc, "many-warnings")
        self.assertIn("more warning lines: see the report's warnings", text)


if __name__ == "__main__":
    unittest.main()
