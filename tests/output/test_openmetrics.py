# ctest: LABELS timing
"""--format openmetrics and --metrics-file: the text node_exporter's textfile collector reads,
checked by real parsers (promtool check metrics, prometheus_client's text parser and its
OpenMetrics parser, and node_exporter itself when installed) against the JSON report of the
same run; --metrics-file follows the -o rules (checked before measuring, replaced atomically,
the old file kept when nothing finished); CSV's hostname, start_time, membench_version and
schema columns."""

import calendar
import csv
import glob
import io
import json
import math
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import SMALL, describe, run  # noqa: E402

THREADS = membench_test.THREADS
RUN = SMALL + ["-t", str(THREADS)]
#: Long enough that the run is still measuring when the signal comes.
LONG = ["--triad", "-t", "1", "--size", "20000000", "-n", "100000"]


def _import_parsers():
    """prometheus_client's two parsers, or (None, None). CI's python3 is pyenv's, which does not
    see Debian's python3-prometheus-client in /usr/lib/python3/dist-packages: add that path."""
    for attempt in range(2):
        try:
            from prometheus_client.parser import text_string_to_metric_families as text
            from prometheus_client.openmetrics.parser import (
                text_string_to_metric_families as openmetrics)
            return text, openmetrics
        except ImportError:
            if attempt == 0:
                sys.path.append("/usr/lib/python3/dist-packages")
    return None, None


PARSE_TEXT, PARSE_OPENMETRICS = _import_parsers()
PROMTOOL = shutil.which("promtool")
NODE_EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
NO_CLIENT = ("prometheus_client not importable: apt-get install -y python3-prometheus-client")

#: Every family membench writes for a measured run with a verdict.
FAMILIES = ["membench_build_info", "membench_start_time_seconds", "membench_duration_seconds",
            "membench_stream_bandwidth_bytes_per_second", "membench_stream_min_time_seconds",
            "membench_stream_avg_time_seconds", "membench_stream_max_time_seconds",
            "membench_stream_validated", "membench_acceptance_verdict",
            "membench_acceptance_check_passed", "membench_acceptance_tolerance_ratio",
            "membench_memory_node_bytes"]
#: The node's memory as the firmware states it: only on a machine whose HMAT gives a figure.
FIRMWARE = {"membench_memory_node_firmware_bandwidth_bytes_per_second": ("bandwidth_mbps", 1e6),
            "membench_memory_node_firmware_latency_seconds": ("latency_ns", 1e-9)}


def firmware_families(doc):
    """The firmware families a report's memory has values for."""
    return [name for name, (key, _) in FIRMWARE.items()
            if any(n["firmware"][key] for n in doc["memory"]["nodes"])]


def report_families(doc):
    """The families whose presence depends on the report: the firmware's figures, and the likely
    causes (a run beside other work names other_work whatever its verdict)."""
    return firmware_families(doc) + (["membench_likely_cause"] if doc["diagnosis"] else [])


def unix_seconds(iso):
    return calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ"))


class OpenMetricsCase(membench_test.ScratchDirCase):

    def measure(self, extra=(), status=0, env_extra=None):
        """One run written as JSON (-o) and as metrics (--metrics-file): (doc, metrics text)."""
        report, metrics = self.path("report.json"), self.path("membench.prom")
        args = RUN + list(extra) + ["--format", "json", "-o", report, "--metrics-file", metrics]
        rc, out, err = run(args, env_extra=env_extra)
        self.assertEqual(rc, status, describe(args, rc, out, err))
        self.assertEqual(out, "", "both reports went to their files")
        with open(report) as f:
            doc = json.load(f)
        with open(metrics) as f:
            text = f.read()
        self.assertEqual(sorted(os.listdir(self.dir)), ["membench.prom", "report.json"])
        return doc, text

    def families(self, text, openmetrics=True):
        """{name: family} from prometheus_client's text-format parser; the OpenMetrics parser
        must read the same families and samples (unless openmetrics is false)."""
        if PARSE_TEXT is None:
            self.skipTest(NO_CLIENT)
        fams = {f.name: f for f in PARSE_TEXT(text)}
        for fam in fams.values():
            for s in fam.samples:
                self.assertTrue(math.isfinite(s.value), (fam.name, s))
        if not openmetrics:
            return fams
        om = {f.name: f for f in PARSE_OPENMETRICS(text)}
        self.assertEqual(sorted(om), sorted(fams))
        for name, fam in fams.items():
            self.assertEqual([(s.labels, s.value) for s in om[name].samples],
                             [(s.labels, s.value) for s in fam.samples], name)
        return fams

    def samples(self, fam):
        return [(s.labels, s.value) for s in fam.samples]

    def sample_set(self, fam):
        """The samples as a set, label order aside (node_exporter sorts labels)."""
        return {(tuple(sorted(s.labels.items())), s.value) for s in fam.samples}


