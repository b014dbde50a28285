"""Shared helpers for the membench command-line tests (stdlib only)."""

import atexit
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

_HERE = os.path.dirname(os.path.abspath(__file__))

#: The tests/ directory (holds topologies/).
TESTS_DIR = os.environ.get("TESTS_DIR") or os.path.dirname(_HERE)

#: The membench binary under test.
BIN = os.environ.get("MEMBENCH_BIN") or os.path.join(
    os.path.dirname(TESTS_DIR), "build", "membench")


def _elf_machine(path):
    """The architecture a binary is built for, from its ELF header's e_machine."""
    try:
        with open(path, "rb") as f:
            header = f.read(20)
    except OSError:
        return None
    if header[:4] != b"\x7fELF":
        return None
    machine = int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")
    return {62: "x86-64", 183: "aarch64"}.get(machine, "other")


#: What the binary under test was built for ("x86-64", "aarch64", "other"), whatever runs it.
BUILD_ARCH = _elf_machine(BIN)

#: membench-hooked: membench with the MEMBENCH_TEST_* fault injection of tests/hooks/, built
#: only with the tests (-DMEMBENCH_TEST_HOOKS=ON) and never installed.
HOOKED_BIN = os.environ.get("MEMBENCH_HOOKED_BIN") or os.path.join(
    os.path.dirname(BIN), "membench-hooked")

#: The command the binaries under test run under: MEMBENCH_TEST_EMULATOR split as a shell would,
#: e.g. "qemu-aarch64 -L /" for the aarch64 cross build, "qemu-x86_64" for the native one (the
#: same user-mode emulation); empty for a native run.
EMULATOR = shlex.split(os.environ.get("MEMBENCH_TEST_EMULATOR", ""))
UNDER_EMULATION = bool(EMULATOR)
if EMULATOR:  # a path, for the wrappers that exec it without searching PATH
    EMULATOR[0] = shutil.which(EMULATOR[0]) or EMULATOR[0]

#: The prefix of the hook variables, which only membench-hooked reads.
HOOK_PREFIX = "MEMBENCH_TEST_"

#: Small real runs: 2 M doubles per array (48 MB in all), 3 repetitions, normal stores
#: (--stores auto measures both kinds first, a second a run: stores/ and stream/ test it).
SMALL = ["--size", "2000000", "-n", "3", "--stores", "normal"]

#: Memory a run takes per byte of its arrays in this build: ThreadSanitizer keeps about four
#: bytes of shadow per byte (MEMBENCH_SANITIZE is passed by tests/CMakeLists.txt).
THREAD_SANITIZER = "thread" in os.environ.get("MEMBENCH_SANITIZE", "")
MEMORY_FACTOR = 5 if THREAD_SANITIZER else 1

#: Inherited variables that change what membench does; removed from every run.
_SCRUB_PREFIXES = ("HWLOC_", "OMP_", "GOMP_", HOOK_PREFIX, "HUGETLB_")
_SCRUB_NAMES = ("GLIBC_TUNABLES",)

#: CPUs this process may run on (taskset, cpuset, cgroup), and those the machine has online.
USABLE_CPUS = len(os.sched_getaffinity(0))
MACHINE_CPUS = os.cpu_count() or USABLE_CPUS

#: Variables set for every run unless env_extra overrides (None unsets).
DEFAULT_ENV = {"OMP_NUM_THREADS": "2", "LC_ALL": "C"}

#: The suite's thread count on this machine: 2, or 1 where this process may use one CPU only
#: (two would be oversubscribed, and membench warns). Under a described topology
#: (HWLOC_SYNTHETIC, HWLOC_XMLFILE) the tests plan for its PUs: 2 there.
THREADS = min(2, USABLE_CPUS)
_DESCRIBED = ("HWLOC_SYNTHETIC", "HWLOC_XMLFILE")


def command(binary):
    """The argv prefix that starts binary: under the emulator when there is one."""
    return EMULATOR + [binary]


_launchers = {}


def launcher(binary):
    """One executable path that starts binary, for what takes a path and not an argv (MEMBENCH=
    of the scripts, shell commands, wrappers that exec it): binary itself natively, else a
    script that execs the emulator on it (in a scratch directory removed at exit)."""
    if not UNDER_EMULATION:
        return binary
    if binary not in _launchers:
        if not _launchers:
            scratch = tempfile.mkdtemp(prefix="membench-emulated-")
            atexit.register(shutil.rmtree, scratch, True)
            _launchers[None] = scratch
        path = os.path.join(_launchers[None], str(len(_launchers)))
        os.mkdir(path)
        path = os.path.join(path, os.path.basename(binary))
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexec %s \"$@\"\n" % shlex.join(command(binary)))
        os.chmod(path, 0o755)
        _launchers[binary] = path
    return _launchers[binary]


