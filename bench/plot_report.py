#!/usr/bin/env python3
"""Reads a membench JSON report for bench/plot.sh and bench/plot_tlb.sh: writes WORKDIR/plot.gp
(title, axis labels, LLC or TLB-reach marks, the plot command) and its data files.

    plot_report.py PROG USAGE MODE REPORT WORKDIR      MODE: size, threads, pages or tlb

A report it cannot plot: one line "PROG: why; usage: USAGE" on stderr and exit 2."""

import json
import os
import sys

MIB = 1048576.0


def fail(why):
    sys.stderr.write("%s: %s; usage: %s\n" % (PROG, why, USAGE))
    sys.exit(2)


def gp(text):
    """A gnuplot single-quoted string ('' is a quote inside one)."""
    return "'" + str(text).replace("'", "''") + "'"


def size_words(nbytes):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return "%g %s" % (round(nbytes / scale, 1), unit)
    return "%d B" % nbytes


def spread(values, words):
    """'1 MiB' or '1 MiB - 4 MiB' (sizes), '1' or '1, 2, 4' (threads)."""
    values = sorted(set(v for v in values if v is not None))
    if not values:
        return "?"
    if words is size_words:
        return words(values[0]) if len(values) == 1 else "%s - %s" % (
            words(values[0]), words(values[-1]))
    return ", ".join(str(v) for v in values)


def machine_line(report, threads, size):
    system = report.get("system") or {}
    cpu = " ".join(str(system.get("cpu_model") or "unknown CPU").split())
    host = system.get("hostname") or "unknown host"
    when = str((report.get("provenance") or {}).get("start_time") or "undated")
    when = when.replace("T", " ").replace(":00Z", "Z") if len(when) > 10 else when
    thread_word = "thread" if threads == "1" else "threads"
    return "%s on %s; %s %s, %s; %s" % (cpu, host, threads, thread_word, size, when[:16] + (
        " UTC" if when.endswith("Z") else ""))


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        fail("cannot read '%s' (%s)" % (path, e.strerror))
    if text.lstrip().startswith("run,") or text.lstrip().startswith("sweep,"):
        fail("'%s' is membench CSV; the plots read the JSON report (membench ... --format json "
             "-o FILE.json), which names the machine and its LLC" % path)
    try:
        report = json.loads(text)
    except ValueError:
        fail("'%s' is not a membench report (not JSON; make one with --format json -o "
             "FILE.json)" % path)
    if not isinstance(report, dict) or "membench_version" not in report or not isinstance(
            report.get("system"), dict):
        fail("'%s' is not a membench report (no membench_version and system; make one with "
             "--format json -o FILE.json)" % path)
    return report


def stream_runs(report, path):
    runs = [r for r in report.get("runs") or [] if r.get("results")]
    if not runs and report.get("tlb"):
        fail("'%s' is a --tlb report: plot it with bench/plot_tlb.sh" % path)
    if not runs:
        fail("'%s' has no STREAM results to plot%s" % (
            path, " (a --dry-run report)" if report.get("dry_run") else ""))
    return runs


def write(workdir, name, rows):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        for row in rows:
            f.write(" ".join(str(v) for v in row) + "\n")
    return path


def stream_plot(mode, report, path, workdir):
    runs = stream_runs(report, path)
    cfg = [r.get("config") or {} for r in runs]
    threads = spread([c.get("threads") for c in cfg], str)
    sizes = spread([c.get("array_bytes") for c in cfg], size_words)
    kernels = []
    for r in runs:
        for res in r["results"]:
            if res["kernel"] not in kernels:
                kernels.append(res["kernel"])
    lines, plots = [], []
    what = {"size": "bandwidth vs array size", "threads": "bandwidth vs threads",
            "pages": "bandwidth per kernel and page backing"}[mode]
    title = "membench: %s\n%s" % (what, machine_line(report, threads, "arrays of " + sizes))
    if mode == "size":
        llc = cfg[0].get("llc_bytes_used") or report["system"].get("llc_bytes_total") or 0
        xs = [c["array_bytes"] / MIB for c in cfg]
        lines.append("set logscale x 2")
        lines.append("set xlabel 'array size, each of the 3 arrays (MiB)'")
        for k in kernels:
            rows = sorted((c["array_bytes"] / MIB, res["best_rate_mbps"])
                          for c, r in zip(cfg, runs) for res in r["results"] if res["kernel"] == k)
            plots.append("%s using 1:2 with linespoints title %s" % (
                gp(write(workdir, "size-" + k, rows)), gp(k)))
        if llc:
            count = cfg[0].get("llc_count_used")
            used = "LLCs" if count and count > 1 else "LLC"
            for mult in (1, 4):
                x = mult * llc / MIB
                xs.append(x)
                label = ("%s used by the threads: %s" % (used, size_words(llc)) if mult == 1
                         else "4x%s: %s" % (used, size_words(4 * llc)))
                lines.append("set arrow from %r, graph 0 to %r, graph 1 nohead dt 2 lw 1.5 "
                             "lc rgb '#b03030'" % (x, x))
                lines.append("set label %s at %r, graph 0.97 rotate by 90 right offset -1.4,0 "
                             "tc rgb '#b03030'" % (gp(label), x))
        lines.append("set xrange [%r:%r]" % (min(xs) / 1.5, max(xs) * 1.5))
    elif mode == "threads":
        lines.append("set xlabel 'threads'")
        lines.append("set xtics 1")
        binds = []
        for c in cfg:
            if c.get("bind") not in binds:
                binds.append(c.get("bind"))
        for b in binds:
            for k in kernels:
                rows = sorted((c["threads"], res["best_rate_mbps"]) for c, r in zip(cfg, runs)
                              if c.get("bind") == b for res in r["results"] if res["kernel"] == k)
                plots.append("%s using 1:2 with linespoints title %s" % (
                    gp(write(workdir, "threads-%s-%s" % (b, k), rows)), gp("%s, %s" % (k, b))))
    else:
        lines += ["set style data histograms", "set style fill solid 0.6",
                  "set xlabel 'kernel'"]
        pages = []
        for c in cfg:
            if c.get("pages") not in pages:
                pages.append(c.get("pages"))
        for p in pages:
            rows = [(res["kernel"], res["best_rate_mbps"]) for c, r in zip(cfg, runs)
                    if c.get("pages") == p for res in r["results"]]
            plots.append("%s using 2:xtic(1) title %s" % (
                gp(write(workdir, "pages-" + str(p), rows)), gp("pages " + str(p))))
    lines += ["set ylabel 'bandwidth, best of the repetitions (MB/s, 10^6 bytes/s)'",
              "set yrange [0:*]", "set key outside right", "set grid"]
    return title, lines, plots