class FormatTest(OpenMetricsCase):

    def test_promtool_accepts_it(self):
        if not PROMTOOL:
            self.skipTest("promtool not installed: apt-get install -y prometheus")
        for extra, status in (([], 0), (["--expect", "triad=1"], 0),
                              (["--expect", "triad=1000000000"], 1)):
            with self.subTest(extra=extra):
                _, text = self.measure(extra, status)
                proc = subprocess.run([PROMTOOL, "check", "metrics"], input=text, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      timeout=60)
                self.assertEqual(proc.returncode, 0, proc.stdout + "\n" + text)
                self.assertEqual(proc.stdout, "", "no lint complaint")

    def test_every_family_has_help_and_type_and_the_text_ends_with_eof(self):
        _, text = self.measure(["--expect", "triad=1"])
        lines = text.splitlines()
        self.assertEqual(lines[-1], "# EOF")
        self.assertEqual(text.count("# EOF"), 1)
        for name in FAMILIES:
            with self.subTest(family=name):
                help_at = [i for i, l in enumerate(lines) if l.startswith("# HELP %s " % name)]
                self.assertEqual(len(help_at), 1, text)
                self.assertEqual(lines[help_at[0] + 1], "# TYPE %s gauge" % name)
                self.assertTrue(lines[help_at[0] + 2].startswith(name + "{"), text)
        for line in lines:
            if not line.startswith("#"):
                self.assertTrue(math.isfinite(float(line.rsplit(" ", 1)[1])), line)

    def test_values_and_labels_match_the_json_of_the_same_run(self):
        doc, text = self.measure(["--expect", "triad=1"])
        fams = self.families(text)
        self.assertEqual(sorted(fams), sorted(FAMILIES + report_families(doc)))
        causes = [({"hostname": doc["system"]["hostname"], "cause": c["cause"],
                    "rank": str(i + 1)}, 1.0) for i, c in enumerate(doc["diagnosis"])]
        got = self.samples(fams["membench_likely_cause"]) if causes else []
        self.assertEqual(sorted(got, key=lambda s: s[0]["rank"]), causes)
        host = doc["system"]["hostname"]
        for n in doc["memory"]["nodes"]:
            tier = n["tier"]
            labels = {"hostname": host, "node": str(n["os_index"]), "kind": n["kind"],
                      "tier": tier}
            self.assertIn((labels, float(n["bytes"])),
                          self.samples(fams["membench_memory_node_bytes"]))
            for name, (key, scale) in FIRMWARE.items():
                if n["firmware"][key]:
                    values = [v for lab, v in self.samples(fams[name]) if lab == labels]
                    self.assertEqual(len(values), 1, (name, labels))
                    self.assertAlmostEqual(values[0] / scale, n["firmware"][key], places=6)
        for fam in fams.values():
            for labels, _ in self.samples(fam):
                self.assertEqual(labels["hostname"], host, fam.name)
            self.assertEqual(fam.type, "gauge")
        self.assertEqual(self.samples(fams["membench_build_info"]),
                         [({"hostname": host, "version": doc["membench_version"]}, 1.0)])
        self.assertEqual(fams["membench_start_time_seconds"].samples[0].value,
                         unix_seconds(doc["provenance"]["start_time"]))
        run0 = doc["runs"][0]
        config = run0["config"]
        want = {"hostname": host, "run": "1", "threads": str(config["threads"]),
                "bind": config["bind"], "pages": config["pages"]}
        got = {}
        for labels, value in self.samples(fams["membench_stream_bandwidth_bytes_per_second"]):
            self.assertEqual({k: v for k, v in labels.items() if k not in ("kernel", "stores")},
                             want)
            got[labels["kernel"]] = (labels["stores"], value)
        self.assertEqual(sorted(got), sorted(r["kernel"] for r in run0["results"]))
        for r in run0["results"]:
            stores, value = got[r["kernel"]]
            self.assertEqual(stores, r["stores"])
            self.assertAlmostEqual(value / 1e6, r["best_rate_mbps"], delta=1e-6 * value / 1e6)
        for key in ("min", "avg", "max"):
            times = {labels["kernel"]: value for labels, value in
                     self.samples(fams["membench_stream_%s_time_seconds" % key])}
            for r in run0["results"]:
                self.assertAlmostEqual(times[r["kernel"]], r["%s_time_s" % key],
                                       delta=1e-8 * r["%s_time_s" % key] + 1e-12)
        self.assertEqual(self.samples(fams["membench_stream_validated"]),
                         [(want, 1.0 if run0["validation"]["passed"] else 0.0)])
        self.assertEqual(self.samples(fams["membench_acceptance_tolerance_ratio"]),
                         [({"hostname": host}, doc["acceptance"]["tolerance_pct"] / 100)])
        checks = {labels["check"]: value for labels, value in
                  self.samples(fams["membench_acceptance_check_passed"])}
        self.assertEqual(checks, {c["name"]: 1.0 if c["passed"] else 0.0
                                  for c in doc["acceptance"]["checks"]})

    def test_the_verdict_gauge_names_the_verdict_given(self):
        for expect, status, verdict in (("triad=1", 0, "pass"), ("triad=1000000000", 1, "fail")):
            with self.subTest(verdict=verdict):
                doc, text = self.measure(["--expect", expect], status)
                self.assertEqual(doc["acceptance"]["passed"], verdict == "pass")
                fam = self.families(text)["membench_acceptance_verdict"]
                self.assertEqual({l["verdict"]: v for l, v in self.samples(fam)},
                                 {"pass": float(verdict == "pass"),
                                  "fail": float(verdict == "fail"), "inconclusive": 0.0})

    def test_an_inconclusive_verdict_is_its_own_state(self):
        """membench's exit 5: the gauge says inconclusive, neither pass nor fail (test hooks:
        Triad reported at 4000 MB/s against 10000 expected, one repetition 4x as long)."""
        doc, text = self.measure(
            ["--triad", "--expect", "triad=10000", "--tolerance", "50", "-n", "4"], 5,
            env_extra={"MEMBENCH_TEST_RATES": "*:triad=4000",
                       "MEMBENCH_TEST_SLOW_REPETITION": "3:4"})
        self.assertEqual(doc["acceptance"]["verdict"], "INCONCLUSIVE")
        fam = self.families(text)["membench_acceptance_verdict"]
        self.assertEqual({l["verdict"]: v for l, v in self.samples(fam)},
                         {"pass": 0.0, "fail": 0.0, "inconclusive": 1.0})

    def test_no_verdict_family_without_a_verdict(self):
        _, text = self.measure()
        self.assertNotIn("membench_acceptance", text)
        self.assertIn("membench_stream_bandwidth_bytes_per_second{", text)

    def test_a_sweep_labels_each_run(self):
        _, text = self.measure(["--triad", "--pages", "default,4k"])
        fam = self.families(text)["membench_stream_bandwidth_bytes_per_second"]
        self.assertEqual(sorted((l["run"], l["pages"], l["kernel"]) for l, _ in self.samples(fam)),
                         [("1", "default", "Triad"), ("2", "4k", "Triad")])

    def test_format_openmetrics_on_stdout_is_the_same_text(self):
        args = RUN + ["--triad", "--format", "openmetrics"]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertTrue(out.endswith("\n# EOF\n"), out)
        fams = self.families(out)
        rates = self.samples(fams["membench_stream_bandwidth_bytes_per_second"])
        self.assertEqual([l["kernel"] for l, _ in rates], ["Triad"])

    def test_a_dry_run_writes_no_value_it_did_not_measure(self):
        args = RUN + ["--dry-run", "--format", "openmetrics"]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertNotIn("membench_stream", out)
        self.assertNotIn("NaN", out)
        doc = self.run_json(RUN + ["--dry-run"])
        self.assertEqual(sorted(self.families(out)),
                         sorted(["membench_build_info", "membench_duration_seconds",
                                 "membench_memory_node_bytes", "membench_start_time_seconds"]
                                + report_families(doc)))

    def test_node_exporter_reads_the_file(self):
        """The consumer itself: node_exporter's textfile collector exports every sample and
        reports no scrape error for the file."""
        if not NODE_EXPORTER:
            self.skipTest("node_exporter not installed: apt-get install -y "
                          "prometheus-node-exporter")
        doc, text = self.measure(["--expect", "triad=1"])
        textdir = self.path("textfile")
        os.mkdir(textdir)
        shutil.copy(self.path("membench.prom"), os.path.join(textdir, "membench.prom"))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([NODE_EXPORTER, "--collector.disable-defaults",
                                 "--collector.textfile",
                                 "--collector.textfile.directory=" + textdir,
                                 "--web.listen-address=127.0.0.1:%d" % port],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            scraped = None
            deadline = time.monotonic() + 60
            while scraped is None and time.monotonic() < deadline:  # until it listens
                if proc.poll() is not None:
                    self.skipTest("node_exporter did not start: " + proc.stderr.read()[-500:])
                try:
                    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                                timeout=10) as r:
                        scraped = r.read().decode()
                except OSError:
                    time.sleep(0.05)
            self.assertIsNotNone(scraped, "node_exporter never answered")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            proc.stderr.close()
        self.assertIn("\nnode_textfile_scrape_error 0\n", scraped)
        fams, ours = self.families(scraped, openmetrics=False), self.families(text)
        for name in FAMILIES:
            self.assertIn(name, fams)
            self.assertEqual(self.sample_set(fams[name]), self.sample_set(ours[name]), name)