def skip_under_emulation(test, why):
    """Skip test (or, from setUpClass, its class) under MEMBENCH_TEST_EMULATOR, saying why: for
    tests whose point is timing or what emulation cannot give."""
    if UNDER_EMULATION:
        raise unittest.SkipTest("under emulation (%s): %s" % (" ".join(EMULATOR), why))


#: Why some runs cannot work under qemu-user 7.2 (checked with small C programs: the same
#: mmap, madvise and mbind calls work natively and not emulated, x86-64 and aarch64 guests).
NO_HUGETLB = ("qemu-user's mmap refuses MAP_HUGETLB (EINVAL), so no hugetlb page can be mapped "
              "while the host's pool offers them")
NO_MADVISE = ("qemu-user 7.2 drops madvise(%s): it returns 0 and the kernel never sees it "
              "(of the advice, only MADV_DONTNEED is passed on)")
NO_THP = NO_MADVISE % "MADV_HUGEPAGE" + ": the arrays get no transparent huge pages"
NO_MBIND = "qemu-user does not implement mbind and move_pages (ENOSYS): no NUMA placement"
TIMING = "the emulator runs membench 5-20x slower and unevenly, so a test of timing cannot hold"


def hugetlb_pool_offered():
    """Whether the default hugetlb pool has free pages, which membench then maps by default."""
    pool = hugepage_pool(default_hugepage_kb())
    return bool(pool and pool["available"])


def emulated_args(args):
    """args as run: under emulation a --latency run that names no --pages gets --pages 4k where
    membench would map hugetlb pages (NO_HUGETLB); which pages it picks is tested natively."""
    args = list(args)
    if (UNDER_EMULATION and "--latency" in args and not _values(args, "--pages")
            and hugetlb_pool_offered()):
        args += ["--pages", "4k"]
    return args


def skip_if_hugetlb_under_emulation(test):
    """Skip test under emulation when membench would map hugetlb pages: the host has a pool."""
    if hugetlb_pool_offered():
        skip_under_emulation(test, NO_HUGETLB)


_llc = {}
_LLC_UNKNOWN = re.compile(r"membench: (--latency: )?the last-level cache (of PU \d+ |size )?is "
                          r"unknown \(")


def skip_if_emulated_llc_unknown(rc, err):
    """Under emulation, skip a test whose run without --size ended in exit 3 because the
    last-level cache is unknown: the emulated CPU shows no cache (hwloc and sysfs report none
    on a host without /sys/devices/system/cpu/cpu0/cache), so membench rightly asks for --size."""
    if UNDER_EMULATION and rc == 3 and _LLC_UNKNOWN.match(err):
        raise unittest.SkipTest("under emulation the last-level cache is unknown here, so a run "
                                "without --size exits 3: " + err.strip())


def skip_unless_llc_known(test):
    """Under emulation, skip test when membench cannot size arrays by the last-level cache: the
    emulated CPU shows no cache and the host may have no sysfs cache directory (hwloc and sysfs
    report none), and membench rightly exits 3 asking for --size. One --dry-run finds out."""
    if not UNDER_EMULATION:
        return
    if "line" not in _llc:
        rc, _, err = run(["--dry-run", "--triad"], timeout=120)
        _llc["line"] = err.strip() if rc == 3 and _LLC_UNKNOWN.match(err) else None
    if _llc["line"]:
        raise unittest.SkipTest("under emulation the last-level cache is unknown here: "
                                + _llc["line"])


def skip_unless_cpus(test, n, why=""):
    """Skip test, saying so, when this process may use fewer than n CPUs."""
    if USABLE_CPUS < n:
        test.skipTest("needs %d CPUs%s; this process may use %d (taskset, cpuset or cgroup)"
                      % (n, why, USABLE_CPUS))


