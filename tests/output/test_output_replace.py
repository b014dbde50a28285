"""-o never writes into an existing file: the report goes to a temporary file beside it that is
renamed over it. Where that cannot work (a mount point, a read-only file system, a directory
that is not writable, another user's file in a sticky directory, a full file system) membench
says so in one line and exits 3 before measuring, and the old file and its neighbours are left
as they were.

"Before measuring" is an event, not a time: membench-hooked announces "first touch" when the
arrays are about to be touched (MEMBENCH_TEST_ANNOUNCE=1), and a refused run must not reach it.
The cases need root (mount, another user); they skip without it. The code before this test
rewrote such files in place (a full sticky tmpfs kept a truncated report), or measured first and
failed at the rename (a bind mount), or said exit 2 (a read-only file system)."""

import errno
import os
import pwd
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import membench_test  # noqa: E402

QUICK = ["--triad", "-t", "1", "--size", "100000", "-n", "2"]
ANNOUNCE = {"MEMBENCH_TEST_ANNOUNCE": "1"}
MEASURING = "membench-test: at first touch"
OLD = "previous report\n"


class ReplaceTest(membench_test.ScratchDirCase):

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("needs root (mount, files of another user)")
        os.chmod(self.dir, 0o755)  # nobody may reach what is inside
        self.mounts = []

    def tearDown(self):
        for point in reversed(self.mounts):
            subprocess.run(["umount", point], check=False)
        super().tearDown()

    def mount(self, *args):
        """mount ARGS..., the last being the mount point; skips where mounting is refused."""
        proc = subprocess.run(["mount"] + list(args), capture_output=True, text=True)
        if proc.returncode != 0:
            self.skipTest("mount %s refused here: %s" % (" ".join(args), proc.stderr.strip()))
        if args[-1] not in self.mounts:
            self.mounts.append(args[-1])

    def write(self, path, text=OLD, mode=0o666):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def tree(self, top):
        """Every file under top with its content: what must stay as it was."""
        files = {}
        for root, _, names in os.walk(top):
            for name in names:
                path = os.path.join(root, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, top)] = f.read()
        return files

    def run_as(self, user, args):
        """membench-hooked ARGS (announcing its phases) as root, or as nobody."""
        env = membench_test.make_env(ANNOUNCE)
        pre = None
        if user == "nobody":
            nobody = pwd.getpwnam("nobody")

            def pre():
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
        proc = subprocess.run(membench_test.command(membench_test.HOOKED_BIN) + args, env=env,
                              cwd="/", stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60, preexec_fn=pre)
        return proc.returncode, proc.stdout, proc.stderr

    def assert_refused(self, user, target, words, top=None):
        """-o target as user: exit 3 with one line naming target and words, before measuring,
        and nothing under top (the scratch directory) changed."""
        top = top or self.dir
        before = self.tree(top)
        args = QUICK + ["--format", "json", "-o", target]
        rc, out, err = self.run_as(user, args)
        msg = membench_test.describe(args, rc, out, err)
        self.assertEqual(rc, 3, msg)
        self.assertNotIn(MEASURING, err, "refused only after measuring\n" + msg)
        lines = [line for line in err.splitlines() if line.startswith("membench: ")]
        self.assertEqual(len(lines), 1, msg)
        for word in [target] + words:
            self.assertIn(word, lines[0], msg)
        self.assertEqual(self.tree(top), before, "a file was touched")

    def fill(self, mount_point):
        """Fills the file system at mount_point until not one block is left."""
        with open(os.path.join(mount_point, "filler"), "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"x" * 4096)
            except OSError as exc:
                self.assertEqual(exc.errno, errno.ENOSPC)

    # --- another user ----------------------------------------------------------------------

    def test_another_users_file_in_a_sticky_directory(self):
        shared = os.path.join(self.dir, "shared")
        os.mkdir(shared)
        os.chmod(shared, 0o1777)  # like /tmp
        self.write(os.path.join(self.dir, "other.txt"))
        target = self.write(os.path.join(shared, "old.json"))
        self.assert_refused("nobody", target, ["sticky", "another user"])

    def test_full_sticky_tmpfs_as_another_user(self):
        """The issue's case: the old code truncated the file, wrote 4096 bytes and lost it."""
        mnt = os.path.join(self.dir, "mnt")
        os.mkdir(mnt)
        self.mount("-t", "tmpfs", "-o", "size=64k,mode=1777", "tmpfs", mnt)
        target = self.write(os.path.join(mnt, "old.json"), OLD * 200)
        self.fill(mnt)
        self.assert_refused("nobody", target, ["cannot be replaced"])

    def test_directory_not_writable(self):
        ro = os.path.join(self.dir, "ro")
        os.mkdir(ro)
        os.chmod(ro, 0o755)
        target = self.write(os.path.join(ro, "old.json"))
        self.assert_refused("nobody", target, ["directory is not writable", "in place"])

    def test_another_users_file_in_a_shared_directory_is_replaced(self):
        """A world-writable (not sticky) directory lets nobody replace root's file: the new file
        is a new inode with the old mode, not the old one rewritten; the owner becomes nobody
        (only root may give a file away)."""
        shared = os.path.join(self.dir, "shared")
        os.mkdir(shared)
        os.chmod(shared, 0o777)
        target = self.write(os.path.join(shared, "old.json"))
        inode = os.stat(target).st_ino
        args = QUICK + ["--format", "json", "-o", target]
        rc, out, err = self.run_as("nobody", args)
        self.assertEqual(rc, 0, membench_test.describe(args, rc, out, err))
        st = os.stat(target)
        self.assertNotEqual(st.st_ino, inode, "rewritten in place")
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o666)
        self.assertEqual(st.st_uid, pwd.getpwnam("nobody").pw_uid)
        with open(target) as f:
            self.assertIn('"runs"', f.read())
        self.assertEqual(os.listdir(shared), ["old.json"])

    def test_file_system_too_full_for_the_report_keeps_the_old_file(self):
        """One block free: the check passes, the report (over 4 KiB) does not fit. Known only
        when writing: exit 3 after measuring, the old file whole, no temporary left."""
        mnt = os.path.join(self.dir, "mnt")
        os.mkdir(mnt)
        self.mount("-t", "tmpfs", "-o", "size=64k,mode=0777", "tmpfs", mnt)
        target = self.write(os.path.join(mnt, "old.json"), OLD * 200)
        self.fill(mnt)
        filler = os.path.join(mnt, "filler")
        os.truncate(filler, os.path.getsize(filler) - 4096)
        before = self.tree(mnt)
        args = QUICK + ["--format", "json", "-o", target]
        rc, out, err = self.run_as("nobody", args)
        self.assertEqual(rc, 3, membench_test.describe(args, rc, out, err))
        self.assertIn("No space left on device", err)
        self.assertEqual(self.tree(mnt), before, "the old file was rewritten")

    # --- what the file system allows ----------------------------------------------------------

    def test_full_file_system(self):
        mnt = os.path.join(self.dir, "mnt")
        os.mkdir(mnt)
        self.mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt)
        target = self.write(os.path.join(mnt, "old.json"), OLD * 200)
        self.fill(mnt)
        self.assert_refused("root", target, ["no space left"])
        self.assert_refused("root", os.path.join(mnt, "new.json"), ["no space left"])

    def test_bind_mounted_file(self):
        target = self.write(os.path.join(self.dir, "old.json"))
        source = self.write(os.path.join(self.dir, "source.json"), "the mounted file\n")
        self.mount("--bind", source, target)
        self.assert_refused("root", target, ["mount point"])

    def test_read_only_bind_mounted_file(self):
        target = self.write(os.path.join(self.dir, "old.json"))
        source = self.write(os.path.join(self.dir, "source.json"), "the mounted file\n")
        self.mount("--bind", source, target)
        self.mount("-o", "remount,bind,ro", target)
        self.assert_refused("root", target, ["mount point"])

    def test_read_only_file_system(self):
        mnt = os.path.join(self.dir, "mnt")
        os.mkdir(mnt)
        self.mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt)
        target = self.write(os.path.join(mnt, "old.json"))
        self.mount("-o", "remount,ro", mnt)
        self.assert_refused("root", target, ["read-only"])
        self.assert_refused("root", os.path.join(mnt, "new.json"), ["read-only"])


if __name__ == "__main__":
    membench_test.main()
