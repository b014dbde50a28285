"""Boot an emulated multi-socket NUMA guest (QEMU, -accel tcg) and run commands in it.

The guest is the distribution kernel (/boot/vmlinuz-*-amd64, the newest) with an initramfs
built here: busybox, the membench binary under test (MEMBENCH_BIN), numactl, and every shared
library they load (from ldd). Its /init mounts proc, sysfs and devtmpfs, runs the given shell
commands one by one and writes each one's stdout, stderr and exit status between markers on
the second serial port (the first is the console, kept for failure messages), then powers off.

stdlib only; no root needed (device nodes are written into the cpio archive, not created).
"""

import collections
import gzip
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_DIR = os.environ.get("TESTS_DIR") or os.path.dirname(_HERE)
BIN = os.environ.get("MEMBENCH_BIN") or os.path.join(
    os.path.dirname(TESTS_DIR), "build", "membench")

QEMU = "qemu-system-x86_64"
#: A CPU model whose CPUID describes the caches (leaf 4, an L3 per socket with l3-cache=on)
#: and SMT topology, so that Linux's sysfs and hwloc see them; AVX2 is as far as TCG goes.
CPU_MODEL = "Skylake-Client-v4,l3-cache=on,-hle,-rtm,-mpx"
#: Per guest command, seconds (busybox timeout inside the guest).
COMMAND_TIMEOUT_S = 120
#: The whole boot, commands and power-off, seconds (host side).
BOOT_TIMEOUT_S = 240

_MARK = "@@MBVM"
_RESULT_RE = re.compile(
    r"^@@MBVM (\d+) BEGIN@@\n(.*?)\n@@MBVM \1 STDERR@@\n(.*?)\n"
    r"@@MBVM \1 RC (\d+) ([\d.]+) ([\d.]+)@@$",
    re.S | re.M)


def newest_kernel():
    """The newest /boot/vmlinuz-*-amd64 readable by this user (the generic flavour before
    -cloud-amd64 or -rt-amd64 ones), or None."""
    def key(name):
        generic = re.fullmatch(r"vmlinuz-[\d.]+-\d+-amd64", name) is not None
        return [generic] + [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]
    try:
        names = [n for n in os.listdir("/boot")
                 if n.startswith("vmlinuz-") and n.endswith("-amd64")]
    except OSError:
        return None
    for name in sorted(names, key=key, reverse=True):
        path = os.path.join("/boot", name)
        if os.access(path, os.R_OK):
            return path
    return None


#: Host programs a guest command may use besides busybox and membench -> the Debian package.
#: A command naming one that is missing is not run; the tests that read it skip, saying so.
OPTIONAL_TOOLS = {"numactl": "numactl", "lstopo-no-graphics": "hwloc"}

#: MEMBENCH_VM_HIDE=numactl[,busybox,...]: act as if those host programs were absent, to try
#: the skip paths on a machine that has them (nothing is uninstalled).
HIDE_VARIABLE = "MEMBENCH_VM_HIDE"


def host_tool(name):
    """The host program's path, or None when it is not installed (or hidden)."""
    if name in os.environ.get(HIDE_VARIABLE, "").split(","):
        return None
    return shutil.which(name)


def missing_tools(command):
    """Why a guest command cannot run (the optional programs it names that are missing, with
    their packages), or None."""
    missing = [tool for tool in OPTIONAL_TOOLS
               if re.search(r"(?:^|[\s;|&(])%s\b" % re.escape(tool), command)
               and not host_tool(tool)]
    if not missing:
        return None
    return "%s not found on this machine (the guest gets the host's): apt-get install %s" % (
        ", ".join(missing), " ".join(OPTIONAL_TOOLS[t] for t in missing))


def skip_reason():
    """Why the VM tests cannot run here (a sentence), or None when they can."""
    if os.environ.get("MEMBENCH_SANITIZE"):
        return ("a sanitizer build (MEMBENCH_SANITIZE=%s): the VM tests run in the main "
                "build only" % os.environ["MEMBENCH_SANITIZE"])
    if not host_tool(QEMU):
        return "%s not found: apt-get install qemu-system-x86" % QEMU
    if not newest_kernel():
        return "no readable /boot/vmlinuz-*-amd64: apt-get install linux-image-amd64"
    if not host_tool("busybox"):
        return "busybox not found: apt-get install busybox-static"
    if not (os.path.isfile(BIN) and os.access(BIN, os.X_OK)):
        return "membench binary not found: %s" % BIN
    return None


