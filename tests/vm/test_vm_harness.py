# ctest: LABELS vm
"""The VM harness itself: the initramfs holds what membench needs, and a guest that does not
power off in time fails with its console instead of hanging ctest."""

import gzip
import os
import sys
import tempfile
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm_case  # noqa: E402
import vm_harness  # noqa: E402


def cpio_names(data):
    """The member names of a newc archive."""
    names, pos = [], 0
    while True:
        assert data[pos:pos + 6] == b"070701", "bad cpio header at %d" % pos
        size = int(data[pos + 54:pos + 62], 16)
        name_size = int(data[pos + 94:pos + 102], 16)
        name = data[pos + 110:pos + 110 + name_size - 1].decode()
        if name == "TRAILER!!!":
            return names
        names.append(name)
        pos += 110 + name_size
        pos += -pos % 4
        pos += size
        pos += -pos % 4


class HarnessTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        reason = vm_harness.skip_reason()
        if reason:
            raise unittest.SkipTest(reason)

    def test_initramfs_holds_membench_and_every_library_it_loads(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "initramfs.gz")
            vm_harness.build_initramfs(path, ["membench --version"])
            with open(path, "rb") as f:
                names = set(cpio_names(gzip.decompress(f.read())))
        for name in ("init", "cmd0.sh", "bin/busybox", "usr/local/bin/membench",
                     "dev/console"):
            self.assertIn(name, names)
        libs = vm_harness.shared_libraries(vm_harness.BIN)
        self.assertTrue(any("libhwloc" in lib for lib in libs), libs)
        numactl = vm_harness.host_tool("numactl")
        if numactl:
            self.assertIn("usr/bin/numactl", names)
            libs += vm_harness.shared_libraries(numactl)
            self.assertTrue(any("libnuma" in lib for lib in libs), libs)
        else:
            self.assertNotIn("usr/bin/numactl", names)
        for lib in libs:
            self.assertIn(lib.lstrip("/"), names)

    def test_commands_needing_a_missing_program_are_named(self):
        with mock.patch.dict(os.environ, {vm_harness.HIDE_VARIABLE: "numactl"}):
            why = vm_harness.missing_tools("numactl --membind=1 membench -t 2")
            self.assertIsNone(vm_harness.missing_tools("membench --bind numa -t 2"))
        self.assertIn("numactl not found", why)
        self.assertIn("apt-get install numactl", why)
        with mock.patch.dict(os.environ,
                             {vm_harness.HIDE_VARIABLE: "numactl,lstopo-no-graphics"}):
            why = vm_harness.missing_tools("lstopo-no-graphics --memattrs")
        self.assertIn("lstopo-no-graphics not found", why)
        self.assertIn("apt-get install hwloc", why)
        self.assertNotIn("numactl", why)

    def test_initramfs_holds_lstopo_when_installed(self):
        lstopo = vm_harness.host_tool("lstopo-no-graphics")
        if not lstopo:
            self.skipTest("lstopo-no-graphics not found: apt-get install hwloc")
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "initramfs.gz")
            vm_harness.build_initramfs(path, ["lstopo-no-graphics"])
            with open(path, "rb") as f:
                names = set(cpio_names(gzip.decompress(f.read())))
        self.assertIn("usr/bin/lstopo-no-graphics", names)
        for lib in vm_harness.shared_libraries(lstopo):
            self.assertIn(lib.lstrip("/"), names)

    def test_a_guest_that_does_not_finish_fails_in_time(self):
        machine = vm_harness.Machine("2,sockets=2,cores=1,threads=1", ["0", "1"], mem_mb=128)
        start = time.monotonic()
        with self.assertRaises(vm_harness.GuestError) as caught:
            vm_harness.boot(machine, ["sleep 600"], timeout=6)
        self.assertLess(time.monotonic() - start, 60)
        self.assertIn("did not power off within 6 s", str(caught.exception))
        self.assertIn("console tail", str(caught.exception))


def numa_options(args):
    """The values of a QEMU command line's -numa options, in order."""
    return [args[i + 1] for i, a in enumerate(args) if a == "-numa"]


class MachineArgsTest(unittest.TestCase):
    """The QEMU command line a Machine makes (no QEMU needed)."""

    def args(self, machine):
        return machine.qemu_args("vmlinuz", "initrd", "console", "results")

    def test_plain_nodes_each_with_cpus_and_the_same_memory(self):
        args = self.args(vm_harness.Machine("2,sockets=2,cores=1,threads=1", ["0", "1"],
                                            mem_mb=128))
        self.assertEqual(args[args.index("-machine") + 1], "q35")
        self.assertEqual(args[args.index("-m") + 1], "256M")
        self.assertEqual(numa_options(args), ["node,nodeid=0,memdev=mem0,cpus=0",
                                              "node,nodeid=1,memdev=mem1,cpus=1"])
        self.assertIn("memory-backend-ram,id=mem1,size=128M", args)

    def test_memory_only_node_with_its_own_size_and_initiator(self):
        machine = vm_harness.Machine("2,sockets=2,cores=1,threads=1", ["0", "1", None],
                                     mem_mb=[256, 256, 512], initiators={2: 0})
        args = self.args(machine)
        self.assertEqual(args[args.index("-m") + 1], "1024M")
        self.assertEqual(numa_options(args)[2], "node,nodeid=2,memdev=mem2,initiator=0")
        self.assertIn("memory-backend-ram,id=mem2,size=512M", args)
        with self.assertRaises(ValueError):
            vm_harness.Machine("2", ["0", None], mem_mb=[256]).qemu_args("k", "i", "c", "r")

    def test_hmat_latency_bandwidth_then_memory_side_caches(self):
        machine = vm_harness.Machine(
            "2,sockets=2,cores=1,threads=1", ["0", "1", None], hmat=True, initiators={2: 0},
            hmat_lb=[vm_harness.HmatLb(1, 1, 100, "20G"), vm_harness.HmatLb(0, 2, None, "40G")],
            hmat_caches=[vm_harness.HmatCache(1)])
        args = self.args(machine)
        self.assertEqual(args[args.index("-machine") + 1], "q35,hmat=on")
        lb = "hmat-lb,initiator=%d,target=%d,hierarchy=memory,data-type=access-"
        self.assertEqual(numa_options(args)[3:], [
            (lb + "latency,latency=100") % (1, 1),
            (lb + "bandwidth,bandwidth=20G") % (1, 1),
            (lb + "bandwidth,bandwidth=40G") % (0, 2),
            "hmat-cache,node-id=1,size=64M,level=1,associativity=direct,policy=write-back,"
            "line=64"])
        self.assertEqual(args[-2], "-numa", "QEMU wants the caches after the hmat-lb entries")


if __name__ == "__main__":
    vm_case.main()
