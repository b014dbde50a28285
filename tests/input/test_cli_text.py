# ctest: LABELS emulation
"""The exact text of the command line: --help byte for byte (tests/golden/help.txt), the
shape of --version, and every one-line usage error of the option parser with its exit status,
so that a rewrite of the parser provably changes no text."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

GOLDEN_HELP = os.path.join(membench_test.TESTS_DIR, "golden", "help.txt")


def list65(item):
    """65 copies of one list item: one more than a list option takes."""
    return ",".join([item] * 65)


# (name, arguments, extra environment, the exact stderr line); every one exits 2.
#: An ISA of another architecture than the build's, and the build's own list (docs/design.md).
FOREIGN_ISA, BUILD_ISAS = {
    "x86-64": ("neon", "sse2, avx2, avx512, scalar"),
    "aarch64": ("sse2", "scalar, neon, sve"),
}.get(membench_test.BUILD_ARCH, ("sse2", "scalar"))

ERRORS = [
    ('unknown_long', ['--bogus'], None,
     "membench: unknown option '--bogus'; see membench --help"),
    ('unknown_long_with_value', ['--bogus=3'], None,
     "membench: unknown option '--bogus'; see membench --help"),
    ('unknown_short', ['-x'], None,
     "membench: unknown option '-x'; see membench --help"),
    ('takes_no_value', ['--copy=1'], None,
     "membench: option '--copy' takes no value; see membench --help"),
    ('takes_no_value_prefix', ['--no-stag=1'], None,
     "membench: option '--no-stagger' takes no value; see membench --help"),
    ('ambiguous_two', ['--tlb-m', '5'], None,
     "membench: option '--tlb-m' is ambiguous (--tlb-mode, --tlb-max-pages...); write more of its name; see membench --help"),
    ('ambiguous_many', ['--s', '1'], None,
     "membench: option '--s' is ambiguous (--scale, --shootdown, --shootdown-remote, --shootdown-pages...); write more of its name; see membench --help"),
    ('needs_value_long', ['--threads'], None,
     "membench: option '--threads' needs a value; see membench --help"),
    ('needs_value_short', ['-t'], None,
     "membench: option '-t' needs a value; see membench --help"),
    ('needs_value_probe', ['--faults-size'], None,
     "membench: option '--faults-size' needs a value; see membench --help"),
    ('unexpected_argument', ['extra'], None,
     "membench: unexpected argument 'extra'; see membench --help"),
    ('threads_zero', ['--threads', '0'], None,
     "membench: --threads: '0' is out of range; expected 1 to 4096; see membench --help"),
    ('threads_word', ['-t', 'abc'], None,
     "membench: --threads: 'abc' is not a whole number; see membench --help"),
    ('threads_empty', ['-t', ''], None,
     'membench: --threads: empty list; see membench --help'),
    ('threads_empty_item', ['-t', '1,,2'], None,
     "membench: --threads: empty item in list '1,,2'; see membench --help"),
    ('threads_65', ['-t', list65('1')], None,
     'membench: --threads: more than 64 values; see membench --help'),
    ('size_zero', ['--size', '0'], None,
     "membench: --size: size '0' is zero; sizes must be positive; see membench --help"),
    ('size_65', ['-s', list65('1GiB')], None,
     'membench: --size: more than 64 values; see membench --help'),
    ('ntimes_one', ['-n', '1'], None,
     "membench: --ntimes: '1' is out of range; expected 2 to 1000000 (the first repetition is discarded, so at least 2); see membench --help"),
    ('offset_negative', ['--offset', '-1'], None,
     "membench: --offset: '-1' is not a whole number; see membench --help"),
    ('offset_huge', ['--offset', '16777217'], None,
     "membench: --offset: '16777217' is out of range; expected 0 to 16777216; see membench --help"),
    ('type_int', ['--type', 'int'], None,
     "membench: --type 'int': unknown value; use double|float; see membench --help"),
    ('format_xml', ['--format', 'xml'], None,
     "membench: --format 'xml': unknown value; use text|csv|json|openmetrics; see membench --help"),
    ('per_domain_core', ['--per-domain', 'core'], None,
     "membench: --per-domain 'core': unknown value; use numa|package|llc; see membench --help"),
    ('pages_3m', ['--pages', '3m'], None,
     'membench: --pages 3m: unknown value (accepted: default, 4k, thp, 2m, 1g); see membench --help'),
    ('pages_in_list', ['--pages', '4k,2M'], None,
     'membench: --pages 2M: unknown value (accepted: default, 4k, thp, 2m, 1g); see membench --help'),
    ('pages_empty', ['--pages', ''], None,
     'membench: --pages: empty list; see membench --help'),
    ('pages_65', ['--pages', list65('4k')], None,
     'membench: --pages: more than 64 values; see membench --help'),
    ('stores_weird', ['--stores', 'weird'], None,
     'membench: --stores weird: unknown value (accepted: auto, normal, nt); see membench --help'),
    ('stores_65', ['--stores', list65('nt')], None,
     'membench: --stores: more than 64 values; see membench --help'),
    ('bind_weird', ['--bind', 'weird'], None,
     "membench: --bind: unknown binding 'weird'; use compact, scatter, none or a PU list like 0,2,4-7; see membench --help"),
    ('bind_65', ['--bind', list65('none')], None,
     'membench: --bind: more than 64 values; see membench --help'),
    ('isa_foreign', ['--isa', FOREIGN_ISA], None,
     "membench: --isa %s: not an ISA of this %s build (%s); see membench --help"
     % (FOREIGN_ISA, membench_test.BUILD_ARCH, BUILD_ISAS)),
    ('isa_env_foreign', [], {'MEMBENCH_ISA': FOREIGN_ISA},
     "membench: MEMBENCH_ISA %s: not an ISA of this %s build (%s); see membench --help"
     % (FOREIGN_ISA, membench_test.BUILD_ARCH, BUILD_ISAS)),
    ('peak_zero', ['--peak', '0'], None,
     "membench: --peak '0': give the theoretical peak in GB/s, e.g. --peak 102.4; see membench --help"),
    ('tolerance_200', ['--tolerance', '200'], None,
     "membench: --tolerance '200': a shortfall of 100% or more accepts any rate (the floor "
     "would be 0 MB/s); give less than 100, e.g. --tolerance 5; see membench --help"),
    ('tolerance_100', ['--tolerance', '100'], None,
     "membench: --tolerance '100': a shortfall of 100% or more accepts any rate (the floor "
     "would be 0 MB/s); give less than 100, e.g. --tolerance 5; see membench --help"),
    ('time_limit_zero', ['--time-limit', '0'], None,
     "membench: --time-limit '0': give seconds, e.g. --time-limit 30; see membench --help"),
    ('expect_bogus', ['--expect', 'bogus'], None,
     "membench: --expect: 'bogus' is not KERNEL=MB/s; write e.g. triad=90000; see membench --help"),
    ('reference_empty', ['--reference', ''], None,
     'membench: --reference: empty file name; see membench --help'),
    ('save_reference_empty', ['--save-reference', ''], None,
     'membench: --save-reference: empty file name; see membench --help'),
    ('output_empty', ['-o', ''], None,
     'membench: --output: empty file name; see membench --help'),
    ('acceptance_threads', ['--acceptance', '-t', '2'], None,
     'membench: --acceptance is a fixed profile (all physical cores, scatter, STREAM-rule arrays, the four kernels, double, auto stores, offset 0) and -t/--threads changes it; drop -t/--threads, or check that run with --expect/--reference instead; see membench --help'),
    ('acceptance_kernel', ['--acceptance', '--dot'], None,
     'membench: --acceptance is a fixed profile (all physical cores, scatter, STREAM-rule arrays, the four kernels, double, auto stores, offset 0) and --dot changes it; drop --dot, or check that run with --expect/--reference instead; see membench --help'),
    ('acceptance_isa', ['--acceptance', '--isa', 'scalar'], None,
     'membench: --acceptance is a fixed profile (all physical cores, scatter, STREAM-rule arrays, the four kernels, double, auto stores, offset 0) and --isa changes it; drop --isa, or check that run with --expect/--reference instead; see membench --help'),
    ('acceptance_isa_env', ['--acceptance'], {'MEMBENCH_ISA': 'scalar'},
     'membench: --acceptance is a fixed profile and MEMBENCH_ISA changes its kernels; unset MEMBENCH_ISA; see membench --help'),
    ('expect_probe_only', ['--tlb', '--expect', 'triad=1'], None,
     'membench: --expect applies to the kernels, not to --tlb (what this run measures); add a kernel (e.g. --triad), or drop --expect; see membench --help'),
    ('reference_probe_only', ['--timer', '--reference', 'r.json'], None,
     'membench: --reference applies to the kernels, not to --timer (what this run measures); add a kernel (e.g. --triad), or drop --reference; see membench --help'),
    ('save_reference_probe_only', ['--faults', '--save-reference', 'r.json'], None,
     'membench: --save-reference applies to the kernels, not to --faults (what this run measures); add a kernel (e.g. --triad), or drop --save-reference; see membench --help'),
    ('expect_kernel_not_run', ['--copy', '--expect', 'triad=1'], None,
     'membench: --expect triad: this run measures copy, not triad; add --triad (kernel options choose what runs) or drop triad from --expect; see membench --help'),
    ('acceptance_expect_dot', ['--acceptance', '--expect', 'dot=1'], None,
     'membench: --expect dot: the acceptance profile measures copy, scale, add, triad, not dot; drop dot from --expect; see membench --help'),
    ('cpu_word', ['--tlb', '--cpu', 'x'], None,
     "membench: --cpu: 'x' is not a whole number; give a PU number, or -1 for unpinned; see membench --help"),
    ('order_foo', ['--tlb', '--order', 'foo'], None,
     "membench: --order 'foo': unknown value; use random|seq; see membench --help"),
    ('tlb_mode_x', ['--tlb', '--tlb-mode', 'x'], None,
     "membench: --tlb-mode 'x': unknown value; use chase|inc; see membench --help"),
    ('tlb_pages_zero', ['--tlb', '--tlb-pages', '0'], None,
     "membench: --tlb-pages: '0' is out of range; expected 1 to 4194304 (the number of pages to touch); see membench --help"),
    ('tlb_trials_zero', ['--tlb', '--tlb-pages', '4', '--tlb-trials', '0'], None,
     "membench: --tlb-trials: '0' is out of range; expected 1 to 1000000000000 (traversals of the pages per sample); see membench --help"),
    ('repeat_zero', ['--tlb', '--repeat', '0'], None,
     "membench: --repeat: '0' is out of range; expected 1 to 1000 (samples per point); see membench --help"),
    ('tlb_max_pages_3', ['--tlb', '--tlb-max-pages', '3'], None,
     "membench: --tlb-max-pages: '3' is out of range; expected 4 to 4194304 (the sweep's last point); see membench --help"),
    ('cpu_without_tlb', ['--cpu', '1'], None,
     'membench: --cpu applies to --tlb, not to the kernels (what this run measures); add --tlb, or drop --cpu; see membench --help'),
    ('no_stagger_without_tlb', ['--no-stagger', '--order', 'seq'], None,
     'membench: --no-stagger applies to --tlb, not to the kernels (what this run measures); add --tlb, or drop --no-stagger; see membench --help'),
    ('trials_without_pages', ['--tlb', '--tlb-trials', '5'], None,
     'membench: --tlb-trials needs --tlb-pages N (trials are traversals of N pages); see membench --help'),
    ('pages_and_max_pages', ['--tlb', '--tlb-pages', '5', '--tlb-max-pages', '100'], None,
     'membench: --tlb-pages measures one point; --tlb-max-pages is for sweeps, drop one of them; see membench --help'),
    ('cpu_with_threads', ['--tlb', '--cpu', '0', '-t', '2'], None,
     'membench: --cpu pins the single-thread probe; with --threads place the threads with --bind (e.g. --bind 0,1); see membench --help'),
    ('faults_size_3mib', ['--faults', '--faults-size', '3MiB'], None,
     'membench: --faults-size 3MiB: must be a positive multiple of 2 MiB (the huge page size), e.g. 64MiB; see membench --help'),
    ('faults_size_llc', ['--faults', '--faults-size', '2xLLC'], None,
     'membench: --faults-size 2xLLC: give a size such as 64MiB (a multiple of the LLC means nothing here); see membench --help'),
    ('faults_size_2tib', ['--faults', '--faults-size', '2TiB'], None,
     'membench: --faults-size 2TiB: too large (at most 1 TiB); see membench --help'),
    ('faults_size_plain_huge', ['--faults', '--faults-size', '99999999999'], None,
     'membench: --faults-size 99999999999: too large (at most 1 TiB); see membench --help'),
    ('faults_size_word', ['--faults', '--faults-size', 'abc'], None,
     "membench: --faults-size: size 'abc' is not a number; use e.g. 4xLLC, 1.5GiB, 512MB or 20000000; see membench --help"),
    ('faults_dir_empty', ['--faults', '--faults-dir', ''], None,
     'membench: --faults-dir: empty directory name; see membench --help'),
    ('faults_backing_foo', ['--faults', '--faults-backing', 'foo'], None,
     'membench: --faults-backing foo: unknown value (accepted: 4k, thp, 2m, file, file-readahead); see membench --help'),
    ('faults_backing_empty_item', ['--faults', '--faults-backing', '4k,'], None,
     "membench: --faults-backing: empty item in list '4k,'; see membench --help"),
    ('shootdown_remote_2000', ['--shootdown', '--shootdown-remote', '2000'], None,
     "membench: --shootdown-remote: '2000' is out of range; expected 0 to 1023; see membench --help"),
    ('shootdown_remote_33', ['--shootdown', '--shootdown-remote', ','.join(str(i) for i in range(33))], None,
     'membench: --shootdown-remote: more than 32 values; see membench --help'),
    ('shootdown_pages_zero', ['--shootdown', '--shootdown-pages', '0'], None,
     "membench: --shootdown-pages: '0' is out of range; expected 1 to 65536; see membench --help"),
    ('shootdown_pages_empty_item', ['--shootdown', '--shootdown-pages', ','], None,
     "membench: --shootdown-pages: empty item in list ','; see membench --help"),
    ('faults_size_without_faults', ['--faults-size', '64'], None,
     'membench: --faults-size applies to --faults, not to the kernels (what this run measures); add --faults, or drop --faults-size; see membench --help'),
    ('faults_dir_without_faults', ['--timer', '--faults-dir', '/tmp'], None,
     'membench: --faults-dir applies to --faults, not to --timer (what this run measures); add --faults, or drop --faults-dir; see membench --help'),
    ('shootdown_pages_without_shootdown', ['--faults', '--shootdown-pages', '1'], None,
     'membench: --shootdown-pages applies to --shootdown, not to --faults (what this run measures); add --shootdown, or drop --shootdown-pages; see membench --help'),
    ('tlb_option_first_given', ['--repeat', '3', '--cpu', '1'], None,
     'membench: --repeat applies to --tlb, not to the kernels (what this run measures); add --tlb, or drop --repeat; see membench --help'),
    ('first_given_of_two_measurements', ['--cpu', '1', '--faults-size', '64'], None,
     'membench: --cpu applies to --tlb, not to the kernels (what this run measures); add --tlb, or drop --cpu; see membench --help'),
    ('ambiguous_p', ['--p', '1'], None,
     "membench: option '--p' is ambiguous (--per-domain, --pages, --peak...); write more of its name; see membench --help"),
    ('ambiguous_t', ['--t'], None,
     "membench: option '--t' is ambiguous (--triad, --tlb, --tlb-mode, --tlb-pages...); write more of its name; see membench --help"),
    ('probe_options_first_given', ['--faults-dir', '/tmp', '--faults-size', '64'], None,
     'membench: --faults-dir applies to --faults, not to the kernels (what this run measures); add --faults, or drop --faults-dir; see membench --help'),
]


class HelpText(membench_test.MembenchTestCase):
    def test_help_is_the_golden_file(self):
        with open(GOLDEN_HELP, encoding="utf-8") as f:
            golden = f.read()
        for flag in ("--help", "-h"):
            rc, out, err = membench_test.run([flag])
            self.assertEqual((rc, err), (0, ""), flag)
            self.assertEqual(out, golden, "%s differs from %s" % (flag, GOLDEN_HELP))

    def test_help_wins_over_a_later_bad_option(self):
        rc, out, err = membench_test.run(["--help", "--bogus"])
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("Usage: membench [KERNELS] [OPTIONS]\n"), out[:80])

    def test_version_shape(self):
        for flag in ("--version", "-V"):
            rc, out, err = membench_test.run([flag])
            self.assertEqual((rc, err), (0, ""), flag)
            self.assertRegex(out, r"\Amembench [0-9]+\.[0-9]+\.[0-9]+\S*\n\Z", flag)


class MethodNotSeed(membench_test.MembenchTestCase):
    """User-visible text names the method (the OSTEP TLB measurement), not "seed 000"."""

    def test_tlb_single_point_report(self):
        out, _ = self.run_ok(["--tlb", "--tlb-pages", "64", "--tlb-trials", "2000",
                              "--repeat", "3"])
        self.assertNotIn("seed", out.lower())
        self.assertIn("each timed as one run like ./tlb N T of the OSTEP TLB measurement", out)

    def test_help(self):
        out, _ = self.run_ok(["--help"])
        self.assertNotIn("seed", out.lower())
        self.assertIn("--tlb-pages N         one point: N pages (like the OSTEP tlb.c's "
                      "./tlb N T)\n", out)


class UsageErrors(membench_test.MembenchTestCase):
    def test_every_message_exactly(self):
        for name, args, env, line in ERRORS:
            with self.subTest(name):
                rc, out, err = membench_test.run(args, env, timeout=30)
                self.assertEqual((rc, out, err), (2, "", line + "\n"),
                                 membench_test.describe(args, rc, out, err))


if __name__ == "__main__":
    membench_test.main()
