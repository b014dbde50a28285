"""What the cluster tests share: the MPI build check, Open MPI's environment for root on one
small machine, and a sampler of a rank's CPU time."""

import os
import shutil

import membench_test
from membench_test import MembenchTestCase

#: Open MPI as root, more ranks than CPUs, no CMA (not allowed in containers).
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}


def shortfall(node):
    """A node row's reason without the likely causes that may follow it: ranks that share this
    machine's CPUs are other work to each other, and each node's report says so."""
    reason, _, likely = node["reason"].partition("; likely: ")
    if likely:
        assert likely.strip(), node["reason"]
    return reason


def mpi_env(extra=None):
    """The test environment (membench_test.make_env) with MPI_ENV and extra."""
    return membench_test.make_env({**MPI_ENV, **(extra or {})})


class MpiTestCase(MembenchTestCase):
    """Skips unless this is an MPI build (-DMEMBENCH_MPI=ON) and mpirun is installed."""

    def setUp(self):
        super().setUp()
        if os.environ.get("MEMBENCH_MPI_BUILD") != "1":
            self.skipTest("not an MPI build (configure with -DMEMBENCH_MPI=ON)")
        if not shutil.which("mpirun"):
            self.skipTest("mpirun not installed (apt-get install openmpi-bin)")
        membench_test.skip_under_emulation(
            self, "not tried: every rank would be an emulated process under the host's mpirun, "
            "and the cluster tests' deadlines and verdicts rest on timing (" + membench_test.TIMING
            + ")")


#: Runs argv[2:] and samples its CPU time (utime + stime from /proc) every 0.1 s into the file
#: argv[1]/PREFIX<rank>, PREFIX and rank from the launcher (Open MPI's world rank as "rank",
#: Slurm's task id as "task"): one "wall_s cpu_s" line per sample.
CPU_SAMPLER = r"""
import os, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
tick = os.sysconf("SC_CLK_TCK")
start = time.monotonic()
child = subprocess.Popen(cmd)
samples = []
while child.poll() is None:
    try:
        with open("/proc/%d/stat" % child.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        samples.append((time.monotonic() - start, (int(fields[11]) + int(fields[12])) / tick))
    except (OSError, IndexError, ValueError):
        pass
    time.sleep(0.1)
if "OMPI_COMM_WORLD_RANK" in os.environ:
    name = "rank" + os.environ["OMPI_COMM_WORLD_RANK"]
else:
    name = "task" + os.environ.get("SLURM_PROCID", "x")
with open(os.path.join(out, name), "w") as f:
    f.writelines("%f %f\n" % s for s in samples)
sys.exit(child.returncode)
"""
