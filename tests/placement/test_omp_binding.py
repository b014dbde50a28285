# ctest: LABELS races
"""OpenMP's own binding variables (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY): libgomp
pins the initial thread before main(); membench must still see every CPU the process was
launched on, default to one thread per core, let --bind override, and keep taskset's limits."""

import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import MembenchTestCase, SMALL, topology  # noqa: E402

ALLOWED = sorted(os.sched_getaffinity(0))
FIRST_TWO = "%d %d" % tuple(ALLOWED[:2]) if len(ALLOWED) >= 2 else "0 1"

#: Each alone and in the combinations sites export.
CASES = [
    {"OMP_PROC_BIND": "true"},
    {"OMP_PROC_BIND": "spread"},
    {"OMP_PROC_BIND": "close"},
    {"OMP_PLACES": "cores"},
    {"GOMP_CPU_AFFINITY": FIRST_TWO},
    {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"},
    {"OMP_PROC_BIND": "spread", "OMP_PLACES": "threads"},
    {"OMP_PROC_BIND": "true", "GOMP_CPU_AFFINITY": FIRST_TWO},
]

#: The machine facts that must not depend on the OpenMP variables.
FACTS = ("cpus_usable", "cpus_restricted", "packages", "numa_nodes", "cores", "pus",
         "llc_count", "llc_bytes_total")

#: The default thread count comes from the topology, not from the suite's OMP_NUM_THREADS=2.
NO_COUNT = {"OMP_NUM_THREADS": None}


#: The runtime states each thread's affinity (OpenMP 5.0): libgomp on stderr, libomp on stdout.
DISPLAY = {"OMP_DISPLAY_AFFINITY": "true",
           "OMP_AFFINITY_FORMAT": "membench-test thread %n affinity %A"}
DISPLAYED = re.compile(r"^membench-test thread (\d+) affinity ([0-9,-]+)\n", re.M)


def runtime_affinity(out):
    """{thread: set of CPUs} from the OMP_DISPLAY_AFFINITY lines ("0,1", "0-3,8")."""
    stated = {}
    for m in DISPLAYED.finditer(out):
        cpus = set()
        for part in m.group(2).split(","):
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
        stated[int(m.group(1))] = cpus
    return stated


def label(case):
    return " ".join("%s=%s" % kv for kv in sorted(case.items()))


def hwloc_list(cpus):
    """Two or one CPUs as hwloc prints a set: "3", "0-1", "0,2"."""
    if len(cpus) == 2 and cpus[1] == cpus[0] + 1:
        return "%d-%d" % (cpus[0], cpus[1])
    return ",".join(str(c) for c in cpus)


def facts(doc):
    return {k: doc["system"][k] for k in FACTS}


class OpenMPVariablesTest(MembenchTestCase):

    def setUp(self):
        super().setUp()
        if len(ALLOWED) < 2:
            self.skipTest("needs 2 CPUs to tell a pinned thread 0 from the whole process; "
                          "this process may use %d" % len(ALLOWED))

    def dry(self, env, args=("--size", "2000000")):
        """A plan; on this machine with a fixed size (4x its LLC may not fit in memory)."""
        return self.run_json(["--dry-run"] + list(args), env_extra=env)

    def test_dry_run_sees_every_cpu_and_core(self):
        """Usable PUs, cores, LLC and the default thread count are those of a run without
        the variables (before: 'Usable PUs: 0 only', 1 core, 1 thread)."""
        base = self.dry(NO_COUNT)
        for case in CASES:
            with self.subTest(label(case)):
                doc = self.dry(dict(NO_COUNT, **case))
                self.assertEqual(facts(doc), facts(base))
                config = doc["runs"][0]["config"]
                self.assertEqual(config["threads"], base["runs"][0]["config"]["threads"])
                self.assertEqual(config["threads_from"], "physical cores")
                self.assertEqual(config["bind"], "openmp-env")
                out, _ = self.run_ok(["--dry-run", "-s", "2000000"],
                                     env_extra=dict(NO_COUNT, **case))
                self.assertNotIn("Usable PUs", out)
        doc = self.dry({"OMP_NUM_THREADS": "2", "OMP_PROC_BIND": "true"})
        self.assertEqual(facts(doc), facts(base))
        self.assertEqual(doc["runs"][0]["config"]["threads"], 2)
        self.assertEqual(doc["runs"][0]["config"]["threads_from"], "OMP_NUM_THREADS")


    def test_bind_compact_overrides_onto_two_pus(self):
        """-t 2 --bind compact: two distinct PUs, bound and verified (before: both on PU 0)."""
        for case in CASES:
            with self.subTest(label(case)):
                doc = self.run_json(SMALL + ["-t", "2", "--bind", "compact"], env_extra=case)
                run0 = doc["runs"][0]
                placement = run0["placement"]
                pus = [p["pu"] for p in placement]
                self.assertEqual(len(set(pus)), 2, placement)
                self.assertEqual(pus, [p["planned_pu"] for p in placement])
                self.assertTrue(all(p["bound"] for p in placement), placement)
                self.assertTrue(set(pus) <= set(ALLOWED))
                self.assertEqual(run0["threads_misplaced"], 0)
                self.assertTrue(run0["validation"]["passed"])

    def test_openmp_places_the_threads_and_membench_reports_where(self):
        """Without --bind OpenMP's binding is kept and reported as the runtime states it
        (OMP_DISPLAY_AFFINITY): a thread the runtime bound to one CPU ran there, bound; one
        given a wider place is reported unbound, on a CPU of that place. An explicit list
        (GOMP_CPU_AFFINITY, reversed: thread 0 on the second CPU) binds in every runtime
        (libgomp; libomp, whose default places follow its own reading of the cores)."""
        base_threads = self.dry(NO_COUNT)["runs"][0]["config"]["threads"]
        reverse = "%d %d" % (ALLOWED[1], ALLOWED[0])
        for case in ({"OMP_PROC_BIND": "close"}, {"OMP_PROC_BIND": "spread"},
                     {"GOMP_CPU_AFFINITY": reverse}):
            with self.subTest(label(case)):
                out, err = self.run_ok(SMALL + ["--format", "json"],
                                       env_extra={**NO_COUNT, **DISPLAY, **case})
                stated = runtime_affinity(err + out)
                run0 = json.loads(DISPLAYED.sub("", out))["runs"][0]
                self.assertEqual(run0["config"]["bind"], "openmp-env")
                self.assertEqual(run0["config"]["threads"], base_threads)
                placement = run0["placement"]
                self.assertEqual(len(placement), base_threads)
                for p in placement:
                    where = stated.get(p["thread"])
                    self.assertIsNotNone(where, "the runtime stated no affinity for thread "
                                         "%d:\n%s" % (p["thread"], err + out))
                    self.assertIn(p["pu"], where, (p, out))
                    self.assertEqual(p["bound"], len(where) == 1, (p, out))
                self.assertTrue({p["pu"] for p in placement} <= set(ALLOWED))
                if "GOMP_CPU_AFFINITY" in case:
                    pus = [p["pu"] for p in placement]
                    self.assertEqual(pus[:2], [ALLOWED[1], ALLOWED[0]], err)
                    self.assertTrue(all(p["bound"] for p in placement), placement)
                self.assertTrue(run0["validation"]["passed"])

    def test_taskset_set_is_kept_exactly(self):
        """taskset's CPUs stay the limit under the variables: one CPU gives that CPU only (both
        threads on it), two CPUs give both (before: only the first)."""
        if not shutil.which("taskset"):
            self.skipTest("taskset is not installed")
        for cpus in ([ALLOWED[0]], [ALLOWED[-1]], ALLOWED[:2]):
            for case in ({"OMP_PROC_BIND": "true"}, {"OMP_PLACES": "cores"}):
                text = ",".join(str(c) for c in cpus)
                with self.subTest(taskset=text, env=label(case)):
                    args = (["taskset", "-c", text] + membench_test.command(membench_test.BIN)
                            + SMALL + ["--copy", "-t", "2", "--format", "json"])
                    proc = subprocess.run(args, env=membench_test.make_env(case),
                                          capture_output=True, text=True, timeout=120)
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    doc = json.loads(proc.stdout)
                    self.assertEqual(doc["system"]["cpus_usable"], hwloc_list(cpus))
                    placed = {p["pu"] for p in doc["runs"][0]["placement"]}
                    self.assertTrue(placed <= set(cpus), doc["runs"][0]["placement"])
                    if len(cpus) == 1:
                        self.assertEqual(doc["system"]["pus"], 1)

    def test_multi_socket_llc_not_shrunk(self):
        """On a two-socket topology the LLC used for sizing and the cores stay those of both
        sockets. HWLOC_THISSYSTEM=1 makes the process binding count, as on a real node
        (before: one socket, one L3); XML topologies of real nodes are checked too."""
        two_sockets = {"HWLOC_SYNTHETIC": "pack:2 l3:1(size=32MiB) core:1 pu:1",
                       "HWLOC_THISSYSTEM": "1"}
        envs = [two_sockets] + [{"HWLOC_XMLFILE": topology(name)}
                                for name in ("two-socket-ccx.xml", "xeon-e5-2670-2s.xml")]
        for env in envs:
            base = self.dry(dict(NO_COUNT, **env), args=())
            base_run = base["runs"][0]["config"]
            for case in ({"OMP_PROC_BIND": "true"}, {"OMP_PLACES": "cores"},
                         {"GOMP_CPU_AFFINITY": "0"}):
                with self.subTest(topology=label(env), env=label(case)):
                    doc = self.dry(dict(NO_COUNT, **dict(env, **case)), args=())
                    self.assertEqual(facts(doc), facts(base))
                    config = doc["runs"][0]["config"]
                    self.assertEqual(config["threads"], base_run["threads"])
                    self.assertEqual(config["llc_bytes_used"], base_run["llc_bytes_used"])
                    self.assertEqual(config["array_elements"], base_run["array_elements"])


if __name__ == "__main__":
    membench_test.main()
