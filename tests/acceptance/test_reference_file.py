"""What a --reference file may be: keys are matched ignoring case ("triad" is Triad), so two
keys of one object that differ only in case are refused (exit 2, naming both), not settled by
whichever comes first; and a file larger than 1 MiB (a reference is a few KiB) is refused before
it is read, where the code before this test parsed 100 MB for 48 s even under --dry-run."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

FOUR = {"Copy": 1.0, "Scale": 1.0, "Add": 1.0, "Triad": 1.0}
DRY = ["--dry-run", "--size", "100000"]
MIB = 1 << 20


def reference(rates=None, **extra):
    doc = {"membench_reference": 1, "rates_mbps": dict(FOUR) if rates is None else rates,
           "system": {"cpu_model": "x", "cores": 2}}
    doc.update(extra)
    return doc


class Raw(str):
    """JSON text already written, put into text_of as it is."""


def text_of(pairs):
    """A JSON object written from (key, value) pairs in order: duplicate keys kept."""
    return Raw("{%s}" % ", ".join("%s: %s" % (json.dumps(k), v if isinstance(v, Raw) else
                                              json.dumps(v)) for k, v in pairs))


class CaseDuplicatesTest(membench_test.ReferenceFileCase):

    def assert_refused(self, text, words):
        self.write_ref(text)
        line = self.assert_error(DRY + ["--reference", self.ref], 2,
                                 [self.ref, "differ only in case"] + words)
        return line

    def test_rates_triad_and_triad(self):
        for later in ("triad", "TRIAD"):
            with self.subTest(later=later):
                rates = text_of(list(FOUR.items()) + [(later, 2.0)])
                doc = text_of([("membench_reference", 1), ("rates_mbps", rates),
                               ("system", reference()["system"])])
                self.assert_refused(doc, ["'rates_mbps'", "'Triad'", "'%s'" % later])

    def test_kernel_stores_and_spread(self):
        stores = text_of([("Copy", "nt"), ("copy", "normal")])
        self.assert_refused(json.dumps(reference())[:-1] + ', "profile": {"kernel_stores": '
                            + stores + "}}", ["'kernel_stores'", "'Copy'", "'copy'"])
        spread = text_of([("Add", 1.0), ("ADD", 2.0)])
        self.assert_refused(json.dumps(reference())[:-1] + ', "run_spread_pct": ' + spread + "}",
                            ["'run_spread_pct'", "'ADD'", "'Add'"])

    def test_top_level_keys(self):
        doc = json.dumps(reference())[:-1] + ', "System": {"cpu_model": "y", "cores": 4}}'
        self.assert_refused(doc, ["top level", "'System'", "'system'"])

    def test_distinct_keys_are_accepted(self):
        self.write_ref(reference())
        rc, out, err = membench_test.run(DRY + ["--reference", self.ref])
        self.assertEqual(rc, 0, membench_test.describe(DRY, rc, out, err))


class SizeCapTest(membench_test.ReferenceFileCase):

    def padded(self, size):
        """A valid reference, padded with spaces to size bytes."""
        text = json.dumps(reference())
        self.write_ref(text + " " * (size - len(text)))
        self.assertEqual(os.path.getsize(self.ref), size)

    def test_one_mib_is_read(self):
        self.padded(MIB)
        rc, out, err = membench_test.run(DRY + ["--reference", self.ref])
        self.assertEqual(rc, 0, membench_test.describe(DRY, rc, out, err))

    def test_one_byte_more_is_refused(self):
        self.padded(MIB + 1)
        self.assert_error(DRY + ["--reference", self.ref], 2,
                          [self.ref, "larger than 1024 KiB", "--save-reference"])

    def test_100_mb_is_refused_without_reading_it(self):
        """A sparse 100 MB file: refused by its size, as fast as a small one."""
        self.write_ref("")
        os.truncate(self.ref, 100 * 1000 * 1000)
        self.assert_error(DRY + ["--reference", self.ref], 2, [self.ref, "larger than 1024 KiB"])


if __name__ == "__main__":
    membench_test.main()
