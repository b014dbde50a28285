"""A one-node Slurm on this machine for tests (stdlib only; needs root, munge and slurm-wlm).

LocalSlurm starts munged, slurmctld and slurmd from tests/lib/slurm.conf.in in a scratch
directory of their own (key, socket, state, spool, TmpFS, logs, pid files) on two free ports,
so a Slurm or munge already running here (another LocalSlurm too) is not disturbed; clients
reach it through SLURM_CONF, which env() sets (slurm.conf is never at the default path). stop() ends the jobs and the three daemons and
removes the scratch directory; the daemons also die with the process that started them.

    reason = unavailable_reason()       # None when a Slurm can be started here
    with LocalSlurm() as slurm:
        proc = slurm.srun(["-n", "2", "hostname"])
"""

import ctypes
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
CONF_TEMPLATE = os.path.join(_HERE, "slurm.conf.in")

#: The daemons and clients the harness runs, and the Debian packages they come from.
PROGRAMS = {"munged": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd",
            "srun": "slurm-client", "sbatch": "slurm-client", "sinfo": "slurm-client",
            "scontrol": "slurm-client", "squeue": "slurm-client", "scancel": "slurm-client"}

START_TIMEOUT_S = 60


def unavailable_reason():
    """Why a local Slurm cannot start here (a sentence), or None when it can."""
    if os.geteuid() != 0:
        return "a local Slurm needs root (slurmd runs jobs as their user)"
    missing = sorted({pkg for prog, pkg in PROGRAMS.items() if not shutil.which(prog)})
    if missing:
        return ("Slurm is not installed: apt-get install slurm-wlm munge (missing %s)"
                % ", ".join(missing))
    return None


#: Where Slurm installs its MPI plugins (Debian's multiarch directory first).
PLUGIN_GLOBS = ("/usr/lib/*/slurm-wlm/mpi_pmix*.so", "/usr/lib/*/slurm/mpi_pmix*.so",
                "/usr/lib/slurm/mpi_pmix*.so", "/usr/lib64/slurm/mpi_pmix*.so")


def pmix_unavailable_reason():
    """Why srun --mpi=pmix cannot start ranks here (a sentence), or None when it can."""
    reason = unavailable_reason()
    if reason:
        return reason
    if not any(glob.glob(pattern) for pattern in PLUGIN_GLOBS):
        return ("this Slurm has no PMIx plugin (mpi_pmix*.so in none of %s): srun --mpi=pmix "
                "needs slurm-wlm built with PMIx (Debian's is)" % ", ".join(PLUGIN_GLOBS))
    return None


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_name():
    """The short host name: slurmd is started under this name."""
    return socket.gethostname().split(".")[0]


def mem_total_mb():
    """MemTotal of /proc/meminfo in MiB, as slurmd counts RealMemory."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    raise RuntimeError("no MemTotal in /proc/meminfo")


def _die_with_parent():
    """preexec_fn: SIGTERM this daemon when the test process exits, however it exits."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class SlurmError(RuntimeError):
    """The local Slurm did not start; the message carries the daemons' log tails."""


