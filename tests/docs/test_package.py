# ctest: LABELS emulation
"""The licence, the man pages and the packaging: docs/membench.1 is clean for groff and lists
every long option of --help, docs/membench-plot.1 is clean for groff; `cmake --install`
installs the binary, the plot command, the man pages, the docs and the Slurm health check
(never membench-hooked); `cpack -G DEB` builds a .deb with those files
and its library dependencies declared. With CI=true, as root, the .deb is installed for real
(dpkg -i), run from /usr/bin and found by man, then removed (dpkg -r)."""

import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import BIN, TESTS_DIR  # noqa: E402
from test_design_doc import slugs  # noqa: E402

ROOT = os.path.dirname(TESTS_DIR)
MAN_PAGE = os.path.join(ROOT, "docs", "membench.1")
PLOT_MAN_PAGE = os.path.join(ROOT, "docs", "membench-plot.1")
BUILD_DIR = os.path.dirname(BIN)

#: What the package and `cmake --install` hold, relative to the prefix: the docs keep the
#: repository's layout (their relative links work there) with what they link to.
INSTALLED = {
    "bin/membench",
    "bin/membench-plot",
    "sbin/membench-healthcheck",
    "share/man/man1/membench.1.gz",
    "share/man/man1/membench-plot.1.gz",
    "share/doc/membench/README.md",
    "share/doc/membench/LICENSE",
    "share/doc/membench/bench/RESULTS.md",
    "share/doc/membench/hugepages/README.md",
} | {"share/doc/membench/" + os.path.relpath(path, ROOT)  # the manual and the plots
     for pattern in ("docs/*.md", "bench/*.png") for path in glob.glob(os.path.join(ROOT, pattern))}
#: Debian policy 5.6.2: the Maintainer field is "Name <address>".
MAINTAINER = re.compile(r"^[^<>@]+ <[^<>@\s]+@[^<>@\s]+\.[a-z]{2,}>$")
#: The runtime libraries the Depends line must name (Debian 12's package names).
DEPENDS = ("libc6", "libgomp1", "libhwloc15", "libhugetlbfs0", "libjansson4")


