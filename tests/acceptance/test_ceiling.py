"""The node's ceiling from its DIMMs, on real servers' SMBIOS tables (tests/fixtures/smbios:
public dmidecode dumps written back as raw entries through membench-hooked's
MEMBENCH_TEST_DMI_ENTRIES and MEMBENCH_TEST_CPUINFO): each within 1% of the vendor's published
peak for the configuration found, and docs/acceptance.md's table is what membench computes."""

import glob
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
import smbios_fixture  # noqa: E402
from membench_test import run, describe  # noqa: E402

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "docs", "acceptance.md")
FIXTURES = sorted(os.path.basename(p)[:-4]
                  for p in glob.glob(os.path.join(smbios_fixture.FIXTURES, "*.txt")))


def doc_table():
    """{fixture: (ceiling, published)} from docs/acceptance.md's ceiling table."""
    rows = {}
    with open(DOC, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\| ([a-z0-9-]+) \| [^|]+ \| (\d+) \| (\d+) \| [\d.]+% \|$", line)
            if m:
                rows[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return rows


def hooked_env(name, tmp):
    """The hooks that make fixture NAME this node's SMBIOS tables and CPU; its header."""
    header = smbios_fixture.write_entries(smbios_fixture.fixture_path(name), tmp)
    return header, {"MEMBENCH_TEST_DMI_ENTRIES": os.path.join(tmp, "entries"),
                    "MEMBENCH_TEST_CPUINFO": os.path.join(tmp, "cpuinfo")}


class CeilingTest(membench_test.MembenchTestCase):

    def hardware(self, name, fmt="json"):
        with tempfile.TemporaryDirectory() as tmp:
            header, env = hooked_env(name, tmp)
            args = ["--dry-run", "--format", fmt]
            rc, out, err = run(args, env)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        return header, (json.loads(out) if fmt == "json" else out)

    def test_every_fixture_within_1_percent_of_its_published_peak(self):
        self.assertGreaterEqual(len(FIXTURES), 7, smbios_fixture.FIXTURES)
        for name in FIXTURES:
            with self.subTest(fixture=name):
                header, doc = self.hardware(name)
                hw = doc["memory_hardware"]
                published = float(header["published_mbps"])
                self.assertTrue(hw["read"], hw)
                self.assertIsNone(hw["why_unknown"], hw)
                self.assertLessEqual(abs(hw["ceiling_mbps"] / published - 1), 0.01, hw)
                self.assertEqual(doc["provenance"]["peak_mbps"], hw["ceiling_mbps"])
                self.assertEqual(sum(s["ceiling_mbps"] for s in hw["sockets"]),
                                 hw["ceiling_mbps"], hw)

    def test_the_docs_table_is_what_membench_computes(self):
        table = doc_table()
        self.assertEqual(sorted(table), FIXTURES, "docs/acceptance.md's ceiling table")
        for name in FIXTURES:
            with self.subTest(fixture=name):
                header, doc = self.hardware(name)
                ceiling, published = table[name]
                self.assertEqual(ceiling, round(doc["memory_hardware"]["ceiling_mbps"]))
                self.assertEqual(published, int(header["published_mbps"]))

    def test_two_dimms_per_channel_count_their_channel_once(self):
        _, doc = self.hardware("skylake-2s-6ch-2dpc")
        for socket in doc["memory_hardware"]["sockets"]:
            self.assertEqual(socket["dimms"], 12, socket)
            self.assertEqual(socket["channels_populated"], 6, socket)
            self.assertEqual(socket["dimms_per_channel_max"], 2, socket)

    def test_empty_channels_are_named_in_the_header(self):
        _, text = self.hardware("genoa-1s-9of12ch", fmt="text")
        self.assertRegex(text, r"(?m)^DIMMs: 9 in 12 slots.*9 of 12 channels \(empty: F, J, L\)")
        _, doc = self.hardware("cascadelake-2s-empty-channels")
        empty = {s["id"]: s["empty_channels"] for s in doc["memory_hardware"]["sockets"]}
        self.assertEqual(empty, {1: [], 2: ["C", "F"]})

    def test_configured_below_rated_is_kept_apart(self):
        _, doc = self.hardware("cascadelake-2s-below-rated")
        for socket in doc["memory_hardware"]["sockets"]:
            self.assertEqual((socket["configured_mts"], socket["rated_mts"]), (2934, 3200))

    def test_locators_without_channels_say_how_channels_were_found(self):
        _, doc = self.hardware("milan-1s-unnamed-channels")
        hw = doc["memory_hardware"]
        self.assertEqual(hw["sockets"][0]["channels_named"], 0, hw)
        self.assertIn("assuming 1 DIMM per channel", hw["source"])
        self.assertIsNotNone(hw["cpu_channels_source"], hw)

    def test_no_tables_no_ceiling(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = ["--dry-run", "--format", "json"]
            rc, out, err = run(args, {"MEMBENCH_TEST_DMI_ENTRIES": os.path.join(tmp, "none")})
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        doc = json.loads(out)
        self.assertIsNone(doc["memory_hardware"]["ceiling_mbps"])
        self.assertTrue(doc["memory_hardware"]["why_unknown"])
        self.assertIsNone(doc["provenance"]["peak_mbps"])
        self.assertTrue(doc["provenance"]["peak_source"].startswith("unknown: "))


if __name__ == "__main__":
    membench_test.main()