def skip_unless_all_cpus(test, what):
    """Skip test when this process may not use every CPU of the machine: what (the acceptance
    profile, a health check) measures them all and rightly fails on fewer."""
    if USABLE_CPUS < MACHINE_CPUS:
        test.skipTest("%s measures every CPU of the machine; this process may use %d of %d "
                      "(taskset, cpuset or cgroup)" % (what, USABLE_CPUS, MACHINE_CPUS))


#: The largest cache level 2 and up that small_cache_topology() leaves.
SMALL_CACHE_BYTES = 1 << 20


def small_cache_topology(path):
    """Write this machine's topology as hwloc XML to path, caches of level 2 and up cut to at
    most SMALL_CACHE_BYTES; None on success, else why it could not."""
    lstopo = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")
    if not lstopo:
        return "lstopo not installed (apt-get install hwloc)"
    proc = subprocess.run([lstopo, "--of", "xml", "-"], capture_output=True, text=True,
                          timeout=60)
    if proc.returncode != 0:
        return "lstopo failed: " + proc.stderr.strip()

    def shrink(m):
        size = min(int(m.group(2)), SMALL_CACHE_BYTES)
        return '%scache_size="%d"' % (m.group(1), size)

    xml = re.sub(r'(<object type="L[2-5]Cache"[^>]*?)cache_size="(\d+)"', shrink, proc.stdout)
    with open(path, "w") as f:
        f.write(xml)
    return None


def topology(name):
    """Path of a committed topology file in tests/topologies/."""
    return os.path.join(TESTS_DIR, "topologies", name)


def update_unsetting(d, changes):
    """d updated with changes, where a value of None removes its key; returns d."""
    for key, value in (changes or {}).items():
        if value is None:
            d.pop(key, None)
        else:
            d[key] = value
    return d


