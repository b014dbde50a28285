# ctest: LABELS hugetlb
"""Every membench command shown in a code block of README.md or docs/*.md runs, and what it
prints has the documented shape, so the documentation cannot drift from the program.

How a command is found: each line of a fenced code block (``` ... ```, also indented in a
list), each inline `...` span in prose that names membench and an option, and each line of
the man page's EXAMPLES (.EX/.EE, `\e` continuing a line); a leading `$ ` prompt and a
trailing `# comment` removed, split at `&&`; a part whose
first word after `VAR=value` assignments is `membench`, `build/membench` or
`./build/membench` is a command. A part that starts with a launcher (mpirun, srun, ...) and
names membench is skipped for the reason in SKIPPED; any other way of naming membench fails
the test, so a new kind of command cannot escape it.

How it is run, small (the rule): in a scratch directory (its -o files land there), with the
built binary for ./build/membench, and:
  - a command that runs STREAM kernels (not only probes, not --dry-run, not --acceptance):
    each -s/--size value list of k values becomes 2000000, 3000000, ... (k element counts,
    so a sweep stays a sweep), `-s 2000000` is appended when there is none, and -n becomes 3
    (appended when absent);
  - --acceptance: its profile fixes STREAM-rule arrays (4 GiB each on some test machines),
    so it runs with --dry-run added: the options, the profile and the reference are checked,
    nothing is measured. node-ref.json, which the docs check against, is saved first by a
    small run (`-s 2000000 -n 3 --save-reference node-ref.json`);
  - --tlb: `--tlb-max-pages 256 --repeat 1` unless --tlb-pages gives one point;
  - --faults: `--faults-size 4` (MiB); --shootdown: `--shootdown-pages 1,33`; --latency:
    `--latency-size 8MiB`; when not given;
  - --dry-run commands run as written (nothing is allocated);
  - an absolute -o, --metrics-file or --save-reference path is written in the scratch
    directory under its base name; a command naming a PU (--bind list, --cpu) that this
    process may not use is skipped, saying so.
Identical commands (after these rules) run once.

The shape: exit 0, or 3 for --pages 2m/1g/thp when this machine has no such pages (the
documented status, with its one line naming the pool or THP); nothing on stderr but lines
starting "membench: " and never an unknown option; JSON parses and has the run's parts; CSV
has a header and rows of its width; text has the kernel rows and STREAM's validation line,
or the probe's section, or the dry run's last line; -q has one line per run of the known
forms.
"""

import csv
import glob
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import BIN as MEMBENCH, TESTS_DIR  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)
MAN_PAGE = os.path.join(ROOT, "docs", "membench.1")
DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                              for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))

MEMBENCH_NAMES = ("membench", "build/membench", "./build/membench")
SKIPPED = {
    "mpirun": "needs the MPI build and several ranks: tests/cluster/test_mpi*.py run "
              "the cluster mode",
    "srun": "needs a Slurm cluster: tests/cluster/test_slurm*.py run it on a one-node Slurm",
    "hugectl": "needs libhugetlbfs's hugectl and a 2 MB pool: tests/pages/test_pages.py runs it",
    "check_cmd_status": "LBNL NHC's wrapper, run by NHC on a node (docs/acceptance.md's recipe)",
}
#: Options whose value is a file the command writes: an absolute path is written in the
#: scratch directory under its base name (/var/lib/prometheus/... needs not exist here).
OUTPUT_OPTIONS = ("-o", "--output", "--metrics-file", "--save-reference")
KERNELS = ("--copy", "--scale", "--add", "--triad", "--dot", "--read", "--write", "--nstream")
STREAM_ROWS = {"--copy": "Copy", "--scale": "Scale", "--add": "Add", "--triad": "Triad",
               "--dot": "Dot", "--read": "Read", "--write": "Write", "--nstream": "Nstream"}
PROBES = ("--tlb", "--faults", "--shootdown", "--timer", "--latency")
SIZE = 2000000
TIME_LIMIT_S = 60


def code_lines(path):
    """(line number, text) of every line inside a fenced code block."""
    inside = False
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip().startswith("```"):
                inside = not inside
            elif inside:
                yield number, line.strip()


