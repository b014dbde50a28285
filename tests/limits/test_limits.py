"""Resource limits: a memory cgroup smaller than the arrays is exit 3 naming the cgroup, before
anything is allocated (the batch system would OOM-kill the run otherwise)."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase  # noqa: E402

LIMIT = 512 << 20


def memory_cgroup_dir():
    """This process's memory cgroup directory (v1 memory controller or v2), or None."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None, None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and "memory" in parts[1].split(","):
            return "/sys/fs/cgroup/memory" + parts[2], "memory.limit_in_bytes"
    for line in lines:
        if line.startswith("0::"):
            return "/sys/fs/cgroup" + line[3:], "memory.max"
    return None, None


class CgroupLimitTest(MembenchTestCase):

    def setUp(self):
        super().setUp()
        parent, self.limit_file = memory_cgroup_dir()
        if not parent:
            self.skipTest("no memory cgroup visible")
        self.cg = os.path.join(parent, "membench-test-%d" % os.getpid())
        try:
            os.mkdir(self.cg)
            with open(os.path.join(self.cg, self.limit_file), "w") as f:
                f.write(str(LIMIT))
        except OSError as exc:
            if os.path.isdir(self.cg):
                os.rmdir(self.cg)
            self.skipTest("cannot create a memory cgroup here (%s)" % exc)

    def tearDown(self):
        if os.path.isdir(self.cg):
            os.rmdir(self.cg)

    def run_in_cgroup(self, args):
        script = 'echo $$ > "%s/cgroup.procs" && exec "$@"' % self.cg
        cmd = ["sh", "-c", script, "sh"] + membench_test.command(membench_test.BIN) + args
        return subprocess.run(cmd, env=membench_test.make_env(), capture_output=True, text=True,
                              timeout=60)

    def test_too_big_for_the_cgroup(self):
        proc = self.run_in_cgroup(["--size", "1GiB", "--dry-run"])
        self.assertEqual(proc.returncode, 3, proc.stderr)
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("memory cgroup", lines[0])
        self.assertIn("limit 512.0 MiB", lines[0])

    def test_fits_and_is_reported(self):
        proc = self.run_in_cgroup(["--size", "8MiB", "-n", "3", "--format", "json"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        system = json.loads(proc.stdout)["system"]
        self.assertEqual(system["cgroup_memory_limit_bytes"], LIMIT)
        self.assertLessEqual(system["cgroup_memory_headroom_bytes"], LIMIT)

    def test_tlb_plan_within_the_cgroups_share(self):
        """The TLB probe's default plan takes 10% of what the cgroup allows, not of MemAvailable:
        the 4 KB sweep cut to fit beside the stride probe's few MiB, the throughput phase left
        out, the note saying so."""
        proc = self.run_in_cgroup(["--tlb", "--dry-run", "--format", "json"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        cost = json.loads(proc.stdout)["tlb"]["cost"]
        self.assertEqual(cost["basis"], "cgroup_headroom")
        self.assertLessEqual(cost["basis_bytes"], LIMIT)
        self.assertLessEqual(cost["peak_bytes"], cost["bound_bytes"])
        self.assertEqual([p["part"] for p in cost["parts"]], ["sweep", "stride_probe"])
        self.assertIn("this process's memory cgroup still allows", cost["note"])
        self.assertIn("--tlb-max-pages N", cost["note"])


if __name__ == "__main__":
    membench_test.main()
