"""The docs' samples of program output: where they are, how each is run, how a sample and a
real run are compared, and how a sample is rewritten from a real run. Used by
test_docs_samples.py (compare) and update_doc_samples.py (rewrite).

A sample is a fenced block of README.md or docs/*.md preceded by a marker comment:

    <!-- sample: ./build/membench
         check: ./build/membench -s 1000000 -n 2 -->

  sample:   the command the block is the output of (run by update_doc_samples.py); a block
            whose first line is `$ COMMAND` may say `sample: $` to take that line.
  check:    a smaller command the test runs instead, when sample: is too big or slow for it
            (a small run of the same kind: only numbers, and the size lines listed in
            SMALL_RUN_LINES, may differ).
  setup:    a command run first in the scratch directory (e.g. saving a reference).
  slow:     why the check takes too long for the quick test: checked by
            `update_doc_samples.py --check` and with MEMBENCH_DOCS_SLOW=1 only.
  needs:    mpi (the MPI build, build-mpi/membench), all-cpus (the acceptance profile),
            numa-nodes=N, or recorded-elsewhere (a sample from another machine, kept as
            recorded: neither checked nor rewritten here; the text names the machine).
  json:     the block is a condensed JSON document: its keys are checked, not its layout.
A command's output is its stdout then its stderr (stdout alone for --format csv, json or
openmetrics: the document), run with the build's membench (membench-hooked when it sets a
MEMBENCH_TEST_ variable) in a scratch directory, without inherited OMP_/HWLOC_/... variables.
Every other fenced block that is not shell commands (```sh) says why it is not output:

    <!-- not output: the source tree -->

Comparison (masked lines, in order): digits and the units after them, host names, CPU
models, ISA names, the store kinds chosen by measurement and the build's compiler may differ; words, line order
and line presence may not. A `...` line in a sample stands for any number of lines; a sample
that does not start (end) with `...` must match the output's first (last) line. Lines that
depend on the moment, not on the program (WARNING: lines, a mixed-stores candidate), are
left out on both sides; a table cell `-` (no value) counts as a number. A sample of a full-size
run checked by a small one may differ in SMALL_RUN_LINES too. The samples name the machine
they were recorded on (doc_samples_machine.txt): the test compares them there only.
"""

import difflib
import glob
import json
import os
import re
import shlex
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("MEMBENCH_BIN") and os.path.dirname(os.environ["MEMBENCH_BIN"]) \
    or os.path.join(ROOT, "build")
BIN = os.environ.get("MEMBENCH_BIN") or os.path.join(BUILD, "membench")
HOOKED_BIN = os.environ.get("MEMBENCH_HOOKED_BIN") or os.path.join(BUILD, "membench-hooked")
MPI_BIN = os.environ.get("MEMBENCH_MPI_BIN") or os.path.join(ROOT, "build-mpi", "membench")
MPI_HOOKED_BIN = os.path.join(os.path.dirname(MPI_BIN), "membench-hooked")
#: The emulator the binaries run under (as membench_test.EMULATOR), empty for a native run.
EMULATOR = shlex.split(os.environ.get("MEMBENCH_TEST_EMULATOR", ""))

DOCS = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                              for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
FIELDS = ("sample", "check", "setup", "slow", "needs", "json")
MARKER = re.compile(r"^\s*<!--\s*(sample|not output)\b(.*?)(-->)?\s*$")

#: Lines a small check run of a full-size sample changes: the size rule names the explicit
#: size, and a NOTE says the arrays are below the STREAM rule.
SMALL_RUN_LINES = [
    (re.compile(r"^(Array size rule: )[^;]*;"), r"\1<size>;"),
    (re.compile(r'^(\s*"size_rule": )"[^"]*"'), r'\1"<size>"'),
    # the -q line's and the summary's mark of arrays under the rule
    (re.compile(r" below_stream_rule=yes\b"), ""),
    (re.compile(r"\s+below the STREAM rule: caches inflate it$"), ""),
]
SMALL_RUN_EXTRA = re.compile(r"^NOTE: arrays are below the STREAM rule")
SMALL_RUN_JSON_KEYS = ("size_rule", "below_stream_rule")
#: JSON keys whose value --stores auto chooses by measurement.
MEASURED_JSON_KEYS = ("stores", "tuned")
#: JSON keys whose value is the build's, not the program's (CI's TSan build is clang's).
BUILD_JSON_KEYS = ("compiler", "cflags")