class LocalSlurm:
    """One node (this machine) under its own slurmctld and slurmd. See the module doc."""

    def __init__(self, extra_conf=()):
        """extra_conf: lines appended to slurm.conf (e.g. HealthCheckProgram=...)."""
        self.dir = None
        self.node = node_name()
        self.conf = None
        self.extra_conf = list(extra_conf)
        self.procs = {}

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def env(self, extra=None, base=None):
        """The environment for Slurm clients: base (default: this process's) without the
        SLURM_* of an enclosing job, this cluster's slurm.conf, and extra."""
        env = {k: v for k, v in (os.environ if base is None else base).items()
               if not k.startswith("SLURM_")}
        env["SLURM_CONF"] = self.conf
        env.update(extra or {})
        return env

    def start(self):
        """Write the config and key, start the three daemons, wait until the node is idle."""
        self.dir = tempfile.mkdtemp(prefix="membench-slurm-")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self):
        d = self.dir
        for sub in ("state", "spool", "jobs", "tmp"):
            os.mkdir(os.path.join(d, sub))
        os.chmod(d, 0o755)  # jobs write their output under jobs/
        os.chmod(os.path.join(d, "jobs"), 0o1777)
        os.chmod(os.path.join(d, "tmp"), 0o1777)  # TmpFS
        key = os.path.join(d, "munge.key")
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(1024))
        fields = {"DIR": d, "NODE": self.node, "CPUS": str(os.cpu_count() or 1),
                  "MEMORY_MB": str(mem_total_mb()), "CTLD_PORT": str(free_port()),
                  "SLURMD_PORT": str(free_port())}
        with open(CONF_TEMPLATE) as f:
            text = f.read()
        text = re.sub(r"@([A-Z_]+)@", lambda m: fields[m.group(1)], text)
        text += "".join(line + "\n" for line in self.extra_conf)
        self.conf = os.path.join(d, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write(text)

        sock = os.path.join(d, "munge.socket")
        self._spawn("munged", ["munged", "--foreground", "--force", "--socket", sock,
                               "--key-file", key, "--pid-file", os.path.join(d, "munged.pid"),
                               "--log-file", os.path.join(d, "munged.log"),
                               "--seed-file", os.path.join(d, "munged.seed")])
        self._wait(lambda: os.path.exists(sock), "munged to create its socket")
        # -c: a clean state; -D: in the foreground, so stop() ends exactly these processes.
        self._spawn("slurmctld", ["slurmctld", "-D", "-c", "-f", self.conf])
        self._spawn("slurmd", ["slurmd", "-D", "-N", self.node, "-f", self.conf])
        self._wait(lambda: self.node_state() == "idle", "the node to become idle")

    def _spawn(self, name, argv):
        log = open(os.path.join(self.dir, name + ".out"), "wb")
        try:
            self.procs[name] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=self.env(), preexec_fn=_die_with_parent)
        finally:
            log.close()

    def _wait(self, ready, what):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise SlurmError("%s exited with status %d while waiting for %s\n%s"
                                     % (name, proc.returncode, what, self.logs()))
            if ready():
                return
            time.sleep(0.3)
        raise SlurmError("timed out after %d s waiting for %s\n%s"
                         % (START_TIMEOUT_S, what, self.logs()))

    def logs(self, tail=2000):
        """The last characters of every daemon's log, for failure messages."""
        parts = []
        for name in ("munged.log", "munged.out", "slurmctld.log", "slurmctld.out",
                     "slurmd.log", "slurmd.out"):
            try:
                with open(os.path.join(self.dir, name), errors="replace") as f:
                    text = f.read()[-tail:]
            except OSError:
                continue
            if text.strip():
                parts.append("--- %s ---\n%s" % (name, text))
        return "\n".join(parts)

    def run(self, argv, timeout=120, check=False, extra_env=None, base_env=None):
        """Run a command (a Slurm client, or a program that calls them) against this cluster
        in env(extra_env, base_env); a CompletedProcess of text."""
        return subprocess.run(argv, env=self.env(extra_env, base_env), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout, check=check)

    def node_state(self):
        """The node's state as sinfo prints it (idle, mixed, drained, ...), or None."""
        proc = self.run(["sinfo", "-h", "-N", "-n", self.node, "-o", "%T"], timeout=20)
        return proc.stdout.strip() or None if proc.returncode == 0 else None

    def wait_state(self, want, timeout=20):
        """Wait until the node's state is want (e.g. idle: a resumed node is idle* until
        slurmctld's ping comes back); the last state seen."""
        deadline = time.monotonic() + timeout
        state = self.node_state()
        while state != want and time.monotonic() < deadline:
            time.sleep(0.3)
            state = self.node_state()
        return state

    def node_reason(self):
        """The node's Reason as scontrol shows it, or None when it has none."""
        proc = self.run(["scontrol", "show", "node", self.node], timeout=20, check=True)
        m = re.search(r"(?m)^\s*Reason=(.*?)(?: \[[^\]]*\])?\s*$", proc.stdout)
        return m.group(1) if m else None

    def srun(self, args, timeout=180, extra_env=None, base_env=None):
        """srun ARGS on this cluster."""
        return self.run(["srun"] + list(args), timeout=timeout, extra_env=extra_env,
                        base_env=base_env)

    def sbatch(self, script, args=(), timeout=30, extra_env=None, base_env=None):
        """Submit a batch script (text) with sbatch --parsable ARGS from jobs/ of the scratch
        directory (the job's working directory; its output goes to slurm-JOBID.out there);
        the job inherits env(extra_env, base_env). Return the job id."""
        path = tempfile.NamedTemporaryFile("w", dir=self.job_dir(),
                                           suffix=".sh", delete=False)
        with path as f:
            f.write(script)
        os.chmod(path.name, 0o755)
        proc = self.run(["sbatch", "--parsable", "--chdir", self.job_dir()]
                        + list(args) + [path.name], timeout=timeout, check=True,
                        extra_env=extra_env, base_env=base_env)
        return proc.stdout.strip().split(";")[0]

    def job_dir(self):
        """jobs/ of the scratch directory: batch scripts, their output and their files."""
        return os.path.join(self.dir, "jobs")

    def wait_job(self, job_id, timeout=180):
        """Wait until the job has left the queue; the last state seen by scontrol, or None.
        (There is no accounting database: a finished job is shown for MinJobAge seconds.)"""
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            proc = self.run(["scontrol", "show", "job", job_id], timeout=20)
            m = re.search(r"JobState=(\S+)", proc.stdout)
            if proc.returncode != 0 or not m:
                return state
            state = m.group(1)
            if state not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
                return state
            time.sleep(0.5)
        raise SlurmError("job %s still %s after %d s\n%s" % (job_id, state, timeout,
                                                              self.logs()))

    def stop(self):
        """Cancel the jobs, stop the daemons (slurmd, slurmctld, munged) and remove the
        scratch directory. Safe to call more than once, and after a failed start."""
        if self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
            try:
                self.run(["scancel", "--full", "--partition", "membench"], timeout=20)
            except (subprocess.SubprocessError, OSError):
                pass
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self.procs.pop(name, None)
            if proc is None:
                continue
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
