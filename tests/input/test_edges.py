# ctest: LABELS timing
"""Arithmetic and environment at the edges: byte counts that would wrap, options given values
they do not take, threads that cannot start, out-of-range references, files that would block,
topologies too large to build, time limits that cannot be kept. The refusals that are one
command line and one error line (byte counts past 2^64, a kernel expected twice) are cases of
bad_input.txt."""

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, run, describe  # noqa: E402

SANITIZED = any(os.environ.get(v) for v in ("ASAN_OPTIONS", "TSAN_OPTIONS"))


class OptionValues(MembenchTestCase):
    def test_options_without_values_given_one(self):
        for typed, name in [("--dry-run=1", "--dry-run"), ("--read=1", "--read"),
                            ("--help=1", "--help"), ("--version=x", "--version"),
                            ("--dry=1", "--dry-run"), ("--quiet=", "--quiet"),
                            ("--tlb=yes", "--tlb")]:
            with self.subTest(typed=typed):
                line = self.assert_error([typed], 2, ["option '%s' takes no value" % name,
                                                      "membench --help"])
                self.assertTrue(line.isprintable(), repr(line))


class Threads(MembenchTestCase):
    def test_threads_that_cannot_start_exit_3(self):
        if SANITIZED:
            self.skipTest("ulimit -v and the sanitizers' shadow memory do not mix")
        # 8 threads of 1 GiB stacks cannot fit under a 3 GB address-space limit
        wrapper = ["sh", "-c", 'ulimit -v 3000000 && exec "$0" "$@"']
        rc, out, err = run(["-t", "8", "-s", "1MiB", "-n", "2", "-q"],
                           {"OMP_STACKSIZE": "1G"}, timeout=60, wrapper=wrapper)
        msg = describe(["-t", "8"], rc, out, err)
        self.assertEqual(rc, 3, msg)
        self.assertIn("membench: could not start 8 threads", err, msg)
        self.assertIn("ulimit -v", err, msg)
        self.assertNotIn("libgomp", err, msg)

    def test_threads_option_wins_over_a_huge_omp_num_threads(self):
        """-t 1 with OMP_NUM_THREADS=99999: every parallel region (the validation too) runs the
        run's thread count, never the environment's (it crashed in libgomp, exit 139)."""
        rc, out, err = run(["--triad", "-t", "1", "-s", "2000000", "-n", "3", "--format",
                            "json"], {"OMP_NUM_THREADS": "99999"}, timeout=60)
        msg = describe(["-t", "1"], rc, out[:2000], err)
        self.assertEqual(rc, 0, msg)
        run0 = json.loads(out)["runs"][0]
        self.assertEqual(run0["config"]["threads"], 1, msg)
        self.assertTrue(run0["validation"]["passed"], msg)

    def test_default_threads_capped_at_4096(self):
        env = {"HWLOC_SYNTHETIC": "pack:5 core:1000 pu:1", "OMP_NUM_THREADS": None}
        rc, out, err = run(["--dry-run", "-s", "1MiB", "--format", "json"], env, timeout=120)
        msg = describe(["--dry-run"], rc, out[:2000], err)
        self.assertEqual(rc, 0, msg)
        doc = json.loads(out)
        self.assertEqual(doc["runs"][0]["config"]["threads"], 4096, msg)
        self.assertIn("at most 4096 threads", err, msg)