def cmake_tool(name):
    """cmake or cpack: next to the CMAKE_COMMAND that configured the build, else on PATH."""
    cmake = os.environ.get("CMAKE_COMMAND")
    if cmake:
        path = os.path.join(os.path.dirname(cmake), name)
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def check(cmd, timeout=120, **kw):
    """Run cmd; return its stdout, failing the test with its output when it fails."""
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    if proc.returncode != 0:
        raise AssertionError("%r: exit %d\n--- stdout ---\n%s--- stderr ---\n%s" % (
            cmd, proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
    return proc.stdout


def help_long_options():
    """The long options --help defines: the --name at the start of an option line."""
    rc, out, err = membench_test.run(["--help"])
    assert rc == 0, membench_test.describe(["--help"], rc, out, err)
    return set(re.findall(r"^\s+(?:-\w, )?--([a-z][a-z0-9-]*)", out, re.M))


def man_pages_excluded():
    """Whether dpkg leaves man pages out (minimal container images: path-exclude)."""
    cfg = "/etc/dpkg/dpkg.cfg.d"
    for name in (os.listdir(cfg) if os.path.isdir(cfg) else []):
        try:
            with open(os.path.join(cfg, name), errors="replace") as f:
                if re.search(r"^path-exclude[= ]/usr/share/man", f.read(), re.M):
                    return True
        except OSError:
            continue
    return False


def man_source():
    with open(MAN_PAGE, encoding="utf-8") as f:
        return f.read()


class ManPageTest(membench_test.MembenchTestCase):

    def test_groff_prints_no_warning(self):
        if not shutil.which("groff"):
            self.skipTest("groff not installed (apt-get install groff-base)")
        for page in (MAN_PAGE, PLOT_MAN_PAGE):
            proc = subprocess.run(["groff", "-man", "-ww", "-z", page], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=60)
            self.assertEqual((proc.returncode, proc.stdout), (0, ""), page)

    def test_every_long_option_of_help_is_in_the_man_page(self):
        options = help_long_options()
        self.assertGreater(len(options), 40, options)
        text = man_source().replace("\\-", "-")
        missing = sorted(o for o in options
                         if not re.search(r"--%s(?![a-z0-9-])" % re.escape(o), text))
        self.assertEqual(missing, [], "options of --help missing from docs/membench.1")

    def test_the_man_page_documents_no_option_that_help_lacks(self):
        # An option's entry: the line after .TP, starting with the option.
        entries = re.findall(r"^\.TP\n\.B[IR]? (?:\\-\w \", \" )?\\-\\-([a-z][a-z0-9\\-]*)",
                             man_source(), re.M)
        entries = {e.replace("\\-", "-") for e in entries}
        self.assertGreater(len(entries), 40, entries)
        self.assertEqual(sorted(entries - help_long_options()), [],
                         "docs/membench.1 documents options that --help does not list")

    def test_the_man_page_names_this_version(self):
        rc, out, _ = membench_test.run(["--version"])
        self.assertEqual(rc, 0)
        version = out.split()[1]
        th = re.search(r'^\.TH MEMBENCH 1 \S+ "membench ([^"]+)"', man_source(), re.M)
        self.assertIsNotNone(th, "no .TH line")
        self.assertEqual(th.group(1), version)


class BuildTreeCase(membench_test.MembenchTestCase):
    """Needs the build directory that holds membench (its CMakeCache.txt)."""

    def setUp(self):
        super().setUp()
        if not os.path.isfile(os.path.join(BUILD_DIR, "CMakeCache.txt")):
            self.skipTest("no CMake build directory at %s" % BUILD_DIR)
        if os.environ.get("MEMBENCH_SANITIZE"):
            self.skipTest("a sanitizer build (MEMBENCH_SANITIZE=%s) is not a build to install"
                          % os.environ["MEMBENCH_SANITIZE"])


class InstallTest(BuildTreeCase):

    def test_cmake_install_puts_each_file_in_its_place(self):
        cmake = cmake_tool("cmake")
        if not cmake:
            self.skipTest("cmake not found")
        with tempfile.TemporaryDirectory() as prefix:
            check([cmake, "--install", BUILD_DIR, "--prefix", prefix])
            files = set()
            for dirpath, _, names in os.walk(prefix):
                files.update(os.path.relpath(os.path.join(dirpath, n), prefix) for n in names)
            self.assertEqual(files, INSTALLED)
            for program in ("bin/membench", "bin/membench-plot", "sbin/membench-healthcheck"):
                self.assertTrue(os.access(os.path.join(prefix, program), os.X_OK), program)
            with gzip.open(os.path.join(prefix, "share/man/man1/membench.1.gz"), "rt") as f:
                self.assertEqual(f.read(), man_source())
            with open(os.path.join(prefix, "share/doc/membench/LICENSE")) as f:
                licence = f.read()
            self.assertIn("BSD 3-Clause License", licence)
            self.assertIn("Copyright (c) 2026, the membench developers", licence)
            out = check(membench_test.command(os.path.join(prefix, "bin/membench")) +
                        ["--version"])
            self.assertTrue(out.startswith("membench "), out)
            out = check([os.path.join(prefix, "bin/membench-plot"), "--help"])
            self.assertTrue(out.startswith("Usage: membench-plot "), out)

    def test_every_relative_link_of_the_installed_docs_resolves(self):
        """Each link of each installed .md, relative to where it is installed, reaches an
        installed file (and an #anchor into a .md one of its headings)."""
        cmake = cmake_tool("cmake")
        if not cmake:
            self.skipTest("cmake not found")
        with tempfile.TemporaryDirectory() as prefix:
            check([cmake, "--install", BUILD_DIR, "--prefix", prefix])
            docdir = os.path.join(prefix, "share/doc/membench")
            bad, links = [], 0
            for dirpath, _, names in os.walk(docdir):
                for name in (n for n in names if n.endswith(".md")):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
                    for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
                        if target.startswith(("http:", "https:", "mailto:")):
                            continue
                        links += 1
                        full = os.path.normpath(os.path.join(dirpath, target)) if target \
                            else path
                        where = "%s: %s" % (os.path.relpath(path, docdir), target)
                        if not os.path.isfile(full) or not full.startswith(docdir + os.sep):
                            bad.append(where)
                        elif anchor and full.endswith(".md"):
                            with open(full, encoding="utf-8") as f:
                                if anchor not in slugs(f.read()):
                                    bad.append(where + "#" + anchor + " (no such heading)")
            self.assertGreater(links, 50)
            self.assertEqual(sorted(bad), [], "installed docs whose links do not resolve")


class PackageTest(BuildTreeCase):
    deb = None
    tmp = None

    @classmethod
    def tearDownClass(cls):
        if cls.tmp:
            cls.tmp.cleanup()

    def package(self):
        """Build the .deb once (cpack -G DEB from the build tree into a temporary directory)."""
        cpack = cmake_tool("cpack")
        for tool in ("dpkg-deb", "dpkg-shlibdeps"):
            if not shutil.which(tool):
                self.skipTest("%s not found (apt-get install dpkg-dev)" % tool)
        if not cpack:
            self.skipTest("cpack not found (it comes with cmake)")
        self.assertTrue(os.path.isfile(os.path.join(BUILD_DIR, "CPackConfig.cmake")),
                        "the build has no CPack configuration (include(CPack))")
        cls = type(self)
        if cls.deb is None:
            cls.tmp = tempfile.TemporaryDirectory()
            check([cpack, "-G", "DEB", "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake"),
                   "-B", cls.tmp.name], cwd=cls.tmp.name, timeout=240)
            debs = [n for n in os.listdir(cls.tmp.name) if n.endswith(".deb")]
            self.assertEqual(len(debs), 1, debs)
            cls.deb = os.path.join(cls.tmp.name, debs[0])
        return cls.deb

    def test_the_deb_holds_the_installed_files(self):
        listing = check(["dpkg-deb", "-c", self.package()])
        files = {line.split()[-1][len("./usr/"):] for line in listing.splitlines()
                 if not line.startswith("d")}
        self.assertEqual(files, INSTALLED, listing)
        self.assertNotIn("membench-hooked", listing)

    def test_the_deb_declares_its_dependencies(self):
        deb = self.package()
        fields = {}
        for name in ("Package", "Depends", "Maintainer", "Section", "Description"):
            fields[name] = check(["dpkg-deb", "-f", deb, name]).strip()
        self.assertEqual(fields["Package"], "membench")
        self.assertRegex(fields["Maintainer"], MAINTAINER)
        self.assertTrue(fields["Section"], fields)
        self.assertIn("memory bandwidth", fields["Description"])
        depends = {d.split()[0] for d in fields["Depends"].split(", ")}
        for lib in DEPENDS:
            self.assertIn(lib, depends, fields["Depends"])

    def test_dpkg_installs_it_for_real_in_ci(self):
        if os.environ.get("CI") != "true":
            self.skipTest("installs into /usr for real: only with CI=true")
        if os.geteuid() != 0:
            self.skipTest("dpkg -i needs root")
        if not shutil.which("dpkg"):
            self.skipTest("dpkg not found")
        if membench_test.UNDER_EMULATION:
            self.skipTest("the package is for the emulated architecture (%s): installed here, "
                          "its programs could not run from /usr/bin" % membench_test.BUILD_ARCH)
        status = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", "membench"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if "installed" in status.stdout.split():
            self.skipTest("a membench package is already installed here; not replacing it")
        deb = self.package()
        self.addCleanup(subprocess.run, ["dpkg", "-r", "membench"], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, timeout=120)
        check(["dpkg", "-i", deb])
        out = check(["/usr/bin/membench", "--version"])
        self.assertEqual(out, check([BIN, "--version"]))
        check(["/usr/sbin/membench-healthcheck", "--help"])
        check(["/usr/bin/membench-plot", "--help"])
        if man_pages_excluded():
            sys.stderr.write("note: dpkg excludes /usr/share/man here (path-exclude in "
                             "/etc/dpkg/dpkg.cfg.d): man -w not checked\n")
        elif shutil.which("man"):
            where = check(["man", "-w", "membench"]).strip()
            self.assertEqual(where, "/usr/share/man/man1/membench.1.gz")
        else:
            self.assertTrue(os.path.isfile("/usr/share/man/man1/membench.1.gz"))
        check(["dpkg", "-r", "membench"])
        self.assertFalse(os.path.exists("/usr/bin/membench"))


if __name__ == "__main__":
    membench_test.main()