def shared_libraries(path):
    """The absolute paths of every shared object path loads (ldd), the loader included;
    empty for a static executable."""
    proc = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=30)
    text = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        if "not a dynamic executable" in text or "statically linked" in text:
            return []
        raise RuntimeError("ldd %s failed: %s" % (path, text.strip()))
    libs = []
    for line in text.splitlines():
        line = line.strip()
        if "=>" in line:
            target = line.split("=>", 1)[1].strip().split(" (")[0].strip()
            if target == "not found":
                raise RuntimeError("ldd %s: %s" % (path, line))
            if target.startswith("/"):
                libs.append(target)
        elif line.startswith("/"):
            libs.append(line.split(" (")[0].strip())
    return libs


class Cpio:
    """An initramfs archive in the cpio "newc" format, written without cpio(1) or root."""

    def __init__(self):
        self._out = bytearray()
        self._ino = 1000
        self._dirs = set()

    def _entry(self, name, mode, data=b"", rdev=(0, 0), nlink=1):
        self._ino += 1
        name_bytes = name.encode() + b"\0"
        fields = (self._ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1],
                  len(name_bytes), 0)
        self._out += b"070701" + b"".join(b"%08X" % f for f in fields) + name_bytes
        self._out += b"\0" * (-len(self._out) % 4)
        self._out += data
        self._out += b"\0" * (-len(self._out) % 4)

    def directory(self, name):
        name = name.strip("/")
        if not name or name in self._dirs:
            return
        self.directory(os.path.dirname(name))
        self._dirs.add(name)
        self._entry(name, stat.S_IFDIR | 0o755, nlink=2)

    def file(self, name, data, mode=0o755):
        name = name.strip("/")
        self.directory(os.path.dirname(name))
        self._entry(name, stat.S_IFREG | mode, data)

    def copy(self, host_path, name=None):
        """The file at host_path (symbolic links followed) as name (default: the same path)."""
        with open(host_path, "rb") as f:
            self.file(name or host_path, f.read(), 0o755)

    def chardev(self, name, major, minor):
        name = name.strip("/")
        self.directory(os.path.dirname(name))
        self._entry(name, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def symlink(self, name, target):
        name = name.strip("/")
        self.directory(os.path.dirname(name))
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def finish(self):
        self._entry("TRAILER!!!", 0, nlink=1)
        return bytes(self._out)


def _init_script(commands):
    """/init: mount, run each command with a timeout, write its output between markers on
    /dev/ttyS1, power off. Each command is a /bin/sh string (its exit status is reported)."""
    lines = [
        "#!/bin/busybox sh",
        "/bin/busybox mkdir -p /proc /sys /dev /tmp /usr/bin /usr/sbin /sbin",
        "/bin/busybox --install -s",
        "mount -t proc proc /proc",
        "mount -t sysfs sysfs /sys",
        "mount -t devtmpfs devtmpfs /dev",
        "exec </dev/console >/dev/console 2>&1",
        "export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LC_ALL=C HOME=/tmp",
        "hostname membench-vm",
        "cd /tmp",
        "R=/dev/ttyS1",
    ]
    for i, command in enumerate(commands):
        path = "/cmd%d.sh" % i
        lines += [
            "echo 'running command %d'" % i,
            "read t0 rest </proc/uptime",
            "timeout %d sh %s >/tmp/out 2>/tmp/err; rc=$?" % (COMMAND_TIMEOUT_S, path),
            "read t1 rest </proc/uptime",
            "{ echo '%s %d BEGIN@@'; cat /tmp/out; echo; echo '%s %d STDERR@@'; "
            "cat /tmp/err; echo; echo \"%s %d RC $rc $t0 $t1@@\"; } >$R"
            % (_MARK, i, _MARK, i, _MARK, i),
        ]
    lines += ["echo '%s DONE@@' >$R" % _MARK, "sync", "poweroff -f"]
    return "\n".join(lines) + "\n"


def build_initramfs(path, commands, membench=None):
    """Write a gzip'd newc initramfs to path: busybox, membench at /usr/local/bin/membench,
    numactl (when installed), their shared libraries, /init and one script per command."""
    membench = membench or BIN
    archive = Cpio()
    for d in ("proc", "sys", "dev", "tmp", "bin", "sbin", "usr/bin", "usr/sbin",
              "usr/local/bin", "etc"):
        archive.directory(d)
    archive.chardev("dev/console", 5, 1)
    archive.chardev("dev/null", 1, 3)
    programs = [(host_tool("busybox"), "/bin/busybox"),
                (membench, "/usr/local/bin/membench")]
    for tool in OPTIONAL_TOOLS:
        if host_tool(tool):
            programs.append((host_tool(tool), "/usr/bin/" + tool))
    libraries = set()
    for host_path, guest_path in programs:
        archive.copy(host_path, guest_path)
        libraries.update(shared_libraries(host_path))
    for lib in sorted(libraries):
        archive.copy(lib)
    archive.file("init", _init_script(commands).encode())
    for i, command in enumerate(commands):
        archive.file("cmd%d.sh" % i, (command + "\n").encode(), 0o644)
    with open(path, "wb") as f:
        f.write(gzip.compress(archive.finish(), compresslevel=1))


class GuestResult:
    """One command's stdout, stderr (text) and exit status inside the guest."""

    def __init__(self, command, out, err, rc, seconds):
        self.command, self.out, self.err, self.rc = command, out, err, rc
        self.seconds = seconds

    def __repr__(self):
        return "guest command %r: rc=%d after %.1f s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            self.command, self.rc, self.seconds, self.out[-3000:], self.err[-3000:])


class GuestError(AssertionError):
    """The guest did not boot, hung, or did not report every command."""


#: One HMAT System Locality Latency and Bandwidth entry (-numa hmat-lb): from initiator (a
#: node with CPUs) to target, the access latency in ns and the access bandwidth as QEMU writes
#: it (bytes per second with a binary suffix: "20G" is what Linux and hwloc show as 20480
#: MB/s); either may be None (left out). A pair without an entry is 0 ("no figure").
HmatLb = collections.namedtuple("HmatLb", "initiator target latency_ns bandwidth")

#: One HMAT memory-side cache (-numa hmat-cache) in front of node's memory.
HmatCache = collections.namedtuple(
    "HmatCache", "node size level associativity policy line",
    defaults=("64M", 1, "direct", "write-back", 64))


class Machine:
    """A guest shape: QEMU's -smp and one NUMA node per entry of nodes (a CPU list such as
    "0-3", or None for a memory-only node), each with mem_mb of its own memory (one number
    for every node, or a list with one per node).

    hmat=True builds the ACPI HMAT (-machine q35,hmat=on): initiators ({node: node}) names
    a memory-only node's nearest node with CPUs (QEMU 7.2 boots without it, the HMAT then
    names no processor domain and Linux picks the initiator with the best figures), hmat_lb
    the HmatLb entries and hmat_caches the HmatCache memory-side caches (QEMU refuses a
    cache of a node that has no hmat-lb latency and bandwidth)."""

    def __init__(self, smp, nodes, mem_mb=256, hmat=False, initiators=None, hmat_lb=(),
                 hmat_caches=()):
        self.smp, self.nodes = smp, list(nodes)
        self.mem_mb = mem_mb
        self.hmat, self.initiators = hmat, dict(initiators or {})
        self.hmat_lb, self.hmat_caches = list(hmat_lb), list(hmat_caches)

    def cpus(self):
        return int(self.smp.split(",")[0])

    def node_mem_mb(self):
        """Each node's memory, MiB."""
        if isinstance(self.mem_mb, int):
            return [self.mem_mb] * len(self.nodes)
        if len(self.mem_mb) != len(self.nodes):
            raise ValueError("mem_mb has %d entries for %d nodes"
                             % (len(self.mem_mb), len(self.nodes)))
        return list(self.mem_mb)

    def tcg_threads(self):
        """One host thread per guest CPU when the host has a CPU for each (and one for
        QEMU); otherwise one thread for all: OpenMP threads spinning at barriers on vCPUs
        that outnumber the host's CPUs make a run several times slower."""
        return "multi" if len(os.sched_getaffinity(0)) > self.cpus() else "single"

    def numa_args(self):
        """The -object/-numa arguments of the nodes and the HMAT."""
        args = []
        for i, (cpus, mem_mb) in enumerate(zip(self.nodes, self.node_mem_mb())):
            node = "node,nodeid=%d,memdev=mem%d" % (i, i)
            if cpus is not None:
                node += ",cpus=" + cpus
            if i in self.initiators:
                node += ",initiator=%d" % self.initiators[i]
            args += ["-object", "memory-backend-ram,id=mem%d,size=%dM" % (i, mem_mb),
                     "-numa", node]
        for lb in self.hmat_lb:
            for data_type, key, value in (("access-latency", "latency", lb.latency_ns),
                                          ("access-bandwidth", "bandwidth", lb.bandwidth)):
                if value is not None:
                    args += ["-numa", "hmat-lb,initiator=%d,target=%d,hierarchy=memory,"
                             "data-type=%s,%s=%s" % (lb.initiator, lb.target, data_type, key,
                                                     value)]
        for c in self.hmat_caches:
            args += ["-numa", "hmat-cache,node-id=%d,size=%s,level=%d,associativity=%s,"
                     "policy=%s,line=%d" % (c.node, c.size, c.level, c.associativity,
                                            c.policy, c.line)]
        return args

    def qemu_args(self, kernel, initrd, console, results):
        total = sum(self.node_mem_mb())
        args = [QEMU, "-accel", "tcg,thread=" + self.tcg_threads(),
                "-machine", "q35,hmat=on" if self.hmat else "q35", "-cpu", CPU_MODEL,
                "-smp", self.smp, "-m", "%dM" % total,
                "-nographic", "-no-reboot", "-monitor", "none",
                "-serial", "file:" + console, "-serial", "file:" + results,
                "-kernel", kernel, "-initrd", initrd,
                # numa_balancing=disable: the kernel's NUMA scanner makes the pages it samples
                # inaccessible, and move_pages(2) then reports them absent (the page locality
                # tests once read 12 of 12 pages absent)
                "-append", "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init "
                           "tsc=unstable nokaslr numa_balancing=disable"]
        return args + self.numa_args()


def _tail(path, chars=4000):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")[-chars:]
    except OSError as exc:
        return "(no console output: %s)" % exc


def boot(machine, commands, timeout=BOOT_TIMEOUT_S):
    """Boot machine, run commands (shell strings) in it, return (list of GuestResult, seconds
    from start to power-off). Raises GuestError with the console's tail when the guest does
    not power off within timeout or does not report every command."""
    kernel = newest_kernel()
    with tempfile.TemporaryDirectory(prefix="membench-vm-") as scratch:
        initrd = os.path.join(scratch, "initramfs.gz")
        console = os.path.join(scratch, "console.log")
        results = os.path.join(scratch, "results.log")
        build_initramfs(initrd, commands)
        args = machine.qemu_args(kernel, initrd, console, results)
        start = time.monotonic()
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            qemu_out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.communicate()
            raise GuestError("the guest did not power off within %d s (%s); console tail:\n%s"
                             % (timeout, " ".join(args), _tail(console)))
        seconds = time.monotonic() - start
        qemu_text = qemu_out.decode("utf-8", "replace")
        with open(results, "rb") as f:
            text = f.read().decode("utf-8", "replace").replace("\r\n", "\n")
        found = {int(m.group(1)): m for m in _RESULT_RE.finditer(text)}
        if proc.returncode != 0 or "%s DONE@@" % _MARK not in text or \
                sorted(found) != list(range(len(commands))):
            raise GuestError(
                "the guest reported %d of %d commands (qemu exit %s)\n%s\n"
                "--- qemu ---\n%s\n--- console tail ---\n%s\n--- results tail ---\n%s"
                % (len(found), len(commands), proc.returncode, " ".join(args),
                   qemu_text[-2000:], _tail(console), text[-2000:]))
        return [GuestResult(commands[i], found[i].group(2), found[i].group(3),
                            int(found[i].group(4)),
                            float(found[i].group(6)) - float(found[i].group(5)))
                for i in range(len(commands))], seconds
