"""Bad command lines: exit 2, nothing on stdout, one 'membench: ' line naming the problem."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import membench_test  # noqa: E402


# (test name, arguments, extra environment, words the error line must contain)
CASES = [
    ("unknown_long_option", ["--bogus"], None, ["--bogus", "unknown option"]),
    ("unknown_short_option", ["-x"], None, ["'-x'", "unknown option"]),
    ("missing_value_size", ["--size"], None, ["--size", "value"]),
    ("missing_value_output", ["-o"], None, ["-o", "value"]),
    ("missing_value_type", ["--copy", "--type"], None, ["--type", "value"]),
    ("positional_argument", ["foo"], None, ["'foo'"]),
    ("size_zero", ["--size", "0"], None, ["--size", "'0'", "zero"]),
    ("size_negative", ["--size", "-5"], None, ["--size", "'-5'", "negative"]),
    ("size_not_a_number", ["--size", "abc"], None, ["--size", "'abc'"]),
    ("size_fractional_elements", ["--size", "1.5"], None,
     ["--size", "'1.5'", "fractional"]),
    ("size_unknown_multiplier", ["--size", "4xFOO"], None, ["--size", "4xFOO", "unit"]),
    ("size_unknown_unit", ["--size", "10QB"], None, ["--size", "10QB", "unit"]),
    ("size_exponent_not_a_unit", ["--size", "1e9"], None, ["--size", "1e9"]),
    ("size_inf", ["--size", "inf"], None, ["--size", "'inf'"]),
    ("size_nan", ["--size", "nan"], None, ["--size", "'nan'"]),
    ("size_overflow", ["--size", "99999999999999999999999"], None,
     ["--size", "99999999999999999999999", "too large"]),
    ("size_empty", ["--size", ""], None, ["--size", "empty"]),
    ("size_empty_list_item", ["--size", "1GiB,,2GiB"], None,
     ["--size", "1GiB,,2GiB", "empty"]),
    ("size_below_one_element", ["--size", "1B"], None, ["--size", "'1B'"]),
    ("threads_zero", ["--threads", "0"], None, ["--threads", "'0'", "4096"]),
    ("threads_negative", ["--threads", "-1"], None, ["--threads", "'-1'"]),
    ("threads_trailing_garbage", ["--threads", "1x"], None, ["--threads", "'1x'"]),
    ("threads_too_many", ["--threads", "5000"], None, ["--threads", "'5000'", "4096"]),
    ("threads_empty_list_item", ["-t", "1,,2"], None, ["--threads", "empty"]),
    ("ntimes_one", ["--ntimes", "1"], None, ["--ntimes", "'1'", "2"]),
    ("ntimes_zero", ["--ntimes", "0"], None, ["--ntimes", "'0'"]),
    ("ntimes_not_a_number", ["-n", "abc"], None, ["--ntimes", "'abc'"]),
    ("type_int", ["--type", "int"], None, ["--type", "int", "double"]),
    ("format_xml", ["--format", "xml"], None, ["--format", "xml", "json"]),
    ("offset_negative", ["--offset", "-1"], None, ["--offset", "'-1'"]),
    ("offset_huge", ["--offset", "99999999999999999999"], None,
     ["--offset", "99999999999999999999"]),
    ("stores_weird", ["--stores", "weird"], None, ["--stores", "weird"]),
    ("pages_3m", ["--pages", "3m"], None, ["--pages", "3m", "4k, thp, 2m, 1g"]),
    ("pages_bad_in_list", ["--pages", "4k,2M"], None, ["--pages", "2M", "unknown value"]),
    ("pages_empty_list_item", ["--pages", "4k,,2m"], None, ["--pages", "empty"]),
    ("hugetlb_morecore_not_a_value", [], {"HUGETLB_MORECORE": "maybe"},
     ["HUGETLB_MORECORE", "'maybe'", "unset"]),
    ("hugetlb_morecore_no_such_page_size", ["--dry-run"], {"HUGETLB_MORECORE": "64k"},
     ["HUGETLB_MORECORE", "'64k'"]),
    ("bind_weird", ["--bind", "weird"], None, ["--bind", "weird"]),
    ("output_empty", ["-o", ""], None, ["output", "empty"]),
    ("omp_num_threads_not_a_number", [], {"OMP_NUM_THREADS": "abc"},
     ["OMP_NUM_THREADS", "'abc'"]),
    # Contract values that this version does not implement yet.
    ("bind_open_range", ["--bind", "0-"], None, ["--bind", "0-", "range"]),
    ("bind_backward_range", ["--bind", "3-1", "-t", "1"], None, ["--bind", "3-1", "empty"]),
    ("bind_list_empty_item", ["--bind", "0,,1"], None, ["--bind", "0,,1", "empty"]),
    ("bind_list_trailing_comma", ["--bind", "0,1,"], None, ["--bind", "0,1,", "comma"]),
    ("bind_duplicate_pu", ["--bind", "0,0", "-t", "2"], None, ["--bind", "PU 0", "twice"]),
    ("bind_pu_not_in_machine", ["--bind", "999", "-t", "1"], None,
     ["--bind 999", "PU 999", "allowed"]),
    ("bind_list_too_short", ["--bind", "0", "-t", "2"], None,
     ["--bind 0", "1 PU for 2 threads"]),
    ("bind_policy_typo", ["--bind", "compakt"], None,
     ["--bind", "compakt", "compact, scatter, none"]),
    ("per_domain_unknown", ["--per-domain", "socket"], None,
     ["--per-domain", "socket", "numa|package|llc"]),
    ("isa_unknown", ["--isa", "avx1024"], None, ["--isa", "avx1024", "unknown", "scalar"]),
    ("isa_env_unknown", [], {"MEMBENCH_ISA": "avx1024"}, ["MEMBENCH_ISA", "avx1024"]),
    # Messages that pointed the wrong way (issue 26).
    ("size_hexadecimal", ["-s", "0x100000"], None, ["--size", "'0x100000' is hexadecimal"]),
    ("reference_dash", ["--reference", "-"], None,
     ["--reference -", "not from stdin", "--save-reference"]),
    ("expect_newline", ["--expect", "tri\nad=1"], None, ["--expect", "'tri\\nad'"]),
    ("expect_escape", ["--expect", "triad=1\x1b[2J"], None, ["\\x1B[2J"]),
    ("omp_max_active_levels_zero", ["-t", "2", "-s", "100000", "-n", "2"],
     {"OMP_MAX_ACTIVE_LEVELS": "0"}, ["OMP_MAX_ACTIVE_LEVELS=0", "2 threads as one"]),
    ("omp_thread_limit_below_the_team", ["-t", "2", "-s", "100000", "-n", "2"],
     {"OMP_THREAD_LIMIT": "1"}, ["OMP_THREAD_LIMIT=1", "1 of this run's 2 threads"]),
]


class BadInputTest(membench_test.MembenchTestCase):
    """One test per bad command line, generated from CASES."""

    def test_cases_are_distinct(self):
        """Every case is a different command line."""
        lines = [(tuple(a), tuple(sorted((e or {}).items()))) for _, a, e, _ in CASES]
        self.assertEqual(len(lines), len(set(lines)))
        self.assertGreaterEqual(len(lines), 20)

    def test_bad_value_after_good_options(self):
        """A bad value still fails when preceded by valid options."""
        self.assert_error(["--triad", "-n", "3", "--dry-run", "--size", "abc"], 2,
                          ["--size", "'abc'"])

    def test_later_format_overrides_and_is_checked(self):
        """The last --format given is validated."""
        self.assert_error(["--format", "json", "--format", "xml"], 2, ["--format", "xml"])


def _make_test(args, env, keywords):
    def test(self):
        self.assert_error(args, 2, keywords, env_extra=env)
    test.__doc__ = "membench %s%s exits 2 with one error line." % (
        " ".join(repr(a) if a == "" else a for a in args),
        " with %s" % env if env else "")
    return test


for _name, _args, _env, _words in CASES:
    setattr(BadInputTest, "test_" + _name, _make_test(_args, _env, _words))


if __name__ == "__main__":
    membench_test.main()