def prose_commands(path):
    """(line number, text) of every inline `membench -...` span outside code blocks: a span
    naming the binary (membench or a path to it, after VAR=value words) and an option."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"(?ms)^\s*```.*?^\s*```", lambda m: "\n" * m.group(0).count("\n"), text)
    text = re.sub(r"(?s)<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text)
    for m in re.finditer(r"`([^`\n]+(?:\n[^`\n]+)?)`", text):
        argv = words(m.group(1).replace("\n", " "))
        while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", argv[0]):
            argv = argv[1:]
        names = [i for i, w in enumerate(argv) if w == "membench" or w.endswith("/membench")]
        if names and len(argv) > names[0] + 1 and argv[names[0] + 1].startswith("-"):
            yield text.count("\n", 0, m.start()) + 1, " ".join(m.group(1).split())


def man_examples():
    """(line number, text) of every command in the man page's .EX blocks (\\- is -, a
    trailing \\e continues the line)."""
    with open(MAN_PAGE, encoding="utf-8") as f:
        lines = f.read().split("\n")
    inside, pending, start = False, "", 0
    for number, line in enumerate(lines, 1):
        if line.startswith(".EX"):
            inside = True
        elif line.startswith(".EE"):
            inside = False
        elif inside:
            text = line.replace("\\-", "-")
            if not pending:
                start = number
            if text.rstrip().endswith("\\e"):
                pending += text.rstrip()[:-2] + " "
                continue
            yield start, pending + text
            pending = ""


def words(text):
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return []


def names_membench(argv):
    """The binary as the command (any path to it), or as a launcher's argument."""
    if not argv:
        return False
    if argv[0] == "membench":  # not the banner "membench 0.1.0: ..." of an output block
        return len(argv) == 1 or argv[1].startswith("-")
    return any(w.endswith("/membench") or (w == "membench" and argv[0] in SKIPPED)
               for w in argv)


def every_command_line():
    """(where, text): the lines of the docs' code blocks, their inline commands in prose, and
    the man page's EXAMPLES."""
    for path in DOCS:
        for number, line in code_lines(path):
            yield "%s:%d" % (path, number), line
        for number, text in prose_commands(path):
            yield "%s:%d (prose)" % (path, number), text
    for number, text in man_examples():
        yield "docs/membench.1:%d" % number, text


def shown_commands():
    """([(where, env, argv)], [(where, text, reason)]): the commands to run and the skipped."""
    run, skipped = [], []
    for where, line in every_command_line():
        line = re.sub(r"^\$ ", "", line)
        for part in line.split("&&"):
            argv = words(part)
            env = {}
            while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", argv[0]):
                key, value = argv.pop(0).split("=", 1)
                env[key] = value
            if not names_membench(argv):
                continue
            if argv[0] in SKIPPED:
                skipped.append((where, part.strip(), SKIPPED[argv[0]]))
            elif argv[0] in MEMBENCH_NAMES:
                run.append((where, env, argv[1:]))
            else:
                raise AssertionError("%s: membench shown in a way this test does not know: "
                                     "%s (add a rule or a reason in SKIPPED)" % (where, part))
    return run, skipped


def option_values(args, *names):
    """The values given to the named options, in either --opt V or --opt=V form."""
    found = []
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                found.append(args[i + 1])
            elif arg.startswith(name + "=") and name.startswith("--"):
                found.append(arg.split("=", 1)[1])
    return found