class References(membench_test.ReferenceFileCase):
    def write(self, system=None, rates=None, raw=None):
        doc = {"membench_reference": 1,
               "system": dict({"cpu_model": "x", "cores": 2}, **(system or {})),
               "rates_mbps": rates or {"Triad": 1000}}
        self.write_ref(raw if raw is not None else doc)

    def test_numbers_out_of_range_are_refused(self):
        for system, key in [({"cores": 4294967298}, "system.cores"),
                            ({"cores": 0}, "system.cores"),
                            ({"cores": -2}, "system.cores"),
                            ({"mem_total_bytes": -5}, "system.mem_total_bytes"),
                            ({"mem_total_bytes": "lots"}, "system.mem_total_bytes"),
                            ({"hugepages_2m_total": -7}, "system.hugepages_2m_total"),
                            ({"pus": 1e99}, "system.pus")]:
            with self.subTest(system=system):
                self.write(system=system)
                self.assert_error(["--reference", self.ref, "--dry-run"], 2, [key])
        self.write(rates={"Triad": 1e300})
        self.assert_error(["--reference", self.ref, "--dry-run"], 2, ["rates_mbps.Triad"])

    def test_duplicate_keys_are_refused(self):
        self.write(raw='{"membench_reference": 1, "rates_mbps": {"Triad": 5, "Triad": 6},'
                       ' "system": {"cpu_model": "x", "cores": 2}}')
        self.assert_error(["--reference", self.ref, "--dry-run"], 2, ["duplicate"])

    def test_what_membench_writes_is_accepted(self):
        # unknown memory (0) and an unknown 2 MB pool (-1) are what --save-reference writes
        self.write(system={"mem_total_bytes": 0, "hugepages_2m_total": -1, "pus": 4,
                           "packages": 1, "numa_nodes": 1})
        self.run_ok(["--reference", self.ref, "--dry-run", "-s", "1MiB"])

    def test_directory_is_named(self):
        self.assert_error(["--reference", self.dir.name, "--dry-run"], 2, ["is a directory"])

    def test_fifo_does_not_block(self):
        fifo = os.path.join(self.dir.name, "fifo")
        os.mkfifo(fifo)
        self.assert_error(["--reference", fifo, "--dry-run"], 2, ["not a regular file"])


class Topologies(MembenchTestCase):
    def test_xml_fifo_does_not_block(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "topo.xml")
            os.mkfifo(fifo)
            self.assert_error(["--dry-run"], 2, ["HWLOC_XMLFILE", "not a regular file"],
                              {"HWLOC_XMLFILE": fifo})
            self.assert_error(["--dry-run"], 2, ["HWLOC_XMLFILE", "is a directory"],
                              {"HWLOC_XMLFILE": d})

    def test_xml_missing_is_named_not_replaced_by_this_machine(self):
        self.assert_error(["--dry-run"], 2,
                          ["HWLOC_XMLFILE=no/such.xml cannot be read", "No such file",
                           "relative path"], {"HWLOC_XMLFILE": "no/such.xml"})

    def test_huge_synthetic_topology_is_refused_at_once(self):
        started = time.monotonic()
        self.assert_error(["--dry-run"], 2, ["1000000000 PUs", "at most 8192"],
                          {"HWLOC_SYNTHETIC": "pack:1000 core:1000 pu:1000"})
        self.assertLess(time.monotonic() - started, 20)


class TimeLimit(MembenchTestCase):
    def test_a_limit_that_cannot_be_kept_is_reported(self):
        """A first touch that outlasts --time-limit 1, on any machine: membench-hooked is
        stopped at the first touch until 1.5 s have passed since its start."""
        membench_test.skip_unless_llc_known(self)  # the warning judges the STREAM rule by it
        args = ["--time-limit", "1", "-s", "128MiB", "-t", "1", "-n", "2", "--format", "json"]
        started = time.monotonic()
        proc, before = membench_test.start_paused(args, "first touch")
        self.addCleanup(proc.kill)
        time.sleep(max(0.0, started + 1.5 - time.monotonic()))  # the limit, not a guess
        membench_test.resume(proc)
        out, err = proc.communicate(timeout=120)
        rc = proc.returncode
        msg = describe(args, rc, out, before + err)
        self.assertEqual(rc, 0, msg)
        run0 = json.loads(out)["runs"][0]
        missed = [w for w in run0["warnings"] if "could not be kept" in w]
        self.assertEqual(len(missed), 1, msg)
        self.assertIn("--time-limit 1 s", missed[0])
        self.assertIn("first touch", missed[0])
        if run0["config"]["below_stream_rule"]:
            self.assertNotIn("STREAM rule", missed[0])
            self.assertIn("smaller --size", missed[0])
        else:
            self.assertIn("STREAM rule", missed[0])


if __name__ == "__main__":
    membench_test.main()