#: Lines of the moment (conditions on the machine, a measured choice's runner-up).
IGNORED = re.compile(r"^(WARNING: |  mixed: )")
#: Causes of the moment: other work beside a test run (ctest -j2, the CI's neighbours), not
#: what a sample shows. They are left out of the report's blocks of causes (whose headers say
#: whether any was found, so they go too) and of a line's "; likely: ..." list; a cause of the
#: node's configuration is still compared.
MOMENT = (r"(other work took \d+% of the run's CPUs|membench waited \d+% of its time for a CPU|"
          r"hypervisor took \d+% of the CPUs|\d+ pages swapped during the run)")
MOMENT_CAUSE = re.compile(r"(; likely: |, )" + MOMENT)
CAUSE_ITEM = re.compile(r"^\s+\d+\. ")
MOMENT_ITEM = re.compile(CAUSE_ITEM.pattern + MOMENT)
CAUSES_HEAD = re.compile(r"^(What disturbed the measurement:|Likely causes, worst first \(.*\):|"
                         r"Likely causes \(.*\): none found in .*)$")


def without_moment(line):
    """The line less the causes of the moment in its "; likely: ..." list."""
    s = MOMENT_CAUSE.sub(lambda m: m.group(1) if m.group(1) == "; likely: " else "", line)
    s = re.sub(r"; likely: (, )+", "; likely: ", s)
    return re.sub(r"; likely: ?(?=;|$)", "", s)

UNITS = r"(?:[KMGT]iB|[kKMGT]B|B|ns|us|µs|ms|s|[GM]Hz|cycles?|x)"
MASKS = [
    (re.compile(r"^(Host: )[^,]*,"), r"\1<host>,"),
    (re.compile(r"^(CPU: )[^;]*;"), r"\1<cpu>;"),
    (re.compile(r"^(CPU model: ).*?(\(under a hypervisor\)|;)"), r"\1<cpu>\2"),
    (re.compile(r'hostname(="|": ")[^"]*"'), r'hostname\1<host>"'),
    (re.compile(r"\b(avx512|avx2|sse2)\b"), "<isa>"),
    # the store kind that --stores auto chose, and its label (a measured choice)
    (re.compile(r"\b(normal|nt|non-temporal|per kernel) stores( -- a TUNED run under STREAM's "
                r"rules)?"), "<measured> stores"),
    (re.compile(r'(stores=")(normal|nt|mixed)"'), r'\1<measured>"'),
    (re.compile(r"^(Stores: ).*( \(auto: whole repetitions on the first one ran ).*\)$"),
     r"\1<measured>\2<measured>)"),
    (re.compile(r"(?<=,)(normal|nt|mixed|true|false)(?=,)"), "<measured>"),
    # how many repetitions a time limit left (--acceptance: within 30 s on this machine)
    (re.compile(r"repetitions varied \d+%|repetition spread unknown \(fewer than 2 timed\)"),
     "<spread>"),
    (re.compile(r"(?<![\w.])[-+]?\.?\d[\w.:%+*/-]*(?:,(?=\d)[\w.:%+*/-]*)*"), "#"),
    # a value not measured this time ("- us when the IPI was sent") before its unit
    (re.compile(r"(?<!\S)-(?!\S)"), "#"),
    (re.compile(r"#\s*" + UNITS + r"(?![\w])"), "#"),
    (re.compile(r"(#\s+(?:NUMA\s+)?[A-Za-z]+?)s\b"), r"\1"),
    (re.compile(r"#(?:[\s,;]*#)+"), "#"),
    (re.compile(r"\s+"), " "),
]


class Sample:
    def __init__(self, path, line, indent, lines, fields):
        self.path, self.line, self.indent, self.lines = path, line, indent, lines
        self.fields = fields
        if fields.get("sample") == "$":
            fields["sample"] = lines[0][2:].split("  #")[0].strip()
        self.command = fields.get("sample")
        self.check_command = fields.get("check") or self.command
        self.small = "check" in fields

    @property
    def where(self):
        return "%s:%d" % (self.path, self.line)

    def body(self):
        """The output lines of the sample (without a `$ command` first line)."""
        if self.lines and self.lines[0].startswith("$ "):
            return self.lines[1:]
        return list(self.lines)


def read_markers(text):
    """{field: value} of a marker comment's text."""
    fields, key = {}, None
    for part in re.split(r"\b(%s):" % "|".join(FIELDS), text):
        if part in FIELDS:
            key = part
            fields[key] = ""
        elif key:
            fields[key] = " ".join(part.split())
    return fields


