"""A verdict that names the likely cause, on real servers' SMBIOS tables (tests/fixtures/smbios
through MEMBENCH_TEST_DMI_ENTRIES and MEMBENCH_TEST_CPUINFO): a FAIL on the node with empty
channels names them, on a socket of mixed DIMMs names the socket and what differs; the same
FAIL on a fully populated node names nothing it cannot show; a PASS looks at no configuration. /proc and /sys are quiet fixture trees (MEMBENCH_TEST_PROC_ROOT,
MEMBENCH_TEST_SYS_ROOT) so that this machine's own load, settings and counters are not read;
the rates come from MEMBENCH_TEST_RATES, steady (MEMBENCH_TEST_SLOW_REPETITION=0)."""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
import smbios_fixture  # noqa: E402
from node_fixture import quiet_node  # noqa: E402
from membench_test import run, describe  # noqa: E402

ARGS = ["--triad", "--size", "2MB", "-n", "3", "--stores", "normal"]
RATE = {"MEMBENCH_TEST_RATES": "*:triad=200000", "MEMBENCH_TEST_SLOW_REPETITION": "0"}
FAIL = ["--expect", "triad=300000"]  # a third below: FAIL
PASS = ["--expect", "triad=150000"]
HEALTHY = ["genoa-2s-12ch-1dpc", "rome-1s-8ch-1dpc", "skylake-2s-6ch-2dpc",
           "milan-1s-unnamed-channels"]


class CausesTest(membench_test.MembenchTestCase):

    def judge(self, fixture, expect, status, fmt="json"):
        """The report of a run judged against expect on fixture's node, in fmt ("quiet":
        --quiet's one line)."""
        with tempfile.TemporaryDirectory() as tmp:
            smbios_fixture.write_entries(smbios_fixture.fixture_path(fixture), tmp)
            env = dict(RATE, MEMBENCH_TEST_DMI_ENTRIES=os.path.join(tmp, "entries"),
                       MEMBENCH_TEST_CPUINFO=os.path.join(tmp, "cpuinfo"), **quiet_node(tmp))
            args = ARGS + expect + (["--quiet"] if fmt == "quiet" else ["--format", fmt])
            rc, out, err = run(args, env)
        self.assertEqual(rc, status, describe(args, rc, out, err))
        return json.loads(out) if fmt == "json" else out

    def test_a_fail_on_empty_channels_names_them(self):
        doc = self.judge("genoa-1s-9of12ch", FAIL, 1)
        self.assertEqual(doc["diagnosed_because"], "verdict FAIL")
        causes = doc["diagnosis"]
        self.assertEqual([c["cause"] for c in causes], ["empty_channel"], causes)
        self.assertEqual(causes[0]["summary"], "socket 0 channels F, J, L empty")
        self.assertIn("9 of its 12 channels populated", causes[0]["evidence"])
        text = self.judge("genoa-1s-9of12ch", FAIL, 1, fmt="text")
        self.assertIn("Likely causes, worst first (verdict FAIL):\n"
                      "  1. socket 0 channels F, J, L empty: SMBIOS", text)
        quiet = self.judge("genoa-1s-9of12ch", FAIL, 1, fmt="quiet")
        self.assertIn("; likely: socket 0 channels F, J, L empty", quiet)

    def test_every_socket_with_an_empty_channel_is_named(self):
        doc = self.judge("cascadelake-2s-empty-channels", FAIL, 1)
        first = doc["diagnosis"][0]
        self.assertEqual(first["cause"], "empty_channel", doc["diagnosis"])
        self.assertEqual(first["summary"], "socket 2 channels C, F empty")

    def test_dimms_below_their_rated_speed_are_named(self):
        doc = self.judge("cascadelake-2s-below-rated", FAIL, 1)
        causes = {c["cause"]: c for c in doc["diagnosis"]}
        self.assertEqual(list(causes), ["dimms_below_rated_speed"], doc["diagnosis"])
        self.assertIn("2934", causes["dimms_below_rated_speed"]["evidence"])
        self.assertIn("3200", causes["dimms_below_rated_speed"]["evidence"])

    def test_a_fail_on_mixed_dimms_names_the_socket_and_what_differs(self):
        doc = self.judge("cascadelake-2s-mixed-dimms", FAIL, 1)
        causes = {c["cause"]: c for c in doc["diagnosis"]}
        self.assertIn("mixed_dimms", causes, doc["diagnosis"])
        mixed = causes["mixed_dimms"]
        self.assertEqual(mixed["summary"], "socket 1 has mixed DIMMs")
        self.assertIn("socket 1's DIMMs differ in size and speed: 4 x 32 GiB DDR4 2-rank at "
                      "2400 MT/s, 2 x 64 GiB DDR4 2-rank at 2400 MT/s (rated 2933);",
                      mixed["evidence"])
        # socket 2's DIMMs are alike: its empty channels are named, not mixed DIMMs
        self.assertEqual(causes["empty_channel"]["summary"], "socket 2 channels E, F empty")
        quiet = self.judge("cascadelake-2s-mixed-dimms", FAIL, 1, fmt="quiet")
        self.assertIn("socket 1 has mixed DIMMs", quiet)

    def test_a_fail_on_a_healthy_node_names_nothing_it_cannot_show(self):
        for fixture in HEALTHY:
            with self.subTest(fixture=fixture):
                doc = self.judge(fixture, FAIL, 1)
                self.assertEqual(doc["diagnosed_because"], "verdict FAIL")
                self.assertEqual(doc["diagnosis"], [])
                text = self.judge(fixture, FAIL, 1, fmt="text")
                self.assertIn("Likely causes (verdict FAIL): none found", text)

    def test_a_pass_looks_at_no_configuration(self):
        for fixture in ["genoa-1s-9of12ch", "cascadelake-2s-below-rated",
                        "cascadelake-2s-mixed-dimms"] + HEALTHY:
            with self.subTest(fixture=fixture):
                doc = self.judge(fixture, PASS, 0)
                self.assertIsNone(doc["diagnosed_because"])
                self.assertEqual(doc["diagnosis"], [])
                self.assertNotIn("Likely causes", self.judge(fixture, PASS, 0, fmt="text"))


if __name__ == "__main__":
    membench_test.main()