def make_env(env_extra=None):
    """A clean environment for membench; a None value in env_extra unsets."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(_SCRUB_PREFIXES) and k not in _SCRUB_NAMES}
    env.update(DEFAULT_ENV)
    if not any((env_extra or {}).get(k) for k in _DESCRIBED):
        env["OMP_NUM_THREADS"] = str(THREADS)
    return update_unsetting(env, env_extra)


def binary_for(env_extra):
    """membench-hooked when env_extra sets a hook (MEMBENCH_TEST_*), else membench."""
    if not any(k.startswith(HOOK_PREFIX) and v is not None
               for k, v in (env_extra or {}).items()):
        return BIN
    if not (os.path.isfile(HOOKED_BIN) and os.access(HOOKED_BIN, os.X_OK)):
        raise AssertionError("the hooks need membench-hooked, not found at %s: build with "
                             "-DMEMBENCH_TEST_HOOKS=ON (or MEMBENCH_TESTS) or set "
                             "MEMBENCH_HOOKED_BIN" % HOOKED_BIN)
    return HOOKED_BIN


#: The ctest labels of the running test (tests/CMakeLists.txt sets MEMBENCH_TEST_LABELS from the
#: test file's "ctest: LABELS" lines and its folder); None when the file runs outside ctest.
LABELS = (set(os.environ["MEMBENCH_TEST_LABELS"].split(","))
          if "MEMBENCH_TEST_LABELS" in os.environ else None)


def require_label(label, what):
    """Fail, naming the fix, when the running test uses what its label says (the huge page
    pool, a named pause or a time limit) without declaring it: a CI job runs a label's tests
    only (tests/README.md), so an undeclared use would go untried where it matters."""
    if LABELS is not None and label not in LABELS:
        raise AssertionError("this test %s but its file does not declare the label: add "
                             "'# ctest: LABELS %s' to it (tests/README.md)" % (what, label))


def _values(args, option):
    """The values of every option (as "--opt V" or "--opt=V") in args, split at commas."""
    values = []
    for i, arg in enumerate(args):
        if arg == option and i + 1 < len(args):
            values += args[i + 1].lower().split(",")
        elif arg.startswith(option + "="):
            values += arg[len(option) + 1:].lower().split(",")
    return values


def maps_hugetlb(args, env=None, wrapper=()):
    """Whether a run of membench with args maps pages from the huge page pool when it has
    them: --pages 2m or 1g, HUGETLB_MORECORE, hugectl, and what tries the pool unless told
    otherwise (the latency chase and the TLB sweep without --pages, the fault probe without
    --faults-backing). A --dry-run maps nothing; a described /sys (MEMBENCH_TEST_SYS_ROOT)
    has a pool of its own."""
    env = env or {}
    if "--dry-run" in args or env.get(HOOK_PREFIX + "SYS_ROOT") is not None:
        return False
    huge = {"2m", "1g"}
    pages = _values(args, "--pages")
    faults = _values(args, "--faults-backing")
    return bool(huge & set(pages) or env.get("HUGETLB_MORECORE") is not None
                or any("hugectl" in os.path.basename(w) for w in wrapper)
                or ("--latency" in args and not pages)
                or ("--tlb" in args and not pages and not _values(args, "--tlb-pages"))
                or ("--faults" in args and (huge & set(faults) or not faults)))


def check_declared(args, env_extra=None, wrapper=()):
    """Fail when a run of membench with args would map huge pages from the pool, or wait on a
    time limit or a named pause, and the running test does not carry the matching label."""
    args, env = list(args), env_extra or {}
    if maps_hugetlb(args, env, wrapper):
        require_label("hugetlb", "runs membench with pages from the huge page pool (%s)"
                      % " ".join(args)[:200])
    if "--dry-run" not in args and (
            _values(args, "--time-limit") or env.get(HOOK_PREFIX + "TIME_LIMIT_AT") is not None
            or env.get(HOOK_PREFIX + "PAUSE_AT") is not None):
        require_label("timing", "runs membench against a time limit or a named pause (%s)"
                      % " ".join(args)[:200])


def run(args, env_extra=None, timeout=120, cwd=None, wrapper=(), binary=None):
    """Run membench with args, under wrapper (e.g. ["hugectl", "--heap"]) if given;
    return (rc, stdout, stderr) as text. The binary is membench, or membench-hooked when
    env_extra sets a MEMBENCH_TEST_* hook (only that test build has them); binary overrides."""
    binary = binary or binary_for(env_extra)
    try:
        proc = subprocess.run(list(wrapper) + command(binary) + emulated_args(args),
                              env=make_env(env_extra),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("membench %s timed out after %s s"
                             % (" ".join(args), timeout)) from exc
    out = proc.stdout.decode("utf-8", errors="replace")
    err = proc.stderr.decode("utf-8", errors="replace")
    if proc.returncode != 2:  # a usage error reads no pool and waits for nothing
        check_declared(args, env_extra, wrapper)
    return proc.returncode, out, err


def _process_state(pid):
    """The state letter of /proc/PID/stat ('T' when stopped), or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def start_paused(args, point, env_extra=None, wrapper=(), **popen_kw):
    """Start membench-hooked with args, under wrapper if given, and return (proc, stderr so
    far) once it has stopped itself at the named point (MEMBENCH_TEST_PAUSE_AT, see
    tests/hooks/hooks_env.c): whatever is sent to it now arrives while that phase runs. Resume
    it with resume(). An event, not a guessed delay: the same on a fast or a loaded machine."""
    env = dict(env_extra or {}, MEMBENCH_TEST_PAUSE_AT=point)
    check_declared(args, env, wrapper)
    proc = subprocess.Popen(list(wrapper) + command(binary_for(env)) + emulated_args(args),
                            env=make_env(env),
                            stdin=popen_kw.pop("stdin", subprocess.DEVNULL),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen_kw)
    lines = []
    for line in iter(proc.stderr.readline, ""):
        lines.append(line)
        if line == "membench-test: paused at %s\n" % point:
            break
    else:
        out, err = proc.communicate(timeout=60)
        raise AssertionError("membench ended before the point '%s'\n%s" % (
            point, describe(args, proc.returncode, out, "".join(lines) + err)))
    deadline = time.monotonic() + 60
    while _process_state(proc.pid) not in ("T", None):  # it stops right after the line
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("membench announced '%s' but did not stop" % point)
        time.sleep(0.001)
    return proc, "".join(lines)


def resume(proc, sig=None):
    """Send sig (if any) to a process stopped by start_paused, then let it go on (SIGCONT): the
    signal is handled as soon as it runs again."""
    if sig is not None:
        proc.send_signal(sig)
    proc.send_signal(signal.SIGCONT)


def hugepage_pool(kb):
    """The kernel's pool of kb-sized huge pages as a dict of its sysfs counters, with
    "available" = free - resv; None when this kernel has no such pool."""
    require_label("hugetlb", "reads the huge page pool")
    d = "/sys/kernel/mm/hugepages/hugepages-%dkB" % kb
    pool = {}
    for name in ("nr_hugepages", "free_hugepages", "resv_hugepages"):
        try:
            with open(os.path.join(d, name)) as f:
                pool[name] = int(f.read())
        except (OSError, ValueError):
            return None
    pool["available"] = max(0, pool["free_hugepages"] - pool["resv_hugepages"])
    return pool