def blocks(path):
    """(first line number, indent, info, lines, marker text or None) per fenced block."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read().split("\n")
    i, found = 0, []
    while i < len(text):
        m = re.match(r"^(\s*)```(\S*)\s*$", text[i])
        if not m:
            i += 1
            continue
        indent, info, start = m.group(1), m.group(2), i
        j = i + 1
        while j < len(text) and not re.match(r"^\s*```\s*$", text[j]):
            j += 1
        body = [line[len(indent):] if line.startswith(indent) else line.strip()
                for line in text[start + 1:j]]
        marker = None
        k = start - 1
        if k >= 0 and text[k].strip().endswith("-->"):
            comment = [text[k]]
            while k >= 0 and "<!--" not in text[k]:
                k -= 1
                comment.insert(0, text[k])
            marker = " ".join(c.strip() for c in comment)
        found.append((start + 1, indent, info, body, marker))
        i = j + 1
    return found


def samples():
    """([Sample], [(where, reason)] of blocks that say they are not output,
    [where] of unmarked blocks that are not sh)."""
    found, not_output, unmarked = [], [], []
    for path in DOCS:
        for line, indent, info, body, marker in blocks(path):
            where = "%s:%d" % (path, line)
            if marker and re.match(r"<!--\s*not output:", marker):
                not_output.append((where, re.sub(r"^<!--\s*not output:\s*|\s*-->$", "",
                                                 marker)))
            elif marker and re.match(r"<!--\s*sample:", marker):
                inner = re.sub(r"^<!--\s*|\s*-->$", "", marker)
                found.append(Sample(path, line, indent, body, read_markers(inner)))
            elif info not in ("sh", "shell", "bash"):
                unmarked.append(where)
    return found, not_output, unmarked


# ---------------------------------------------------------------------------- running


def argv_of(command):
    """(env, argv) of a shown command: VAR=value words first, the membench path mapped to the
    build's binary (membench-hooked when a MEMBENCH_TEST_ variable is set)."""
    words = shlex.split(command, comments=True)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    hooked = any(k.startswith("MEMBENCH_TEST_") for k in env)
    out = []
    for w in words:
        if w in ("membench", "./build/membench", "build/membench"):
            out += EMULATOR + [HOOKED_BIN if hooked else BIN]
        elif w.endswith("build-mpi/membench"):
            out += EMULATOR + [MPI_HOOKED_BIN if hooked else MPI_BIN]
        else:
            out.append(w)
    return env, out


def clean_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HWLOC_", "OMP_", "GOMP_", "MEMBENCH_TEST_", "HUGETLB_",
                                "KMP_")) and k != "GLIBC_TUNABLES"}
    env["LC_ALL"] = "C"
    env.update(extra)
    return env


def scratch():
    """A scratch directory to run samples in: a sample's paths into tests/ (an hwloc XML
    topology) are from the repository root, as a reader in it types them."""
    tmp = tempfile.TemporaryDirectory(prefix="membench-samples-")
    os.symlink(os.path.join(ROOT, "tests"), os.path.join(tmp.name, "tests"))
    return tmp


