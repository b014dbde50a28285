# ctest: LABELS timing
"""-o and --save-reference never destroy what is not theirs: devices, FIFOs and descriptors are
written through, a symbolic link's target is replaced (mode and owner kept), the reference is
never the report, an interrupted run with nothing finished keeps the old file, every write
failure is one line and exit 3, and no temporary file outlives a signal.

Devices are made with mknod inside a temporary directory (as root), never the system's own:
the code before this test replaced whatever -o named."""

import json
import os
import pwd
import signal
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402
from membench_test import describe, run  # noqa: E402

QUICK = ["--triad", "--size", "100000", "-n", "2"]
#: Long enough that the first run is still measuring when the signal comes.
LONG = ["--triad", "-t", "1", "--size", "20000000", "-n", "100000"]
#: Many short runs: a signal after a few seconds finds some finished.
SWEEP = ["--triad", "-t", ",".join(["1", "2"] * 30), "--size", "4000000", "-n", "8"]


def is_root():
    return os.geteuid() == 0


class OutputFilesTest(membench_test.ScratchDirCase):

    def assert_one_line(self, err, *words):
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("membench: "), err)
        for word in words:
            self.assertIn(word, lines[0])

    def mknod(self, name, kind, major, minor):
        if not is_root():
            self.skipTest("mknod needs root")
        path = self.path(name)
        try:
            os.mknod(path, 0o666 | kind, os.makedev(major, minor))
        except PermissionError as exc:
            self.skipTest("mknod refused here: %s" % exc)
        return path

    # --- what -o names ------------------------------------------------------------------

    def test_symlink_stays_and_its_target_is_replaced(self):
        target, link = self.path("report.txt"), self.path("link.txt")
        with open(target, "w") as f:
            f.write("old\n")
        os.chmod(target, 0o640)
        os.symlink("report.txt", link)
        args = QUICK + ["-o", link]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertTrue(os.path.islink(link), "the symbolic link stays a link")
        self.assertEqual(os.readlink(link), "report.txt")
        with open(target) as f:
            self.assertIn("Triad:", f.read())
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o640)
        self.assertEqual(sorted(os.listdir(self.dir)), ["link.txt", "report.txt"])

    def test_dangling_symlink_creates_its_target(self):
        link = self.path("link.json")
        os.symlink("made.json", link)
        args = QUICK + ["--format", "json", "-o", link]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertTrue(os.path.islink(link))
        with open(self.path("made.json")) as f:
            self.assertEqual(json.load(f)["schema"], 1)

    def test_mode_and_owner_are_kept(self):
        if not is_root():
            self.skipTest("chown to another user needs root")
        nobody = pwd.getpwnam("nobody")
        path = self.path("r.txt")
        with open(path, "w") as f:
            f.write("old\n")
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
        os.chmod(path, 0o640)
        args = QUICK + ["-o", path]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        st = os.stat(path)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o640)
        self.assertEqual((st.st_uid, st.st_gid), (nobody.pw_uid, nobody.pw_gid))
        with open(path) as f:
            self.assertIn("Triad:", f.read())

    def test_character_device_is_written_through(self):
        null = self.mknod("null", stat.S_IFCHR, 1, 3)  # what /dev/null is
        args = QUICK + ["-o", null]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode), "still a character device")
        self.assertEqual(os.listdir(self.dir), ["null"])

    def test_full_device_exits_3_with_one_line(self):
        full = self.mknod("full", stat.S_IFCHR, 1, 7)  # what /dev/full is
        args = QUICK + ["-o", full]
        rc, out, err = run(args)
        self.assertEqual(rc, 3, describe(args, rc, out, err))
        self.assert_one_line(err, full, "No space left on device")
        self.assertTrue(stat.S_ISCHR(os.lstat(full).st_mode))

    def test_block_device_is_refused_before_measuring(self):
        disk = self.mknod("disk", stat.S_IFBLK, 7, 0)
        start = time.monotonic()
        line = self.assert_error(["-o", disk, "--size", "20000000", "-n", "50"], 2, [disk])
        self.assertIn("block device", line)
        self.assertLess(time.monotonic() - start, 10)
        self.assertTrue(stat.S_ISBLK(os.lstat(disk).st_mode))

    def test_fifo_with_a_reader_gets_the_report(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            args = QUICK + ["-o", fifo]
            rc, out, err = run(args)
            data = b""
            while True:
                try:
                    chunk = os.read(reader, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(reader)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertIn(b"Triad:", data)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "still a FIFO")

    def test_fifo_without_a_reader_exits_3_at_once(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        start = time.monotonic()
        line = self.assert_error(["-o", fifo, "--size", "20000000", "-n", "50"], 3, [fifo])
        self.assertIn("no process is reading", line)
        self.assertLess(time.monotonic() - start, 10, "refused before measuring, no hang")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_dev_fd_writes_to_that_descriptor(self):
        """-o /dev/fd/1 with stdout appending to a file: appended to, not replaced."""
        path = self.path("log.txt")
        with open(path, "w") as f:
            f.write("keep\n")
        inode = os.stat(path).st_ino
        with open(path, "a") as log:
            proc = subprocess.run(membench_test.command(membench_test.BIN) + QUICK
                                  + ["-o", "/dev/fd/1"],
                                  env=membench_test.make_env(), stdout=log,
                                  stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(path) as f:
            text = f.read()
        self.assertTrue(text.startswith("keep\n"), text[:200])
        self.assertIn("Triad:", text)
        self.assertEqual(os.stat(path).st_ino, inode)

    def test_250_character_name(self):
        name = "r" * 245 + ".json"
        args = ["--dry-run", "--size", "100000", "--format", "json", "-o", self.path(name)]
        rc, out, err = run(args)
        self.assertEqual(rc, 0, describe(args, rc, out, err))
        self.assertEqual(os.listdir(self.dir), [name])

    # --- the same file twice --------------------------------------------------------------

    def reference(self):
        ref = self.path("ref.json")
        rc, out, err = run(QUICK + ["-q", "--save-reference", ref])
        self.assertEqual(rc, 0, err)
        with open(ref) as f:
            return ref, f.read()

    def test_reference_is_not_the_report(self):
        ref, text = self.reference()
        os.link(ref, self.path("hard.json"))
        os.symlink("ref.json", self.path("soft.json"))
        for other in (ref, self.path("hard.json"), self.path("soft.json"),
                      os.path.join(self.dir, ".", "ref.json")):
            with self.subTest(other=other):
                start = time.monotonic()
                line = self.assert_error(["--reference", ref, "-o", other,
                                          "--size", "20000000", "-n", "50"], 2, ["-o"])
                self.assertIn("--reference", line)
                self.assertLess(time.monotonic() - start, 10)
                with open(ref) as f:
                    self.assertEqual(f.read(), text, "the reference is untouched")

    def test_saved_reference_is_not_the_report(self):
        new = self.path("new.json")
        for args in (["--save-reference", new, "-o", new],
                     ["--save-reference", new, "-o", os.path.join(self.dir, ".", "new.json")],
                     ["--save-reference", "-"]):
            with self.subTest(args=args):
                line = self.assert_error(args + ["--size", "20000000", "-n", "50"], 2,
                                         ["--save-reference", "-o"])
                self.assertIn("same file", line)
                self.assertFalse(os.path.exists(new))

    #: Two outputs that both write into stdout, however each names it.
    STDOUT_TWICE = (["-q", "--metrics-file", "/dev/stdout"],
                    ["-o", "-", "--metrics-file", "/proc/self/fd/1"],
                    ["-o", "/dev/stdout", "--metrics-file", "-"],
                    ["-o", "/dev/fd/1", "--metrics-file", "/dev/stdout"],
                    ["--format", "json", "--save-reference", "/dev/stdout"])

    def test_aliases_of_stdout_are_the_reports_stream_on_a_pipe(self):
        for args in self.STDOUT_TWICE:
            with self.subTest(args=args):
                line = self.assert_error(QUICK + args, 2, ["same file"])
                self.assertRegex(line, "--metrics-file|--save-reference")

    def test_aliases_of_stdout_are_the_reports_stream_on_a_file(self):
        """stdout redirected to a file: its aliases, and that file by name, are stdout."""
        log = self.path("log.txt")
        for args in self.STDOUT_TWICE + (["-q", "--metrics-file", log],
                                         ["--format", "json", "--save-reference", log]):
            with self.subTest(args=args), open(log, "w") as f:
                proc = subprocess.run(membench_test.command(membench_test.BIN) + QUICK + args,
                                      env=membench_test.make_env(), stdout=f,
                                      stderr=subprocess.PIPE, text=True, timeout=60)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assert_one_line(proc.stderr, "same file")
                self.assertEqual(os.path.getsize(log), 0, "nothing written")

    # --- interrupted and failed writes ---------------------------------------------------

    def test_interrupt_before_any_run_finished_keeps_the_old_file(self):
        path = self.path("old.json")
        with open(path, "w") as f:
            f.write("previous report\n")
        proc, before = membench_test.start_paused(LONG + ["--format", "json", "-o", path],
                                                  "first touch")
        membench_test.resume(proc, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertTrue(before.endswith("membench-test: paused at first touch\n"), before)
        self.assert_one_line(err, "SIGINT", "no report written", "unchanged")
        self.assertEqual(out, "")
        with open(path) as f:
            self.assertEqual(f.read(), "previous report\n")
        self.assertEqual(os.listdir(self.dir), ["old.json"])

    def test_sighup_is_an_interruption(self):
        path = self.path("sweep.json")
        proc, _ = membench_test.start_paused(SWEEP + ["--format", "json", "-o", path], "run 2")
        membench_test.resume(proc, signal.SIGHUP)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 129, err)
        self.assertIn("interrupted by SIGHUP", err)
        self.assertEqual(os.listdir(self.dir), ["sweep.json"], "no temporary file left")
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(doc["interrupted_by"], "SIGHUP")
        self.assertEqual(len(doc["runs"]), 1, "run 1 finished before the signal")

    def test_sigkill_while_measuring_leaves_no_temporary_file(self):
        path = self.path("out.json")
        proc, _ = membench_test.start_paused(LONG + ["--format", "json", "-o", path], "first touch")
        proc.kill()
        proc.communicate(timeout=60)
        self.assertEqual(os.listdir(self.dir), [])

    def test_full_stdout_exits_3_with_one_line(self):
        # a report larger than the stdio buffer: the error shows while it is being written
        big = ["--dry-run", "--size", "100000", "-t", ",".join(["1", "2"] * 30)]
        if membench_test.USABLE_CPUS < 2:  # -t 2 would add a warning line per run
            big[-1] = ",".join(["1"] * 60)
        for fmt in ("json", "text", "csv"):
            with self.subTest(format=fmt):
                with open("/dev/full", "w") as full:  # the shell's '> /dev/full'
                    proc = subprocess.run(membench_test.command(membench_test.BIN) + big
                                          + ["--format", fmt],
                                          env=membench_test.make_env(), stdout=full,
                                          stderr=subprocess.PIPE, text=True, timeout=60)
                self.assertEqual(proc.returncode, 3, proc.stderr)
                self.assert_one_line(proc.stderr, "stdout", "No space left on device")

    def test_closed_pipe_exits_3_with_one_line(self):
        r, w = os.pipe()
        os.close(r)  # like '| head -c0' after head has gone
        try:
            proc = subprocess.run(membench_test.command(membench_test.BIN) + QUICK,
                                  env=membench_test.make_env(), stdout=w,
                                  stderr=subprocess.PIPE, text=True, timeout=60)
        finally:
            os.close(w)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assert_one_line(proc.stderr, "stdout", "Broken pipe")


if __name__ == "__main__":
    membench_test.main()