def thp_mode():
    """The selected word of the THP 'enabled' file, or None without THP."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            line = f.read()
    except OSError:
        return None
    start, end = line.find("["), line.find("]")
    return line[start + 1:end] if 0 <= start < end else None


def default_hugepage_kb():
    """Hugepagesize from /proc/meminfo, in kB (0 when absent)."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Hugepagesize:"):
                return int(line.split()[1])
    return 0


def describe(args, rc, out, err):
    """A failure message showing the command and what it printed."""
    return "membench %r: rc=%d\n--- stdout ---\n%s--- stderr ---\n%s" % (
        list(args), rc, out[-3000:], err[-3000:])


class MembenchTestCase(unittest.TestCase):
    """Base class: skips when the binary is missing; common assertions."""

    maxDiff = None

    def setUp(self):
        if not (os.path.isfile(BIN) and os.access(BIN, os.X_OK)):
            raise unittest.SkipTest("membench binary not found: %s" % BIN)

    def run_ok(self, args, env_extra=None, timeout=120):
        """Run and assert exit status 0; return (stdout, stderr)."""
        rc, out, err = run(args, env_extra, timeout)
        skip_if_emulated_llc_unknown(rc, err)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        return out, err

    def run_json(self, args, env_extra=None, timeout=120):
        """Run with --format json, assert exit 0, return the parsed document."""
        args = list(args) + ["--format", "json"]
        out, err = self.run_ok(args, env_extra, timeout)
        try:
            doc = json.loads(out)
        except ValueError as exc:
            self.fail("invalid JSON (%s)\n%s" % (exc, describe(args, 0, out, err)))
        self.assertEqual(doc.get("schema"), 1)
        return doc

    def assert_error(self, args, status, keywords, env_extra=None):
        """Assert exit status, empty stdout and one 'membench: ' line naming keywords."""
        rc, out, err = run(args, env_extra, timeout=30)
        if not any("last-level cache" in word for word in keywords):
            skip_if_emulated_llc_unknown(rc, err)
        msg = describe(args, rc, out, err)
        self.assertEqual(rc, status, msg)
        self.assertEqual(out, "", msg)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, "expected exactly one stderr line\n" + msg)
        self.assertTrue(err.endswith("\n"), msg)
        line = lines[0]
        self.assertTrue(line.startswith("membench: "), msg)
        for word in keywords:
            self.assertIn(word, line, msg)
        return line

    def assert_error_matching(self, args, status, pattern, env_extra=None):
        """assert_error with a regular expression for the keywords: exit status, empty stdout
        and one 'membench: ' line that pattern matches (re.search). As assert_error, it skips
        under emulation when the last-level cache is unknown, unless pattern names that cache
        (then the line must name it too)."""
        names_llc = "last-level cache" in pattern.replace("\\", "")
        line = self.assert_error(args, status, ["last-level cache"] if names_llc else [],
                                 env_extra)
        self.assertRegex(line, pattern, describe(args, status, "", line + "\n"))
        return line


class ScratchDirCase(MembenchTestCase):
    """A test with its own temporary directory, self.dir (a path), removed afterwards."""

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)


class ReferenceFileCase(MembenchTestCase):
    """A test with its own temporary directory and a reference file path, self.ref, in it."""

    def setUp(self):
        super().setUp()
        self.dir = tempfile.TemporaryDirectory()
        self.ref = os.path.join(self.dir.name, "ref.json")

    def tearDown(self):
        self.dir.cleanup()

    def write_ref(self, doc):
        """Writes doc to self.ref: text as it is, anything else as JSON."""
        with open(self.ref, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))


def main():
    """Run the tests of __main__; exit 77 if all were skipped, else 0 or 1."""
    prog = unittest.main(module="__main__", exit=False, verbosity=2)
    result = prog.result
    # A class skipped in setUpClass is one skip and no test run: >= counts it. A test with
    # skipped subtests counts once (it ran).
    skipped = {getattr(t, "test_case", t).id() for t, _ in result.skipped}
    if result.wasSuccessful() and skipped and len(skipped) >= result.testsRun:
        sys.exit(77)
    sys.exit(0 if result.wasSuccessful() else 1)