def tlb_plot(report, path, workdir):
    tlb = report.get("tlb")
    if not isinstance(tlb, dict) and report.get("runs"):
        fail("'%s' is a STREAM report, not --tlb: plot it with bench/plot.sh" % path)
    if not isinstance(tlb, dict) or not tlb.get("points"):
        fail("'%s' has no TLB sweep to plot (make one with membench --tlb --format json -o "
             "FILE.json; a single --tlb-pages point is no sweep)" % path)
    cfg = tlb.get("config") or {}
    page = tlb.get("page_size_bytes") or 4096
    top = max(p["pages"] for p in tlb["points"])
    title = "membench --tlb: ns per access vs pages touched (%s, %s)\n%s" % (
        cfg.get("mode") or "chase", cfg.get("order") or "random",
        machine_line(report, str(cfg.get("threads") or 1),
                     "up to %d pages (%s)" % (top, size_words(top * page))))
    lines = ["set logscale x 2", "set logscale y 10", "set ytics add (2, 5, 20, 50, 200, 500)",
             "set format x '%.0f'", "set grid xtics ytics mxtics lc rgb '#e0e0e0'",
             "set xlabel 'pages touched, one access per page (control: cache lines)'",
             "set ylabel 'latency per access, min of the repeats (ns)'",
             "set key bottom right box opaque"]
    sweeps = [("4k", tlb, "#202020")]
    huge = tlb.get("huge") or {}
    if huge.get("measured") and (huge.get("sweep") or {}).get("points"):
        sweeps.append(("2m", huge["sweep"], "#b03030"))
    plots = []
    for name, sweep, colour in sweeps:
        size = size_words(sweep.get("page_size_bytes") or (4096 if name == "4k" else 2097152))
        rows = sorted((p["pages"], p["ns_per_access"]) for p in sweep["points"])
        plots.append("%s using 1:2 with linespoints pt 7 ps 0.5 lc rgb '%s' title %s" % (
            gp(write(workdir, name + ".dat", rows)), colour,
            gp("%s pages, one access per page" % size)))
        if name == "4k" and sweep.get("control_points"):
            rows = sorted((p["lines"], p["ns_per_access"]) for p in sweep["control_points"])
            plots.append("%s using 1:2 with linespoints pt 6 ps 0.5 lc rgb '#3060b0' title %s" % (
                gp(write(workdir, "control.dat", rows)),
                gp("control: the same cache lines in 64x fewer 4 KiB pages")))
        for level in sweep.get("levels") or []:
            n = level.get("entries")
            if not n:
                continue
            reach = level.get("reach_bytes") or n * (sweep.get("page_size_bytes") or page)
            label = "%s %s: %d pages = %s reach" % (name, level.get("name"), n,
                                                     size_words(reach))
            lines.append("set arrow from %d, graph 0 to %d, graph 1 nohead lw 1.2 lc rgb '%s'"
                         % (n, n, colour))
            lines.append("set label %s at %d, graph 0.97 rotate by 90 right offset -1.4,0 "
                         "tc rgb '%s'" % (gp(label), n, colour))
        if name == "4k":
            for knee in sweep.get("cache_knees") or []:
                x = knee.get("lines_low")
                if x:
                    lines.append("set arrow from %r, graph 0 to %r, graph 1 nohead dt 3 "
                                 "lc rgb '#3060b0'" % (x, x))
                    lines.append("set label %s at %r, graph 0.97 rotate by 90 right "
                                 "offset 1.4,0 tc rgb '#3060b0'" % (
                                     gp("cache: " + (knee.get("label") or "data cache")), x))
    return title, lines, plots


def main():
    mode, path, workdir = sys.argv[3:6]
    report = load(path)
    if mode == "tlb":
        title, lines, plots = tlb_plot(report, path, workdir)
    else:
        title, lines, plots = stream_plot(mode, report, path, workdir)
    with open(os.path.join(workdir, "plot.gp"), "w") as f:
        f.write("set termoption noenhanced\n")
        f.write("set title %s\n" % gp(title).replace("\n", "' . \"\\n\" . '"))
        f.write("\n".join(lines) + "\n")
        f.write("plot " + ", ".join(plots) + "\n")


if __name__ == "__main__":
    PROG, USAGE = sys.argv[1], sys.argv[2]
    main()
