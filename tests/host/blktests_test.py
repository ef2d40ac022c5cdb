#!/usr/bin/env python3
"""Host tests of rqpath's blktests export (blktests/): the numbers
rqpath-overlay gives the tests in a checkout, and the parts of the tests
that can run without a kernel.  Nothing here runs blktests' ./check.

  python3 tests/host/blktests_test.py [-v]
"""

import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OVERLAY = os.path.join(TOP, "blktests", "rqpath-overlay")

MAKEFILE = """\
C_TARGETS := \\
\tbio-bounce-read \\
\tloop_get_status_null \\
\tmount_clear_sock \\
\tzbdioctl

CXX_TARGETS := \\
\tdiscontiguous-io
"""


def overlay(*args, check=True):
    proc = subprocess.run([OVERLAY, *args], capture_output=True, text=True, timeout=60)
    if check and proc.returncode != 0:
        raise AssertionError(f"rqpath-overlay {' '.join(args)}: exit {proc.returncode}: {proc.stderr}")
    return proc


class Numbers(unittest.TestCase):
    """A fake checkout: block/001..047 with a gap, dm/001..003."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rqpath-blktests-")
        self.addCleanup(shutil.rmtree, self.dir)
        for group, numbers in (("block", [n for n in range(1, 48) if n != 30]), ("dm", [1, 2, 3])):
            os.makedirs(os.path.join(self.dir, "tests", group))
            for n in numbers:
                for suffix in ("", ".out"):
                    self.write(f"tests/{group}/{n:03d}{suffix}", "")
            self.write(f"tests/{group}/rc", "")
        os.makedirs(os.path.join(self.dir, "src"))
        self.write("src/Makefile", MAKEFILE)
        self.write("src/.gitignore", "/bio-bounce-read\n")
        self.write("check", "#!/bin/bash\n")
        os.chmod(os.path.join(self.dir, "check"), 0o755)

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def mapping(self):
        return dict(line.split() for line in overlay("map", self.dir).stdout.splitlines())

    def test_the_tests_have_names_not_numbers(self):
        names = overlay("names").stdout.split()
        self.assertEqual(names, ["block/merge-prepared", "dm/mpath-busy-ops"])

    def test_the_next_free_number_is_the_highest_plus_one(self):
        self.assertEqual(self.mapping(), {"block/merge-prepared": "block/048", "dm/mpath-busy-ops": "dm/004"})

    def test_install_lays_the_tests_at_their_numbers(self):
        overlay("install", self.dir)
        self.assertTrue(os.access(os.path.join(self.dir, "tests/block/048"), os.X_OK))
        self.assertEqual(self.read("tests/block/048.out").splitlines()[0], "Running block/048")
        self.assertEqual(self.read("tests/dm/004.out").splitlines()[0], "Running dm/004")
        self.assertFalse(os.access(os.path.join(self.dir, "tests/dm/004.out"), os.X_OK))
        self.assertIn("\tloop_get_status_null \\\n\tmerge_into_prepared \\\n\tmount_clear_sock \\\n",
                      self.read("src/Makefile"))
        self.assertEqual(self.read("src/.gitignore"), "/bio-bounce-read\n/merge_into_prepared\n")
        self.assertTrue(os.path.exists(os.path.join(self.dir, "src/merge_into_prepared.c")))
        # Installed, the numbers are the recorded ones, not the next free.
        self.assertEqual(self.mapping(), {"block/merge-prepared": "block/048", "dm/mpath-busy-ops": "dm/004"})

    def test_installed_it_reads_the_map(self):
        # As in the guest image: the helper beside the installed tests,
        # with no overlay tests/ of its own to count from.
        overlay("install", self.dir)
        shutil.copy(OVERLAY, self.dir)
        for n in (48, 49):
            self.write(f"tests/block/{n:03d}.out", "")
        mine = os.path.join(self.dir, "rqpath-overlay")
        names = subprocess.run([mine, "names"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(names.split(), ["block/merge-prepared", "dm/mpath-busy-ops"])
        mapped = subprocess.run([mine, "map", self.dir], capture_output=True, text=True, check=True).stdout
        self.assertEqual(mapped.split(), ["block/merge-prepared", "block/048", "dm/mpath-busy-ops", "dm/004"])

    def test_one_test_at_a_time(self):
        overlay("install", self.dir, "dm/mpath-busy-ops")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "tests/block/048")))
        self.assertNotIn("merge_into_prepared", self.read("src/Makefile"))
        overlay("install", self.dir, "block/merge-prepared")
        self.assertEqual(self.mapping(), {"block/merge-prepared": "block/048", "dm/mpath-busy-ops": "dm/004"})
        again = overlay("install", self.dir, "block/merge-prepared", check=False)
        self.assertNotEqual(again.returncode, 0)
        self.assertIn("already installed", again.stderr)

    def test_a_taken_number_is_never_overwritten(self):
        # An upstream 048.out without its test: the number is not free.
        self.write("tests/block/048.out", "upstream\n")
        proc = overlay("install", self.dir, check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("tests/block/048.out exists", proc.stderr)
        self.assertIn("not overwriting", proc.stderr)
        self.assertEqual(self.read("tests/block/048.out"), "upstream\n")

    def test_a_makefile_without_c_targets_is_an_error(self):
        self.write("src/Makefile", "TARGETS := foo\n")
        proc = overlay("install", self.dir, check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("no place for merge_into_prepared", proc.stderr)

    def test_the_programs_come_from_the_tests(self):
        self.assertEqual(overlay("programs").stdout.split(), ["merge_into_prepared"])
        self.assertEqual(overlay("programs", "dm/mpath-busy-ops").stdout.split(), [])


# block_rq_requeue lines as the kernels print them: before v6.19 write
# zeroes is N; since bc49af56eea8 it is WZ, and the event has the ioprio
# field.  Device 253,0 is the dm device.
TRACE = """\
# tracer: nop
      blkdiscard-203     [001] d..1.    12.345678: block_rq_requeue: 253,0 D () 0 + 2048 [0]
    kworker/1:1H-45      [001] d..1.    12.346000: block_rq_requeue: 253,0 D () 0 + 2048 [0]
      blkdiscard-204     [000] d..1.    13.000000: block_rq_requeue: 253,0 N () 0 + 2048 [0]
      blkdiscard-205     [000] d..1.    14.000000: block_rq_requeue: 253,0 WZ () 0 + 2048 none,0,0 [0]
      blkdiscard-205     [000] d..1.    14.000100: block_rq_requeue: 253,0 WZS () 0 + 2048 none,0,0 [0]
    kworker/0:1H-44      [000] d..1.    14.000200: block_rq_requeue: 253,0 WZS () 0 + 2048 none,0,0 [0]
            sync-206     [001] d..1.    15.000000: block_rq_requeue: 253,0 FF () 0 + 0 [0]
            sync-207     [001] d..1.    15.100000: block_rq_requeue: 253,0 FF () 0 + 0 none,0,0 [0]
      blkdiscard-208     [000] d..1.    16.000000: block_rq_requeue: 253,0 DE () 0 + 2048 [0]
             dd-209      [000] d..1.    16.100000: block_rq_requeue: 253,0 WS () 8 + 8 none,0,0 [0]
             dd-209      [000] d..1.    16.200000: block_rq_requeue: 253,0 W () 8 + 8 [0]
             dd-209      [000] d..1.    16.300000: block_rq_requeue: 253,0 FWS () 8 + 8 [0]
      blkdiscard-210     [000] d..1.    17.000000: block_rq_requeue: 8,0 WZS () 0 + 2048 none,0,0 [0]
      blkdiscard-210     [000] d..1.    17.100000: block_rq_requeue: 8,0 N () 0 + 2048 [0]
      blkdiscard-211     [000] d..1.    18.000000: block_rq_issue: 253,0 WZS () 0 + 2048 none,0,0 [blkdiscard]
