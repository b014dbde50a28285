"""unittest base for the VM tests: one guest per test class, booted once in setUpClass with
every command the class needs; the test methods then read the results."""

import json
import os
import re
import sys
import unittest

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
import vm_harness  # noqa: E402

#: Small runs: a few seconds each under TCG. Rates inside an emulator mean nothing; the tests
#: assert structure, placement and locality only.
SMALL = "-s 200000 -n 3"

#: Prints each command's topology as "cpuN package core siblings", "nodeN cpulist" and
#: "cacheN level size shared_cpu_list" lines (cpu0's caches): what the guest kernel reports.
SYSFS_FACTS = r"""
for c in /sys/devices/system/cpu/cpu[0-9]*; do
  t=$c/topology
  echo "${c##*/} $(cat $t/physical_package_id) $(cat $t/core_id) $(cat $t/thread_siblings_list)"
done
for n in /sys/devices/system/node/node[0-9]*; do echo "${n##*/} $(cat $n/cpulist)"; done
for i in /sys/devices/system/cpu/cpu0/cache/index*; do
  echo "cache${i##*index} $(cat $i/level) $(cat $i/size) $(cat $i/shared_cpu_list)"
done
"""


def parse_facts(text):
    """SYSFS_FACTS output as {"cpus": {os_index: (package, core_id, siblings)}, "nodes":
    {node: cpulist}, "caches": {level: (bytes, shared_cpu_list)}}."""
    facts = {"cpus": {}, "nodes": {}, "caches": {}}
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0].startswith("cpu"):
            facts["cpus"][int(words[0][3:])] = (int(words[1]), int(words[2]), words[3])
        elif words[0].startswith("node"):
            facts["nodes"][int(words[0][4:])] = words[1]
        elif words[0].startswith("cache"):
            size = re.fullmatch(r"(\d+)K", words[2])
            level = int(words[1])
            # L1 has a data and an instruction cache; the unified levels are one each.
            facts["caches"].setdefault(level, (int(size.group(1)) * 1024, words[3]))
    return facts


class GuestTestCase(unittest.TestCase):
    """Subclasses set MACHINE (a vm_harness.Machine) and COMMANDS ({name: shell command});
    membench is on the guest's PATH as `membench`, numactl as `numactl`."""

    MACHINE = None
    COMMANDS = {}
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        reason = vm_harness.skip_reason()
        if reason:
            raise unittest.SkipTest(reason)
        cls.unavailable = {n: vm_harness.missing_tools(c) for n, c in cls.COMMANDS.items()}
        cls.unavailable = {n: why for n, why in cls.unavailable.items() if why}
        names = [n for n in cls.COMMANDS if n not in cls.unavailable]
        for n, why in sorted(cls.unavailable.items()):
            sys.stderr.write("%s: guest command %s not run: %s\n" % (cls.__name__, n, why))
        results, seconds = vm_harness.boot(cls.MACHINE, [cls.COMMANDS[n] for n in names])
        cls.results = dict(zip(names, results))
        sys.stderr.write("%s: guest -smp %s, %d NUMA nodes: %.1f s from start to power-off; "
                         "in the guest: %s\n" % (
                             cls.__name__, cls.MACHINE.smp, len(cls.MACHINE.nodes), seconds,
                             ", ".join("%s %.1f s" % (n, r.seconds)
                                       for n, r in cls.results.items())))

    def result(self, name, rc=0):
        """The named command's GuestResult, asserting its exit status; the test skips when the
        command needs a program this machine lacks."""
        if name in self.unavailable:
            self.skipTest("guest command %r: %s" % (name, self.unavailable[name]))
        res = self.results[name]
        self.assertEqual(res.rc, rc, repr(res))
        return res

    def doc(self, name):
        """The named command's JSON document (it must exit 0)."""
        res = self.result(name)
        try:
            doc = json.loads(res.out)
        except ValueError as exc:
            self.fail("invalid JSON (%s)\n%r" % (exc, res))
        self.assertEqual(doc.get("schema"), 1, repr(res))
        return doc

    def run_of(self, name):
        """runs[0] of the named command, checked to be measured, valid and placed as
        planned: every thread bound, on its planned PU, none misplaced or migrated."""
        doc = self.doc(name)
        run = doc["runs"][0]
        context = repr(self.results[name])
        self.assertTrue(run["validation"]["passed"], context)
        self.assertEqual(run["threads_misplaced"], 0, context)
        self.assertFalse(run["threads_migrated"], context)
        for p in run["placement"]:
            self.assertTrue(p["bound"], context)
            self.assertEqual(p["pu"], p["planned_pu"], context)
        return run

    def facts(self):
        return parse_facts(self.result("sysfs").out)


def main():
    """Run __main__'s tests; exit 77 when everything was skipped, else 0 or 1."""
    prog = unittest.main(module="__main__", exit=False, verbosity=2)
    result = prog.result
    if result.wasSuccessful() and result.skipped and len(result.skipped) >= result.testsRun:
        sys.exit(77)
    sys.exit(0 if result.wasSuccessful() else 1)