def pus_named(args):
    """The OS PU numbers that --bind lists (such as 0,2 or 4-7) and --cpu name."""
    pus = {int(v) for v in option_values(args, "--cpu") if re.fullmatch(r"\d+", v)}
    for value in option_values(args, "--bind"):
        for item in value.split(","):
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
            if m:
                pus.update(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return pus


def without_option(args, *names):
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in names:
            skip = True
        elif not any(arg.startswith(n + "=") for n in names if n.startswith("--")):
            out.append(arg)
    return out


def runs_stream(args):
    return any(a in KERNELS for a in args) or not any(a in PROBES for a in args)


def small(args):
    """The command under the rule in the module's docstring."""
    args = [os.path.basename(a) if i and args[i - 1] in OUTPUT_OPTIONS and a.startswith("/")
            and not a.startswith("/dev/") else a for i, a in enumerate(args)]
    if "--dry-run" in args:
        return args
    if "--acceptance" in args:
        return args + ["--dry-run"]
    if runs_stream(args):
        sizes = option_values(args, "-s", "--size")
        count = sum(len(v.split(",")) for v in sizes) or 1
        args = without_option(args, "-s", "--size", "-n", "--ntimes")
        args += ["-s", ",".join(str(SIZE + 1000000 * i) for i in range(count)), "-n", "3"]
    if "--tlb" in args and not option_values(args, "--tlb-pages"):
        if not option_values(args, "--tlb-max-pages"):
            args += ["--tlb-max-pages", "256"]
        if not option_values(args, "--repeat"):
            args += ["--repeat", "1"]
    if "--faults" in args and not option_values(args, "--faults-size"):
        args += ["--faults-size", "4"]
    if "--shootdown" in args and not option_values(args, "--shootdown-pages"):
        args += ["--shootdown-pages", "1,33"]
    if "--latency" in args and not option_values(args, "--latency-size"):
        args += ["--latency-size", "8MiB"]
    return args


QUIET_LINE = re.compile(
    r"^(?:MB/s(?: [A-Z][a-z]+=[0-9.]+)+ threads=\d+ .*validated=(?:yes|no)"
    r"(?: below_stream_rule=yes)?"
    r"|threads=\d+ elements=\d+ bytes=\d+ planned"
    r"|(?:tlb|faults|shootdown|timer|latency): \S.*"
    r"|(?:PASS|FAIL|INCONCLUSIVE) \d+ of \d+ checks.*)$")


def cannot_run_here(args, env):
    """Why the command cannot show its documented shape here, or None: under emulation no
    hugetlb mapping (--latency maps such pages when the host has a pool) and no NUMA placement;
    the acceptance profile sizes its arrays by the last-level cache, unknown on some machines."""
    if membench_test.UNDER_EMULATION:
        if "--latency" in args and not option_values(args, "--pages") \
                and membench_test.hugetlb_pool_offered():
            return "under emulation: " + membench_test.NO_HUGETLB
        if any(p in ("2m", "1g") for v in option_values(args, "--pages", "--faults-backing")
               for p in v.split(",")) or env.get("HUGETLB_MORECORE") == "yes":
            return "under emulation: " + membench_test.NO_HUGETLB
        if "numa" in option_values(args, "--matrix"):
            return "under emulation: " + membench_test.NO_MBIND
    if "--acceptance" in args and not option_values(args, "-s", "--size"):
        try:
            membench_test.skip_unless_llc_known(None)
        except unittest.SkipTest as exc:
            return str(exc)
    return None


class DocsCommandsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.commands, cls.skipped = shown_commands()
        cls.scratch = tempfile.TemporaryDirectory(prefix="membench-docs-")
        cls.dir = cls.scratch.name
        ref = subprocess.run(membench_test.command(MEMBENCH) + ["-s", str(SIZE), "-n", "3", "-q",
                              "--save-reference", "node-ref.json"], cwd=cls.dir,
                             capture_output=True, text=True, timeout=TIME_LIMIT_S)
        if ref.returncode != 0:
            raise AssertionError("could not save node-ref.json: %s" % ref.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def test_the_docs_show_commands(self):
        """The extraction is not vacuous: it finds the README's tasks and every kind of run."""
        self.assertGreaterEqual(len(self.commands), 25)
        where = {w.split(":")[0] for w, _, _ in self.commands}
        for doc in ("README.md", "docs/stream.md", "docs/tlb.md", "docs/probes.md",
                    "docs/acceptance.md", "docs/placement.md", "docs/membench.1"):
            self.assertIn(doc, where)
        self.assertGreaterEqual(sum("(prose)" in w for w, _, _ in self.commands), 5)
        self.assertGreaterEqual(sum(w.startswith("docs/membench.1") for w, _, _ in
                                    self.commands + self.skipped), 9)
        shown = [a for _, _, a in self.commands]
        for flag in ("--acceptance", "--tlb", "--pages", "--faults", "--shootdown", "--timer",
                     "--dry-run", "--reference", "--save-reference"):
            self.assertTrue(any(flag in a for a in shown), flag)
        for where, text, reason in self.skipped:
            sys.stderr.write("skipped %s: %s (%s)\n" % (where, text, reason))

    def test_every_bench_script_says_how_to_use_it(self):
        """bench/*.sh with --help: a usage line naming the script, quickly, nothing run or
        written (each script's own arguments are in its usage and bench/RESULTS.md)."""
        scripts = sorted(glob.glob(os.path.join(ROOT, "bench", "*.sh")))
        self.assertTrue(scripts)
        for script in scripts:
            name = os.path.basename(script)
            with self.subTest(script=name), tempfile.TemporaryDirectory() as cwd:
                env = dict(os.environ, MEMBENCH=membench_test.launcher(MEMBENCH))
                proc = subprocess.run([script, "--help"], cwd=cwd, env=env,
                                      capture_output=True, text=True, timeout=30)
                what = "%s --help: exit %d\n%s%s" % (name, proc.returncode, proc.stdout,
                                                      proc.stderr)
                self.assertRegex(proc.stdout + proc.stderr, r"(?im)^(\S+: .*)?usage: .*\b%s"
                                 % re.escape(name), what)
                self.assertNotIn("Traceback", proc.stderr, what)
                self.assertNotRegex(proc.stdout + proc.stderr, r"(?m)^membench: ", what)
                self.assertEqual(os.listdir(cwd), [], what)

    def test_readme_is_short(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            lines = f.read().count("\n")
        self.assertLessEqual(lines, 250, "README.md is what a user reads; the manual is docs/")

    def test_every_command_shown_runs_and_prints_its_documented_shape(self):
        seen = set()
        for where, env, shown in self.commands:
            args = small(shown)
            key = (tuple(sorted(env.items())), tuple(args))
            if key in seen:
                continue
            seen.add(key)
            why = cannot_run_here(args, env)
            if why:
                sys.stderr.write("skipped %s: %s (%s)\n" % (where, " ".join(shown), why))
                continue
            missing = sorted(pus_named(args) - set(os.sched_getaffinity(0)))
            if missing:  # the documented exit 2 on such a machine, not the shape shown
                sys.stderr.write("skipped %s: %s (names PU %s; this process may use %s)\n"
                                 % (where, " ".join(shown), ",".join(map(str, missing)),
                                    sorted(os.sched_getaffinity(0))))
                continue
            with self.subTest(where=where, command=" ".join(shown)):
                self.check(env, args)

    def check(self, env, args):
        full_env = dict(os.environ)
        full_env.update({k: os.path.join(ROOT, v) if os.path.exists(os.path.join(ROOT, v))
                         and "/" in v else v for k, v in env.items()})  # a repository file
        start = time.monotonic()
        proc = subprocess.run(membench_test.command(MEMBENCH) + args, cwd=self.dir, env=full_env,
                              capture_output=True, text=True, timeout=TIME_LIMIT_S)
        if os.environ.get("DOCS_COMMANDS_TIMES"):
            sys.stderr.write("%6.2f s membench %s\n" % (time.monotonic() - start, " ".join(args)))
        what = "membench %s\nstdout:\n%s\nstderr:\n%s" % (" ".join(args), proc.stdout[-3000:],
                                                          proc.stderr[-3000:])
        self.assertNotRegex(proc.stderr, r"(?i)unknown option|unrecognized option|invalid option",
                            what)
        for line in proc.stderr.splitlines():
            self.assertTrue(line.startswith("membench: "), "stray stderr line %r\n%s"
                            % (line, what))
        pages = ",".join(option_values(args, "--pages"))
        if proc.returncode == 3 and re.search(r"\b(2m|1g|thp)\b", pages):
            # the two classes: a hugetlb pool absent or too small, THP absent or off
            self.assertRegex(proc.stderr, r"hugetlb pool|transparent huge pages", what)
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, what)
            return
        if proc.returncode == 3 and "--acceptance" in args:
            # The profile's arrays are planned even under --dry-run; a machine with less
            # memory than they need gets the documented exit 3 and its one line.
            self.assertRegex(proc.stderr, r"^membench: the three arrays need .* may be used",
                             what)
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1, what)
            return
        self.assertEqual(proc.returncode, 0, what)

        if "--help" in args or "-h" in args:
            self.assertRegex(proc.stdout, r"^Usage: membench ", what)
            return
        fmt = (option_values(args, "--format") or ["text"])[-1]
        out = proc.stdout
        target = (option_values(args, "-o", "--output") or ["-"])[-1]
        if target != "-":
            with open(os.path.join(self.dir, target), encoding="utf-8") as f:
                out = f.read()
        if fmt == "openmetrics":
            self.assertRegex(out, r"(?m)^# TYPE membench_\w+ gauge$", what)
            self.assertTrue(out.endswith("# EOF\n"), what)
        elif fmt == "json":
            self.check_json(json.loads(out), args, what)
        elif fmt == "csv":
            self.check_csv(out, what)
        elif "-q" in args or "--quiet" in args:
            lines = [line for line in out.splitlines() if line.strip()]
            self.assertTrue(lines, what)
            for line in lines:
                self.assertRegex(line, QUIET_LINE, what)
        else:
            self.check_text(out, args, what)

    def check_json(self, doc, args, what):
        self.assertEqual(doc.get("schema"), 1, what)
        if "--tlb" in args:
            self.assertIn("tlb", doc, what)
        if runs_stream(args) and "--dry-run" not in args:
            self.assertTrue(doc["runs"], what)
            for run in doc["runs"]:
                self.assertTrue(run["validation"]["passed"], what)
                for result in run["results"]:
                    self.assertGreater(result["best_rate_mbps"], 0, what)

    def check_csv(self, text, what):
        rows = list(csv.reader(io.StringIO(
            "\n".join(line for line in text.splitlines() if line and not line.startswith("#")))))
        self.assertGreaterEqual(len(rows), 2, what)
        self.assertRegex(",".join(rows[0]), r"^[a-z_0-9]+(,[a-z_0-9]+)+$", what)
        self.assertTrue(any(len(row) == len(rows[0]) for row in rows[1:]), what)

    def check_text(self, text, args, what):
        if "--dry-run" in args:
            self.assertIn("Dry run: nothing was allocated or measured.", text, what)
            return
        if "--tlb" in args:
            self.assertIn("TLB probe time:", text, what)
        if "--faults" in args:
            self.assertIn("Page faults (--faults):", text, what)
        if "--shootdown" in args:
            self.assertIn("TLB shootdown (--shootdown):", text, what)
        if "--timer" in args:
            self.assertIn("Timer probe (--timer):", text, what)
        if "--latency" in args and "--matrix" in args:
            self.assertIn("Idle latency matrix, ns:", text, what)
            return
        if "--latency" in args:
            self.assertRegex(text, r"(?m)^Latency: idle [0-9.]+ ns ", what)
        if "--matrix" in args:  # a table per kernel instead of STREAM's rows (docs/numa.md)
            self.assertIn("NUMA bandwidth matrix (--matrix numa)", text, what)
            for name in [STREAM_ROWS[a] for a in args if a in STREAM_ROWS] or ["Triad"]:
                self.assertRegex(text, r"(?m)^%s best rate, MB/s" % name, what)
            self.assertNotIn("FAILED validation", text, what)
            return
        if runs_stream(args):
            kernels = [STREAM_ROWS[a] for a in args if a in STREAM_ROWS]
            for name in kernels or ["Copy", "Scale", "Add", "Triad"]:
                self.assertRegex(text, r"(?m)^%s:\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+$"
                                 % name, what)
            self.assertRegex(text, r"(?m)^Solution Validates", what)
            self.assertNotRegex(text, r"(?m)^Failed Validation", what)
            if len(option_values(args, "-s", "--size")[0].split(",")) > 1 or re.search(
                    r",", ",".join(option_values(args, "-t", "--threads", "--bind", "--pages"))):
                self.assertIn("Summary: best rate per run", text, what)


if __name__ == "__main__":
    membench_test.main()