"""


class RequeueCount(unittest.TestCase):
    """The dm test's count_requeues, sourced from the test under bash with
    blktests' rc files stubbed out."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rqpath-blktests-")
        self.addCleanup(shutil.rmtree, self.dir)
        for stub in ("tests/dm/rc", "common/scsi_debug"):
            os.makedirs(os.path.join(self.dir, os.path.dirname(stub)), exist_ok=True)
            open(os.path.join(self.dir, stub), "w").close()
        with open(os.path.join(self.dir, "trace"), "w") as f:
            f.write(TRACE)
        self.test = os.environ.get("RQPATH_DM_TEST", os.path.join(TOP, "blktests/tests/dm/mpath-busy-ops"))

    def count(self, dev, op):
        proc = subprocess.run(["bash", "-c", f'. "{self.test}" && count_requeues {dev} {op} trace'],
                              cwd=self.dir, capture_output=True, text=True, timeout=30)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return int(proc.stdout)

    def test_write_zeroes_is_n_before_6_19_and_wz_since(self):
        self.assertEqual(self.count("253,0", "write-zeroes"), 4)

    def test_discard_is_not_secure_erase(self):
        self.assertEqual(self.count("253,0", "discard"), 2)

    def test_flush_with_and_without_ioprio(self):
        self.assertEqual(self.count("253,0", "flush"), 2)

    def test_another_device_does_not_count(self):
        self.assertEqual(self.count("8,0", "write-zeroes"), 2)
        self.assertEqual(self.count("8,0", "discard"), 0)

    def test_an_unknown_operation_is_an_error(self):
        proc = subprocess.run(["bash", "-c", f'. "{self.test}" && count_requeues 253,0 read trace'],
                              cwd=self.dir, capture_output=True, text=True, timeout=30)
        self.assertNotEqual(proc.returncode, 0)