class MetricsFileTest(OpenMetricsCase):

    def assert_refused(self, args, *words):
        """Exit 2 with one membench: line, before anything was measured (the hooked binary
        announces the first touch; it must not be reached), and nothing created."""
        before = sorted(os.listdir(self.dir))
        rc, out, err = run(args, {"MEMBENCH_TEST_ANNOUNCE": "1"})
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, 2, msg)
        self.assertEqual(out, "", msg)
        self.assertNotIn("membench-test: at first touch", err, "refused before measuring")
        lines = [l for l in err.splitlines() if not l.startswith("membench-test: ")]
        self.assertEqual(len(lines), 1, msg)
        self.assertTrue(lines[0].startswith("membench: "), msg)
        for word in words:
            self.assertIn(word, lines[0], msg)
        self.assertEqual(sorted(os.listdir(self.dir)), before, "nothing created")

    def test_a_missing_directory_is_exit_2_before_measuring(self):
        self.assert_refused(RUN + ["--metrics-file", self.path("no/such/dir/m.prom")],
                            "no/such/dir")

    def test_a_directory_is_exit_2(self):
        os.mkdir(self.path("d"))
        self.assert_refused(RUN + ["--metrics-file", self.path("d")], self.path("d"))

    def test_the_same_file_as_the_report_or_a_reference_is_exit_2(self):
        ref = self.path("ref.json")
        same = self.path("same.prom")
        os.symlink("same.prom", self.path("link.prom"))
        for args, word in ((["-o", same, "--metrics-file", self.path("link.prom")], "-o"),
                           (["--metrics-file", "-"], "stdout"),
                           (["--save-reference", ref, "--metrics-file", ref],
                            "--save-reference")):
            with self.subTest(args=args):
                self.assert_refused(RUN + args, word, "--metrics-file", "same file")

    def test_an_empty_name_is_exit_2(self):
        self.assert_refused(RUN + ["--metrics-file", ""], "--metrics-file")

    def test_the_old_file_is_replaced_whole_keeping_its_mode(self):
        path = self.path("membench.prom")
        with open(path, "w") as f:
            f.write("old_metric 1\n")
        os.chmod(path, 0o640)
        args = RUN + ["--triad", "-q", "--metrics-file", path]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertIn("Triad=", out, "the main report is still written to stdout")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640)
        self.assertEqual(os.listdir(self.dir), ["membench.prom"], "no temporary file left")
        with open(path) as f:
            text = f.read()
        self.assertNotIn("old_metric", text)
        self.assertTrue(text.endswith("# EOF\n"))

    def test_an_interrupt_before_anything_finished_keeps_the_old_file(self):
        path, report = self.path("membench.prom"), self.path("report.json")
        with open(path, "w") as f:
            f.write("old_metric 1\n")
        proc, _ = membench_test.start_paused(
            LONG + ["--format", "json", "-o", report, "--metrics-file", path], "first touch")
        membench_test.resume(proc, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("no report written", err)
        with open(path) as f:
            self.assertEqual(f.read(), "old_metric 1\n")
        self.assertEqual(os.listdir(self.dir), ["membench.prom"], "no temporary file left")

    def test_a_full_disk_is_exit_3_naming_the_file(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        args = RUN + ["--triad", "-q", "--metrics-file", "/dev/full"]
        rc, out, err = run(args)
        self.assertEqual(rc, 3, describe(args, rc, out, err))
        self.assertIn("/dev/full", err)
        self.assertTrue(all(l.startswith("membench: ") for l in err.splitlines()), err)


class CsvProvenanceTest(OpenMetricsCase):

    OLD = ("run,threads,bind,pages,page_size_bytes,stores,type,array_elements,array_bytes,"
           "offset,ntimes,kernel,best_rate_mbps,avg_time_s,min_time_s,max_time_s,bytes_counted,"
           "bytes_estimated_traffic,validated,below_stream_rule,isa,tuned,local_fraction,"
           "cpu_node,mem_node")

    def test_hostname_start_time_version_and_schema_columns(self):
        started = int(time.time())
        out, _ = self.run_ok(RUN + ["--format", "csv"])
        ended = int(time.time())
        header = out.splitlines()[0]
        # a run profile column the layout does not name is appended after schema
        self.assertTrue(header.startswith(self.OLD + ",hostname,start_time,membench_version,"
                                          "schema"), "columns appended, none moved: " + header)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(len(rows), 4)
        version = run(["--version"])[1].split()[-1]
        doc = self.run_json(["--dry-run"] + RUN)
        for row in rows:
            self.assertEqual(row["hostname"], doc["system"]["hostname"])
            self.assertEqual(row["membench_version"], version)
            self.assertEqual(row["schema"], "1")
            self.assertLessEqual(started, unix_seconds(row["start_time"]))
            self.assertLessEqual(unix_seconds(row["start_time"]), ended)
            self.assertEqual(len(row), len(header.split(",")))

    def test_a_hostname_with_a_comma_is_quoted(self):
        """In a UTS namespace of its own (the machine keeps its name), a host named no,de"1:
        CSV quotes the field, the metrics escape the quote."""
        if not shutil.which("unshare") or os.geteuid() != 0:
            self.skipTest("needs root and unshare(1) to set a hostname in a UTS namespace")
        machine = socket.gethostname()
        rename = ("import os, socket, sys; socket.sethostname(sys.argv[1]); "
                  "os.execv(sys.argv[2], sys.argv[2:])")
        wrapper = ["unshare", "--uts", sys.executable, "-c", rename, 'no,de"1']
        rc, out, err = run(RUN + ["--triad", "--format", "csv"], wrapper=wrapper)
        if rc != 0 and "unshare" in err:
            self.skipTest("unshare --uts refused here: " + err.strip())
        self.assertEqual(socket.gethostname(), machine, "the machine was renamed")
        self.assertEqual(rc, 0, err)
        self.assertIn(',"no,de""1",', out)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(rows[0]["hostname"], 'no,de"1')
        self.assertEqual(rows[0]["schema"], "1")
        rc, out, err = run(RUN + ["--triad", "--format", "openmetrics"], wrapper=wrapper)
        self.assertEqual(rc, 0, err)
        self.assertIn('membench_build_info{hostname="no,de\\"1",', out)
        if PARSE_TEXT is not None:
            fam = self.families(out)["membench_build_info"]
            self.assertEqual(fam.samples[0].labels["hostname"], 'no,de"1')


class DocumentedTest(unittest.TestCase):
    """docs/design.md names every family the writer has and every CSV column."""

    ROOT = os.path.dirname(membench_test.TESTS_DIR)

    def read(self, *path):
        with open(os.path.join(self.ROOT, *path), encoding="utf-8") as f:
            return f.read()

    def test_every_family_and_column_is_in_design_md(self):
        design = self.read("docs", "design.md")
        # the report's writer and the measurements' metrics writers: the sources that write
        # families through src/measure/report_metrics.h
        writers = [self.read(os.path.relpath(path, self.ROOT)) for path in sorted(glob.glob(
            os.path.join(self.ROOT, "src", "**", "*.c"), recursive=True))]
        writers = [w for w in writers if "metrics_family(" in w]
        families = set(re.findall(r'"(membench_[a-z_]+)"', "".join(writers)))
        self.assertTrue(set(FAMILIES) <= families)
        section = design[design.index("## OpenMetrics"):]
        for name in sorted(families):
            self.assertIn("`%s" % name, section, name)
        rc, out, err = run(["--dry-run", "--format", "csv"] + SMALL)
        self.assertEqual(rc, 0, err)
        header = out.splitlines()[0]  # as membench writes it, appended columns and all
        self.assertIn(",mem_node,hostname,start_time,membench_version,schema", header)
        csv_doc = design[design.index("## CSV"):design.index("## OpenMetrics")]
        self.assertIn("`%s`" % header, csv_doc)
        for column in ("hostname", "start_time", "membench_version", "schema"):
            self.assertIn("`%s`" % column, csv_doc)


if __name__ == "__main__":
    unittest.main()
