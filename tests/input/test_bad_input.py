"""Bad command lines: exit 2 (or 3), nothing on stdout, one 'membench: ' line naming the problem.
The cases are the lines of bad_input.txt, whose header says how to write one; this file makes
one test of each (test_NAME) and checks the table itself."""

import collections
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_input.txt")

#: Columns end at each '|' that no backslash precedes (a regular expression's \| is a literal).
COLUMN = re.compile(r"(?<!\\)\|")
NAME = re.compile(r"[A-Za-z0-9_]+\Z")
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: One line of the table: where (file:line), the test's name, membench's arguments, the extra
#: environment, the exit status, the pattern, and the arguments and environment as written.
Case = collections.namedtuple("Case", "where name args env status pattern args_text env_text")


def decode_argument(arg):
    """arg with its backslash escapes decoded (Python's unicode_escape), if it has any."""
    if "\\" not in arg:
        return arg
    return arg.encode("latin-1", "backslashreplace").decode("unicode_escape")


def derived_name(number, args_text, env_text):
    """The name of a line without one: its line number and what it runs, as an identifier."""
    words = re.sub(r"\W+", "_", args_text + " " + env_text).strip("_")
    return ("line%d_%s" % (number, words[:48])).rstrip("_")


def parse_case(where, number, text):
    """The Case written on one line of the table; ValueError, naming where, if it is malformed."""
    columns = [c.strip() for c in COLUMN.split(text)]
    if len(columns) == 4:
        columns.insert(0, "")
    if len(columns) != 5:
        raise ValueError("%s: %d columns; a case is [name |] arguments | environment | exit | "
                         "message pattern" % (where, len(columns)))
    name, args_text, env_text, status, pattern = columns
    name = name or derived_name(number, args_text, env_text)
    if not NAME.match(name):
        raise ValueError("%s: name %r is not letters, digits and _" % (where, name))
    try:
        args = [decode_argument(a) for a in shlex.split(args_text)]
        words = shlex.split(env_text)
        re.compile(pattern)
    except (ValueError, re.error) as exc:
        raise ValueError("%s: %s" % (where, exc)) from exc
    env = {k: decode_argument(v) for k, v in (w.split("=", 1) for w in words if "=" in w)}
    if len(env) != len(words) or not all(VARIABLE.match(k) for k in env):
        raise ValueError("%s: the environment is NAME=value words: %r" % (where, env_text))
    if not status.isdigit() or int(status) == 0:
        raise ValueError("%s: exit %r is not a failing exit status" % (where, status))
    return Case(where, name, args, env, int(status), pattern, args_text, env_text)


def parse_table(lines, filename):
    """The cases of the table's lines (comments and blank lines skipped), names unique."""
    cases, names = [], {}
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        case = parse_case("%s:%d" % (filename, number), number, text)
        if case.name in names:
            raise ValueError("%s: name %s already used at %s" % (case.where, case.name,
                                                                names[case.name]))
        names[case.name] = case.where
        cases.append(case)
    return cases


def read_table(path=TABLE):
    with open(path, encoding="utf-8") as f:
        return parse_table(f, os.path.basename(path))


CASES = read_table()


class BadInputTest(membench_test.MembenchTestCase):
    """One test per line of bad_input.txt, and the checks of the table itself."""

    def test_cases_are_distinct(self):
        """Every case is a different command line and environment, and there are 20 or more."""
        seen, repeated = {}, []
        for case in CASES:
            key = (tuple(case.args), tuple(sorted(case.env.items())))
            if key in seen:
                repeated.append("%s repeats %s" % (case.where, seen[key]))
            seen.setdefault(key, case.where)
        self.assertEqual(repeated, [])
        self.assertGreaterEqual(len(CASES), 20)

    def test_table_syntax(self):
        """How a line is read: the optional name, '' and escapes, the environment, \\|."""
        cases = parse_table(["# a comment", "",
                             "-o '' | | 2 | output.*empty",
                             r"x | --expect 'tri\nad=1' a\|b | A='1 2' B= C='2\nX' | 3 | a\|b\\x"],
                            "t.txt")
        self.assertEqual([c.where for c in cases], ["t.txt:3", "t.txt:4"])
        self.assertEqual(cases[0][1:6], ("line3_o", ["-o", ""], {}, 2, "output.*empty"))
        self.assertEqual(cases[1][1:6], ("x", ["--expect", "tri\nad=1", "a|b"],
                                         {"A": "1 2", "B": "", "C": "2\nX"}, 3, r"a\|b\\x"))
        self.assertRegex(r"a|b\x", cases[1].pattern)
        for bad in ["a | 2 | x", "--x | | 0 | x", "--x | FOO | 2 | x", "--x | | 2 | (",
                    "bad-name | --x | | 2 | x", "'--x | | 2 | x",
                    "n | --x | | 2 | x\nn | -y | | 2 | x"]:
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                parse_table(bad.split("\n"), "t.txt")

    def test_bad_value_after_good_options(self):
        """A bad value still fails when preceded by valid options."""
        self.assert_error(["--triad", "-n", "3", "--dry-run", "--size", "abc"], 2,
                          ["--size", "'abc'"])

    def test_later_format_overrides_and_is_checked(self):
        """The last --format given is validated."""
        self.assert_error(["--format", "json", "--format", "xml"], 2, ["--format", "xml"])


def _make_test(case):
    def test(self):
        self.assert_error_matching(case.args, case.status, case.pattern, case.env or None)
    test.__doc__ = "%s: membench %s%s exits %d, one line matching %s" % (
        case.where, case.args_text, " with " + case.env_text if case.env_text else "",
        case.status, case.pattern)
    return test


for _case in CASES:
    setattr(BadInputTest, "test_" + _case.name, _make_test(_case))


if __name__ == "__main__":
    membench_test.main()