BLKTESTS_DIR = os.environ.get("BLKTESTS_DIR", os.path.join(TOP, "..", "shared", "blktests"))
IDENTITY = {"GIT_AUTHOR_NAME": "rqpath host test", "GIT_AUTHOR_EMAIL": "rqpath@invalid",
            "GIT_COMMITTER_NAME": "rqpath host test", "GIT_COMMITTER_EMAIL": "rqpath@invalid"}


@unittest.skipUnless(os.path.exists(os.path.join(BLKTESTS_DIR, "check")), f"no blktests checkout at {BLKTESTS_DIR}")
class Series(unittest.TestCase):
    """blktests/make-series against the pinned checkout: the series applies
    with git am to a fresh copy and blktests' own make check passes there."""

    def run_in(self, cwd, *args, timeout=120):
        env = dict(os.environ, **IDENTITY)
        proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        self.assertEqual(proc.returncode, 0, f"{' '.join(args)}: {proc.stdout[-3000:]}{proc.stderr[-3000:]}")
        return proc.stdout

    def test_the_series_applies_and_passes_make_check(self):
        d = tempfile.mkdtemp(prefix="rqpath-series-")
        self.addCleanup(shutil.rmtree, d)
        out, copy = os.path.join(d, "out"), os.path.join(d, "blktests")
        self.run_in(TOP, os.path.join(TOP, "blktests", "make-series"), BLKTESTS_DIR, out)
        patches = sorted(os.listdir(out))
        expect = overlay("map", BLKTESTS_DIR).stdout.split()[1::2]
        self.assertEqual(len(patches), len(expect))
        for patch, num in zip(patches, expect):
            with open(os.path.join(out, patch)) as f:
                text = f.read()
            subject = text.split("Subject: [PATCH ", 1)[1].split("\n\n", 1)[0].replace("\n", "")
            self.assertIn(f"] {num}: ", subject)
            self.assertLessEqual(len(subject.split("] ", 1)[1]), 72, subject)
            self.assertNotIn("Signed-off-by:", text)
        shutil.copytree(BLKTESTS_DIR, copy, symlinks=True)
        self.run_in(d, "chmod", "-R", "u+w", copy)
        self.run_in(copy, "git", "init", "-q")
        self.run_in(copy, "git", "add", "-A")
        self.run_in(copy, "git", "commit", "-q", "-m", "pristine")
        self.run_in(copy, "git", "am", "-q", *[os.path.join(out, p) for p in patches])
        log = self.run_in(copy, "git", "log", "--format=%s", "-n", str(len(patches)))
        self.assertEqual([line.split(":")[0] for line in reversed(log.splitlines())], expect)
        for num in expect:
            with open(os.path.join(copy, "tests", num + ".out")) as f:
                self.assertEqual(f.readline(), f"Running {num}\n")
        self.run_in(copy, "make", "-s", "-C", "src", "merge_into_prepared", "CFLAGS=-Wall -Wextra -Werror")
        if os.environ.get("RQPATH_BLKTESTS_MAKE_CHECK", "1") != "0":
            self.run_in(copy, "make", "check", timeout=3600)


if __name__ == "__main__":
    unittest.main()
