"""Tier-qualified rates: --expect TIER:KERNEL=MB/s and a reference's "tier_rates". A tier the
node lacks is a FAIL naming it; on a node of one tier the run measured that tier and its rates
are checked; a tier among several that no run measured alone is INCONCLUSIVE, never PASS."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

RUN = ["--size", "2000000", "--ntimes", "3"]
#: hwloc's own test topology (BSD licence): KNL SNC4 hybrid, a DRAM and an MCDRAM tier
KNL = membench_test.topology("64intel64-fakeKNL-SNC4-hybrid.xml")
#: hwloc's 4 nodes behind memory-side caches: no HMAT figure at all
NO_HMAT = membench_test.topology("memorysidecaches.xml")


class TierRatesTest(membench_test.ReferenceFileCase):

    def checks(self, args, status, env=None):
        args = RUN + args + ["--format", "json"]
        rc, out, err = membench_test.run(args, env_extra=env)
        self.assertEqual(rc, status, membench_test.describe(args, rc, out, err))
        doc = json.loads(out)
        return {c["name"]: c for c in doc["acceptance"]["checks"]}, doc

    def test_expect_missing_tier_fails_naming_it(self):
        checks, _ = self.checks(["--expect", "nosuchtier:triad=1"], 1)
        c = checks["tier nosuchtier"]
        self.assertEqual(c["verdict"], "FAIL")
        self.assertEqual(c["measured"], "missing")

    def test_expect_the_only_tier_is_checked(self):
        _, doc = self.checks(["--expect", "triad=1"], 0)
        tiers = doc["memory"]["tiers"]
        if len(tiers) != 1:
            self.skipTest("this machine has %d memory tiers" % len(tiers))
        name = tiers[0]["name"]
        checks, _ = self.checks(["--expect", "%s:triad=1" % name.upper()], 0)
        self.assertEqual(checks["%s Triad" % name]["verdict"], "PASS")
        checks, _ = self.checks(["--expect", "%s:triad=1e9" % name], 1)
        self.assertEqual(checks["%s Triad" % name]["verdict"], "FAIL")

    def test_reference_missing_tier_fails(self):
        self.write_ref({"membench_reference": 1, "rates_mbps": {"Triad": 1.0},
                        "system": {"cpu_model": "x", "cores": 1},
                        "tier_rates": {"hbm": {"nodes": "4-7", "rates_mbps": {"Triad": 9e4}}}})
        checks, _ = self.checks(["--reference", self.ref], 1)
        self.assertEqual(checks["tier hbm"]["verdict"], "FAIL")
        self.assertIn("nodes 4-7", checks["tier hbm"]["expected"])

    def test_reference_bad_tier_rates_refused(self):
        for bad in ({"hbm": {"rates_mbps": {"Triad": -1}}}, {"hbm": {"rates_mbps": {"Nope": 1}}},
                    {"hbm": 5}, []):
            with self.subTest(bad=bad):
                self.write_ref({"membench_reference": 1, "rates_mbps": {"Triad": 1.0},
                                "system": {"cpu_model": "x", "cores": 1}, "tier_rates": bad})
                self.assert_error(["--dry-run"] + RUN + ["--reference", self.ref], 2,
                                  [self.ref, "'tier_rates'"])

    def test_unmeasured_tier_is_inconclusive(self):
        checks, _ = self.checks(["--expect", "mcdram:triad=1"], 1, {"HWLOC_XMLFILE": KNL})
        c = checks["mcdram Triad"]
        self.assertEqual(c["verdict"], "INCONCLUSIVE")
        self.assertIn("not measured", c["why"])

    def test_a_share_of_hmat_needs_the_firmware_figure(self):
        # the KNL's firmware gives both tiers' bandwidth: the expectation is accepted
        for tier in ("dram", "mcdram"):
            with self.subTest(tier=tier):
                out, _ = self.run_ok(["--dry-run", "-s", "1MiB", "--expect",
                                      "%s:triad=80%%hmat" % tier], {"HWLOC_XMLFILE": KNL})
        # without HMAT there is nothing to compare with: exit 3, naming the tier and the fix
        self.assert_error(["--dry-run", "-s", "1MiB", "--expect", "local:triad=80%hmat"], 3,
                          ["local:triad=80%hmat", "no bandwidth to tier local", "nodes 0-3",
                           "no HMAT figure", "local:triad=90000"],
                          env_extra={"HWLOC_XMLFILE": NO_HMAT})


if __name__ == "__main__":
    membench_test.main()