def run(command, cwd, timeout=600):
    """stdout then stderr of the command (one text; stdout alone for a CSV, JSON or
    OpenMetrics document), and its exit status."""
    env, argv = argv_of(command)
    if argv and argv[0] == "mpirun":
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    proc = subprocess.run(argv, cwd=cwd, env=clean_env(env), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    out = proc.stdout.decode("utf-8", "replace")
    if not re.search(r"--format[= ](csv|json|openmetrics)\b", " ".join(argv)):
        out += proc.stderr.decode("utf-8", "replace")  # a document is stdout alone
    return out, proc.returncode


#: The machine the samples were recorded on (update_doc_samples.py writes it): the samples'
#: words depend on its hardware, so test_docs_samples.py compares them on it only.
MACHINE_FILE = os.path.join(HERE, "doc_samples_machine.txt")


def machine():
    """This machine as the samples see it: CPU model, CPUs online, clocksource, 2 MB pool."""
    def read(path, pattern=None):
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return "unknown"
        if pattern:
            m = re.search(pattern, text, re.M)
            return m.group(1).strip() if m else "unknown"
        return text.strip()
    return "\n".join([
        "cpu model: " + read("/proc/cpuinfo", r"^model name\s*:(.*)$"),
        "cpus: %d" % (os.cpu_count() or 0),
        "clocksource: " + read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "2 MB pool: " + read("/proc/sys/vm/nr_hugepages"),
    ]) + "\n"


def recorded_machine():
    try:
        with open(MACHINE_FILE) as f:
            return f.read()
    except OSError:
        return ""


def numa_nodes():
    return len(glob.glob("/sys/devices/system/node/node[0-9]*")) or 1


def missing(sample):
    """Why this sample cannot be run here, or None."""
    needs = sample.fields.get("needs", "")
    for need in needs.split():
        if need == "mpi" and not os.access(MPI_BIN, os.X_OK):
            return "needs the MPI build at %s (cmake -S . -B build-mpi -DMEMBENCH_MPI=ON)" \
                % MPI_BIN
        if need == "all-cpus" and len(os.sched_getaffinity(0)) < (os.cpu_count() or 1):
            return ("the acceptance profile measures every CPU; this process may use %d of %d"
                    % (len(os.sched_getaffinity(0)), os.cpu_count()))
        if need == "recorded-elsewhere":
            return "recorded on another machine (the text before the sample names it)"
        m = re.fullmatch(r"numa-nodes=(\d+)", need)
        if m and numa_nodes() < int(m.group(1)):
            return "needs %s NUMA nodes; this machine has %d" % (m.group(1), numa_nodes())
        m = re.fullmatch(r"cpus=(\d+)", need)
        if m and len(os.sched_getaffinity(0)) != int(m.group(1)):
            return ("recorded with %s usable CPUs; this process may use %d"
                    % (m.group(1), len(os.sched_getaffinity(0))))
    for cmd in (sample.command, sample.check_command, sample.fields.get("setup")):
        if cmd and re.search(r"\bMEMBENCH_TEST_", cmd) and not os.access(HOOKED_BIN, os.X_OK):
            return "needs membench-hooked (-DMEMBENCH_TEST_HOOKS=ON)"
    return None


# ---------------------------------------------------------------------------- comparing


def mask(line, small=False):
    s = line.rstrip()
    if small:
        for pattern, repl in SMALL_RUN_LINES:
            s = pattern.sub(repl, s)
    for pattern, repl in MASKS:
        s = pattern.sub(repl, s)
    return s.strip()


def regen_key(line):
    """The mask, keeping a table row's label (its first number) so rows keep their place."""
    m = re.match(r"^\s*([-\w.*]+)\s", line)
    label = m.group(1) if m and re.match(r"^\d", m.group(1)) else ""
    return label + "|" + mask(line)


def split_segments(lines):
    """(leading ..., [segments], trailing ...)."""
    segs, cur = [], []
    for line in lines:
        if line.strip() == "...":
            segs.append(cur)
            cur = []
        else:
            cur.append(line)
    segs.append(cur)
    lead = not segs[0]
    trail = not segs[-1]
    return lead, [s for s in segs if s], trail


def kept(lines, small=False, sample_side=False):
    out, in_causes, moment = [], False, False
    for line in lines:
        if CAUSES_HEAD.match(line):
            in_causes = True
            continue
        in_causes = in_causes and line.startswith("  ")
        if in_causes and CAUSE_ITEM.match(line):
            moment = bool(MOMENT_ITEM.match(line))
        if (in_causes and moment) or IGNORED.match(line):
            continue
        if small and not sample_side and SMALL_RUN_EXTRA.match(line):
            continue
        out.append(without_moment(line))
    return out


def strip_blank_ends(lines):
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def compare(sample, output, small=False):
    """None when the sample's lines are the output's (masked), else a description."""
    body = strip_blank_ends(kept(sample, small, True))
    out = strip_blank_ends(kept(output.split("\n"), small))
    lead, segs, trail = split_segments(body)
    masked_out = [mask(l, small) for l in out]
    pos = 0
    for n, seg in enumerate(segs):
        want = [mask(l, small) for l in seg]
        first, last = n == 0 and not lead, n == len(segs) - 1 and not trail
        if last:
            starts = [len(masked_out) - len(want)]
            if first and starts[0] != 0:
                starts = []
        elif first:
            starts = [0]
        else:
            starts = range(pos, len(masked_out) - len(want) + 1)
        hit = next((j for j in starts if j >= pos and masked_out[j:j + len(want)] == want),
                   None)
        if hit is None:
            diff = "\n".join(difflib.unified_diff(
                [mask(l, small) if l.strip() != "..." else "..." for l in body], masked_out,
                "sample (masked)", "this run (masked)", lineterm="", n=2))
            return ("lines %d-%d of the sample (%r ...) are not the output's%s\n%s"
                    % (body.index(seg[0]) + 1, body.index(seg[0]) + len(seg), seg[0],
                       " first lines" if first else " last lines" if last else "",
                       diff))
        pos = hit + len(want)
    return None


def regenerate(sample, output, small=False):
    """The sample's lines rewritten from the output: each run of lines between `...` becomes
    the output's lines from its first to its last line found there (each line looked for, in
    order, after the one before; a line the output no longer has is passed over)."""
    out = strip_blank_ends(output.split("\n"))
    lead, segs, trail = split_segments(strip_blank_ends(list(sample)))
    keys = [regen_key(l) for l in out]
    new, pos = [], 0
    if lead:
        new.append("...")
    for n, seg in enumerate(segs):
        first, last = n == 0 and not lead, n == len(segs) - 1 and not trail
        found, at = [], pos
        for key in (regen_key(l) for l in seg):
            hit = next((j for j in range(at, len(keys)) if keys[j] == key), None)
            if hit is not None:
                found.append(hit)
                at = hit + 1
        if not found and not (first or last):
            continue
        a = 0 if first else (found[0] if found else pos)
        b = len(out) - 1 if last else (found[-1] if found else pos - 1)
        if n and new and new[-1] != "...":
            new.append("...")
        new.extend(out[a:b + 1])
        pos = b + 1
    if trail and new and new[-1] != "...":
        new.append("...")
    return new


# ---------------------------------------------------------------------------- JSON samples


SCALAR = r'"(?:[^"\\]|\\.)*"|-?[\d.eE+-]+|true|false|null'
TOKEN = re.compile(r'"(\w+)":\s*(\{|\[|%s)|[{}\[\]]' % SCALAR)


def json_pairs(lines):
    """[(key, value text, its object's key, its object's "kernel")] of every "key": scalar of
    a condensed JSON sample (`...` stands for what was cut): the object's key is the key that
    holds it (an array element: the array's key), so each value is looked for where it is."""
    pairs, stack = [], [["", None]]  # per open object or array: [its key, kernel]
    for m in TOKEN.finditer("\n".join(lines)):
        key, value = m.group(1), m.group(2)
        if key is None:
            if m.group(0) in "{[":
                stack.append([stack[-1][0], None])
            elif len(stack) > 1:
                stack.pop()
        elif value in ("{", "["):
            stack.append([key, None])
        else:
            if key == "kernel":
                stack[-1][1] = json.loads(value)
            pairs.append((key, value, stack[-1][0], stack[-1][1]))
    return pairs


def json_objects(doc, parent=""):
    """(object, the key that holds it) of every object in doc."""
    if isinstance(doc, dict):
        yield doc, parent
        for k, v in doc.items():
            yield from json_objects(v, k)
    elif isinstance(doc, list):
        for v in doc:
            yield from json_objects(v, parent)


def json_find(doc, key, parent, kernel):
    for obj, held_by in json_objects(doc):
        if key in obj and held_by == parent and (kernel is None or obj.get("kernel") == kernel):
            return obj[key]
    raise KeyError(key)


def compare_json(sample, output, small=False):
    try:
        doc = json.loads(output)
    except ValueError as e:
        return "the run's output is not JSON: %s" % e
    problems = []
    for key, text, parent, kernel in json_pairs(sample):
        try:
            value = json_find(doc, key, parent, kernel)
        except KeyError:
            problems.append('"%s" (shown as %s) is in no object of the report' % (key, text))
            continue
        shown = json.loads(text)
        if key in MEASURED_JSON_KEYS + BUILD_JSON_KEYS or (small and key in SMALL_RUN_JSON_KEYS):
            ok = type(shown) is type(value)
        elif isinstance(shown, (int, float)) and not isinstance(shown, bool):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        elif isinstance(shown, str):
            ok = isinstance(value, str) and mask(shown, small) == mask(value, small)
        else:
            ok = mask(json.dumps(shown)) == mask(json.dumps(value))
        if not ok:
            problems.append('"%s": shown %s, the report has %s' % (key, text, json.dumps(value)))
    return "\n".join(problems) or None


def regenerate_json(sample, output):
    """The condensed JSON sample with each scalar replaced by the report's value there."""
    doc = json.loads(output)
    values = []
    for key, text, parent, kernel in json_pairs(sample):
        try:
            value = json_find(doc, key, parent, kernel)
        except KeyError:
            value = None
        values.append(text if isinstance(value, (dict, list)) or value is None and text != "null"
                      else json.dumps(value))
    it = iter(values)
    text = TOKEN.sub(lambda m: m.group(0) if m.group(1) is None or m.group(2) in ("{", "[")
                     else '"%s": %s' % (m.group(1), next(it)), "\n".join(sample))
    return text.split("\n")
