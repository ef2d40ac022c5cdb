#!/usr/bin/env python3
"""Unit tests of the harness's verdicts (tests/harness/guest.py), with a fake
QEMU that plays back what a guest would print.  Each test is a hole a broken
run could slip through; no kernel runs.

  python3 tests/host/harness_test.py [-v]
"""

import contextlib
import io
import json
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))

FAKE_QEMU = textwrap.dedent("""\
    #!/usr/bin/env python3
    # A stand-in for qemu-system-x86_64: writes the script's lines to the
    # files named by -serial file:..., in order, then exits.  A plan with
    # "attempts" is one plan per run (the last for any run after them);
    # every run adds a line to FAKE_PLAN.runs.
    import json, os, sys, time
    args = sys.argv[1:]
    serials = [a[5:] for i, a in enumerate(args) if i and args[i - 1] == "-serial" and a.startswith("file:")]
    plan = json.load(open(os.environ["FAKE_PLAN"]))
    with open(os.environ["FAKE_PLAN"] + ".runs", "a+") as runs:
        runs.write("run\\n")
        runs.seek(0)
        run = len(runs.readlines())
    if "attempts" in plan:
        plan = plan["attempts"][min(run, len(plan["attempts"])) - 1]
    files = {"console": open(serials[0], "a"), "results": open(serials[1], "a")}
    for step in plan.get("lines", []):
        if "sleep" in step:
            time.sleep(step["sleep"])
            continue
        f = files[step["to"]]
        f.write(step["line"] + "\\n")
        f.flush()
    if plan.get("hang"):
        time.sleep(3600)
    sys.exit(plan.get("exit", 0))
    """)


def result_line(name, verdict="clean", **details):
    return "RQPATH-RESULT " + json.dumps({"scenario": name, "stage": "stock", "verdict": verdict,
                                          "seconds": 1.0, "timing": {"workload": 0.5},
                                          "details": details})


def checked_line(name, reports=(), problems=(), allowed=()):
    return f"RQPATH-CHECKED {name} " + json.dumps({"new_reports": list(reports),
                                                   "cleanup_problems": list(problems),
                                                   "kmemleak": [], "cleanup_seconds": 0.1,
                                                   "allowed_reports": list(allowed)})


def ok_scenario(name):
    """The lines of a scenario that ran clean and cleaned up."""
    return [{"to": "results", "line": f"RQPATH-START {name} t=1.0"},
            {"to": "console", "line": f"rqpath: START {name} #1"},
            {"to": "results", "line": result_line(name)},
            {"to": "results", "line": checked_line(name)},
            {"to": "console", "line": f"rqpath: CHECKED {name} #1"}]


class FakeKernel:
    tree, stage, variant, release = "6.1", "stock", "normal", "6.1.0-fake"
    bzimage = initramfs = "/dev/null"
    label = "6.1/stock"


class HarnessTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        qemu = os.path.join(self.dir, "qemu")
        with open(qemu, "w") as f:
            f.write(FAKE_QEMU)
        os.chmod(qemu, os.stat(qemu).st_mode | stat.S_IEXEC)
        os.environ["RQPATH_QEMU"] = qemu
        import harness.guest as guest
        guest.QEMU = qemu
        guest.END_GRACE = 1
        self.guest = guest
        self.logdir = os.path.join(self.dir, "logs")
        os.makedirs(self.logdir)

    def tearDown(self):
        self.tmp.cleanup()

    def boot(self, plan, names=("a", "b"), timeout=30, tag="t", accel="tcg", on_result=None,
             boot_deadline=10):
        path = os.path.join(self.dir, "plan.json")
        with open(path, "w") as f:
            json.dump(plan, f)
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + ".runs")
        os.environ["FAKE_PLAN"] = path
        scenarios = [self.guest.Scenario(n, timeout, []) for n in names]
        b = self.guest.Boot(FakeKernel(), scenarios, accel, self.logdir, tag, boot_deadline=boot_deadline,
                            on_result=on_result)
        results = b.run()
        return {r["scenario"]: r for r in results}, b

    def qemu_runs(self):
        """How many times the fake QEMU ran for the last boot()."""
        with open(os.path.join(self.dir, "plan.json.runs")) as f:
            return len(f.readlines())

    def booted(self):
        return [{"to": "results", "line": "RQPATH-BOOTED stage=stock kernel=x cpus=2 t=1.0"}]

    def test_clean_run(self):
        rs, b = self.boot({"lines": self.booted() + ok_scenario("a") + ok_scenario("b")
                           + [{"to": "results", "line": "RQPATH-DONE"}]})
        self.assertEqual([rs["a"]["verdict"], rs["b"]["verdict"]], ["clean", "clean"])
        self.assertIn("cleanup", rs["a"]["timing"])
        self.assertNotIn("boot_retried", rs["a"]["details"])
        self.assertIsNone(b.timing()["retried"])

    def test_stale_results_are_not_replayed(self):
        """A passing boot, then one whose QEMU fails at once: error, not the
        old verdicts (the files of a boot are fresh every time)."""
        rs, _ = self.boot({"lines": self.booted() + ok_scenario("a") + ok_scenario("b")
                           + [{"to": "results", "line": "RQPATH-DONE"}]})
        self.assertEqual(rs["a"]["verdict"], "clean")
        rs, b = self.boot({"lines": [], "exit": 1})
        self.assertEqual(rs["a"]["verdict"], "error")
        self.assertEqual(rs["b"]["verdict"], "error")
        self.assertIn("QEMU exited with status 1", rs["a"]["details"]["reason"])

    def test_qemu_failing_after_results(self):
        """QEMU exits non-zero without RQPATH-DONE: every result is error."""
        rs, _ = self.boot({"lines": self.booted() + ok_scenario("a"), "exit": 1})
        self.assertEqual(rs["a"]["verdict"], "error")

    def test_crash_after_verdict(self):
        """A verdict, then an oops during the scenario's cleanup: crashed."""
        lines = self.booted() + ok_scenario("a")[:3] + [
            {"to": "console", "line": "BUG: kernel NULL pointer dereference, address: 0000000000000008"},
            {"to": "console", "line": "Kernel panic - not syncing: Fatal exception"}]
        rs, _ = self.boot({"lines": lines})
        self.assertEqual(rs["a"]["verdict"], "crashed")
        self.assertEqual(rs["a"]["details"]["scenario_verdict"], "clean")

    def test_a_crash_revises_a_reported_result(self):
        """A KASAN report on the console between a's start and its
        post-cleanup check, both of which came: crashed, and the harness
        hears of the change (tests/run judges pass or fail there)."""
        heard = []
        lines = self.booted() + ok_scenario("a")[:3] + [
            {"to": "console", "line": "BUG: KASAN: slab-out-of-bounds in foo+0x1/0x2"}] + \
            ok_scenario("a")[3:] + [{"to": "results", "line": "RQPATH-DONE"}]
        rs, _ = self.boot({"lines": lines}, names=("a",), on_result=lambda r: heard.append(r["verdict"]))
        self.assertEqual(rs["a"]["verdict"], "crashed")
        self.assertEqual(heard[-1], "crashed")

    def test_a_report_the_scenario_allowed_is_not_a_crash(self):
        """debug-canary makes a KASAN report on purpose and allows it."""
        kasan = "[   15.8] BUG: KASAN: slab-out-of-bounds in canary_kasan+0x85/0xa0 [rqpath_canary]"
        allowed = result_line("a", kernel_reports_allowed=[kasan + " (allowed: on purpose)"])
        lines = self.booted() + ok_scenario("a")[:2] + [{"to": "results", "line": allowed},
                                                         {"to": "console", "line": kasan}] + \
            ok_scenario("a")[3:] + [{"to": "results", "line": "RQPATH-DONE"}]
        rs, _ = self.boot({"lines": lines}, names=("a",))
        self.assertEqual(rs["a"]["verdict"], "clean")
        lines[-4]["line"] = kasan.replace("canary_kasan", "other_function")
        rs, _ = self.boot({"lines": lines}, names=("a",))
        self.assertEqual(rs["a"]["verdict"], "crashed")

    def test_crash_in_a_later_scenario(self):
        """a passed its post-cleanup check before b crashed: a stands."""
        lines = self.booted() + ok_scenario("a") + [
            {"to": "results", "line": "RQPATH-START b t=2.0"},
            {"to": "console", "line": "rqpath: START b #2"},
            {"to": "console", "line": "Oops: 0000 [#1] PREEMPT SMP"}]
        rs, _ = self.boot({"lines": lines})
        self.assertEqual(rs["a"]["verdict"], "clean")
        self.assertEqual(rs["b"]["verdict"], "crashed")

    # Kernel reports outside every scenario's window (from its START to its
    # CHECKED marker): read by nobody but the harness.
    PANIC = {"to": "console", "line": "[   50.1] Kernel panic - not syncing: Fatal exception"}

    def test_a_panic_after_the_last_check(self):
        """A panic after the boot's last post-cleanup check, in what b left
        behind: b crashed; a, whose aftermath was clean, stands."""
        rs, _ = self.boot({"lines": self.booted() + ok_scenario("a") + ok_scenario("b") + [self.PANIC]})
        self.assertEqual(rs["a"]["verdict"], "clean")
        self.assertEqual(rs["b"]["verdict"], "crashed")
        self.assertIn("Kernel panic", rs["b"]["details"]["reason"])

    def test_a_panic_between_two_scenarios(self):
        """A panic after a's check, before b starts: a crashed, and b runs
        again in a new boot."""
        rs, b = self.boot({"lines": self.booted() + ok_scenario("a") + [self.PANIC]})
        self.assertEqual(rs["a"]["verdict"], "crashed")
        self.assertEqual([s.name for s in b.pending], ["b"])

    def test_a_report_between_two_scenarios_fails_both(self):
        """A KASAN report the kernel survives, or a warning, after a's check
        and before b's start: a's aftermath, and b ran on a kernel that had
        reported; neither is clean, and the harness hears of both."""
        for report, verdict in (("[ 20.5] BUG: KASAN: use-after-free in blk_mq_free_request+0x1/0x2", "crashed"),
                                ("[ 20.5] WARNING: CPU: 1 PID: 9 at block/blk-mq.c:1 x", "warned")):
            heard = {}
            lines = self.booted() + ok_scenario("a") + [{"to": "console", "line": report}] + \
                ok_scenario("b") + [{"to": "results", "line": "RQPATH-DONE"}]
            rs, _ = self.boot({"lines": lines}, on_result=lambda r: heard.update({r["scenario"]: r["verdict"]}))
            self.assertEqual([rs["a"]["verdict"], rs["b"]["verdict"]], [verdict, verdict], report)
            self.assertEqual(heard, {"a": verdict, "b": verdict})
            self.assertIn(report[8:], rs["b"]["details"]["reason"])

    def test_a_report_before_the_first_scenario_fails_every_one(self):
        lines = self.booted() + [{"to": "console", "line": "[ 2.0] WARNING: CPU: 0 PID: 1 at lib/x.c:1 y"}] + \
            ok_scenario("a") + ok_scenario("b") + [{"to": "results", "line": "RQPATH-DONE"}]
        rs, _ = self.boot({"lines": lines})
        self.assertEqual([rs["a"]["verdict"], rs["b"]["verdict"]], ["warned", "warned"])

    def test_a_report_after_an_unusable_scenario(self):
        """a leaves the guest unusable and the boot ends; what the kernel
        printed after a's check is read: the hung task a allowed is its
        own, any other report fails a."""
        hung = "INFO: task blkdiscard:77 blocked for more than 30 seconds."
        allowed = ["task blkdiscard:[0-9]+ blocked for more than"]
        for report, verdict in ((hung, "livelocked"),
                                (hung.replace("blkdiscard:77", "kworker/u4:2:51"), "warned")):
            lines = self.booted() + ok_scenario("a")[:2] + [
                {"to": "results", "line": result_line("a", "livelocked")},
                {"to": "results", "line": checked_line("a", problems=["cannot unload dm_rqpath"], allowed=allowed)},
                {"to": "console", "line": "rqpath: CHECKED a #1"},
                {"to": "results", "line": "RQPATH-STOP a the livelocked blkdiscard holds the device"},
                {"to": "results", "line": "RQPATH-DONE"},
                {"to": "console", "line": "[  60.0] " + report}]
            rs, b = self.boot({"lines": lines})
            self.assertEqual(rs["a"]["verdict"], verdict, report)
            self.assertEqual([s.name for s in b.pending], ["b"])

    def test_kernel_report_after_verdict(self):
        """A warning logged during cleanup fails the scenario."""
        lines = self.booted() + ok_scenario("a")[:3] + [
            {"to": "results", "line": checked_line("a", reports=["WARNING: CPU: 1 PID: 9 at block/blk-mq.c:1 x"])},
            {"to": "results", "line": "RQPATH-DONE"}]
        rs, _ = self.boot({"lines": lines}, names=("a",))
        self.assertEqual(rs["a"]["verdict"], "warned")

    def test_cleanup_failure(self):
        """A clean verdict whose cleanup could not unload its module: error,
        and the boot ends so that the next scenario gets a fresh guest."""
        lines = self.booted() + ok_scenario("a")[:3] + [
            {"to": "results", "line": checked_line("a", problems=["cannot unload dm_rqpath"])},
            {"to": "results", "line": "RQPATH-STOP a cleanup after a: cannot unload dm_rqpath"},
            {"to": "results", "line": "RQPATH-DONE"}]
        rs, b = self.boot({"lines": lines})
        self.assertEqual(rs["a"]["verdict"], "error")
        self.assertNotIn("b", rs)
        self.assertEqual([s.name for s in b.pending], ["b"])

    def test_unusable_guest_hands_back_the_rest(self):
        """A livelocked scenario stops the boot; the next goes to a new boot."""
        lines = self.booted() + ok_scenario("a")[:2] + [
            {"to": "results", "line": result_line("a", "livelocked")},
            {"to": "results", "line": checked_line("a", problems=["cannot unload scsi_debug"])},
            {"to": "results", "line": "RQPATH-STOP a the livelocked blkdiscard holds the device"},
            {"to": "results", "line": "RQPATH-DONE"}]
        rs, b = self.boot({"lines": lines})
        self.assertEqual(rs["a"]["verdict"], "livelocked")
        self.assertEqual([s.name for s in b.pending], ["b"])

    def test_unreadable_verdict_line(self):
        """A verdict line that is not JSON (dash's echo once turned its
        escapes into characters) is an error, not a harness crash."""
        lines = self.booted() + ok_scenario("a")[:2] + [
            {"to": "results", "line": 'RQPATH-RESULT {"scenario": "a", "verdict": "clean", "x": "tab\there"}'},
            {"to": "results", "line": checked_line("a")},
            {"to": "results", "line": "RQPATH-DONE"}]
        rs, _ = self.boot({"lines": lines}, names=("a",))
        self.assertEqual(rs["a"]["verdict"], "error")
        self.assertIn("not JSON", rs["a"]["details"]["reason"])

    def test_a_verdict_line_without_a_verdict_is_an_error(self):
        """A RESULT line without a verdict (or not an object) is that
        scenario's error, naming the line; the boot goes on."""
        for bad in ('{"scenario": "a", "seconds": 1.0}', '["a", "clean"]'):
            lines = self.booted() + [{"to": "results", "line": "RQPATH-START"}] + ok_scenario("a")[:2] + [
                {"to": "results", "line": "RQPATH-RESULT " + bad}] + ok_scenario("a")[3:] + \
                ok_scenario("b") + [{"to": "results", "line": "RQPATH-DONE"}]
            rs, _ = self.boot({"lines": lines})
            self.assertEqual(rs["a"]["verdict"], "error", bad)
            self.assertIn(bad, rs["a"]["details"]["reason"])
            self.assertEqual(rs["b"]["verdict"], "clean")

    def test_a_verdict_line_with_seconds_that_are_no_number_is_an_error(self):
        """The matrix holds a result's seconds as a number or null
        (model.Result): anything else from the guest is that scenario's
        error, not a harness that stops without its matrix."""
        for seconds in ('"12.5"', "true", "[]"):
            bad = '{"scenario": "a", "verdict": "clean", "seconds": %s}' % seconds
            lines = self.booted() + ok_scenario("a")[:2] + [
                {"to": "results", "line": "RQPATH-RESULT " + bad}] + ok_scenario("a")[3:] + \
                ok_scenario("b") + [{"to": "results", "line": "RQPATH-DONE"}]
            rs, _ = self.boot({"lines": lines})
            self.assertEqual(rs["a"]["verdict"], "error", bad)
            self.assertIn("seconds", rs["a"]["details"]["reason"])
            self.assertEqual(rs["b"]["verdict"], "clean")

    def test_a_check_without_a_verdict_is_an_error(self):
        """A CHECKED line for a scenario that sent no verdict is its error,
        naming the line; the boot goes on."""
        lines = self.booted() + ok_scenario("a")[:2] + ok_scenario("a")[3:] + \
            ok_scenario("b") + [{"to": "results", "line": "RQPATH-DONE"}]
        rs, _ = self.boot({"lines": lines})
        self.assertEqual(rs["a"]["verdict"], "error")
        self.assertIn("RQPATH-CHECKED a", rs["a"]["details"]["reason"])
        self.assertEqual(rs["b"]["verdict"], "clean")

    def test_no_verdict_within_timeout(self):
        lines = self.booted() + [{"to": "results", "line": "RQPATH-START a t=1.0"}]
        rs, b = self.boot({"lines": lines, "hang": True}, timeout=2)
        self.assertEqual(rs["a"]["verdict"], "hung")
        # The rest runs in a new boot.
        self.assertEqual([s.name for s in b.pending], ["b"])

    def test_never_boots(self):
        rs, _ = self.boot({"lines": [], "hang": True})
        self.assertEqual(rs["a"]["verdict"], "error")
        self.assertIn("did not boot", rs["a"]["details"]["reason"])

    # A TCG guest that hung early: the kernel's first lines, then nothing.
    EARLY_HANG = [{"to": "console", "line": "[    0.000000] Linux version 6.12.0-fake"},
                  {"to": "console", "line": "[    0.412345] MTRR map: 4 entries (3 fixed + 1 variable; max 19),"
                                            " built from 8 variable MTRRs\r"}]
    STOPPED_AT = "[    0.412345] MTRR map: 4 entries (3 fixed + 1 variable; max 19), built from 8 variable MTRRs"

    def test_a_boot_that_hung_before_init_is_booted_again(self):
        """An emulator's flake: the first attempt hangs quietly before
        init, the second boots.  The verdicts are the second attempt's,
        each saying the boot was retried and where the first stopped, and
        the first attempt's logs stay beside the second's."""
        heard = []
        second = self.booted() + ok_scenario("a") + ok_scenario("b")[:2] + [
            {"to": "results", "line": result_line("b", "corrupted")}] + ok_scenario("b")[3:] + [
            {"to": "results", "line": "RQPATH-DONE"}]
        rs, b = self.boot({"attempts": [{"lines": self.EARLY_HANG, "hang": True}, {"lines": second}]},
                          boot_deadline=2, on_result=heard.append)
        self.assertEqual(self.qemu_runs(), 2)
        self.assertEqual([rs["a"]["verdict"], rs["b"]["verdict"]], ["clean", "corrupted"])
        retried = f"first attempt never reached init (console stopped at: {self.STOPPED_AT})"
        for r in list(rs.values()) + heard:
            self.assertEqual(r["details"]["boot_retried"], retried, r["scenario"])
        self.assertEqual(sorted(r["scenario"] for r in heard), ["a", "b"])
        timing = b.timing()
        self.assertEqual(timing["retried"], retried)
        self.assertIsNone(timing["killed"])
        self.assertLess(timing["to_init"], 2, "seconds to init counted from the first attempt's start")
        with open(os.path.join(b.dir, "console-attempt1.log")) as f:
            self.assertIn("MTRR map", f.read())
        self.assertTrue(os.path.exists(os.path.join(b.dir, "qemu-attempt1.log")))
        with open(b.console) as f:
            self.assertNotIn("MTRR map", f.read())

    def test_a_boot_that_hangs_before_init_twice_is_an_error(self):
        rs, b = self.boot({"lines": self.EARLY_HANG, "hang": True}, boot_deadline=2)
        self.assertEqual(self.qemu_runs(), 2)
        for r in rs.values():
            self.assertEqual(r["verdict"], "error")
            self.assertIn("did not boot", r["details"]["reason"])
            self.assertIn("both attempts", r["details"]["reason"])
            self.assertIn("first attempt never reached init", r["details"]["boot_retried"])
        self.assertIn("both attempts", b.timing()["killed"])

    def test_a_kernel_report_before_init_is_not_retried(self):
        """A panic (or any report) before init, then the guest hangs: the
        kernel's own result, not the emulator's flake."""
        for report, verdict in (("[    0.5] Kernel panic - not syncing: VFS: Unable to mount root fs", "crashed"),
                                ("[    0.5] WARNING: CPU: 0 PID: 1 at arch/x86/kernel/x.c:1 y", "warned")):
            rs, b = self.boot({"lines": self.EARLY_HANG + [{"to": "console", "line": report}], "hang": True},
                              boot_deadline=2)
            self.assertEqual(self.qemu_runs(), 1, report)
            for r in rs.values():
                self.assertEqual(r["verdict"], verdict, report)
                self.assertNotIn("boot_retried", r["details"])

    def test_a_qemu_that_exits_before_init_is_not_retried(self):
        """A QEMU that fails (a broken command line) or ends by itself
        before init is not the hang a retry is for."""
        for exit_code, reason in ((1, "QEMU exited with status 1"), (0, "no boot marker")):
            rs, b = self.boot({"lines": self.EARLY_HANG, "exit": exit_code}, boot_deadline=2)
            self.assertEqual(self.qemu_runs(), 1, reason)
            for r in rs.values():
                self.assertEqual(r["verdict"], "error", reason)
                self.assertIn(reason, r["details"]["reason"])
                self.assertNotIn("boot_retried", r["details"])
            self.assertIsNone(b.timing()["retried"])

    def test_a_fresh_attempt_keeps_nothing_of_the_last(self):
        """Whatever a run learnt (booted, scenario states, why it was
        killed, the handed-back scenarios, ...) is forgotten before the
        retry: after _start_afresh the boot is as one that never ran."""
        plan = os.path.join(self.dir, "plan.json")
        lines = self.booted() + ok_scenario("a") + [
            {"to": "results", "line": "RQPATH-STOP a the guest is unusable"},
            {"to": "results", "line": "RQPATH-DONE"}]
        with open(plan, "w") as f:
            json.dump({"lines": lines, "hang": True}, f)
        os.environ["FAKE_PLAN"] = plan
        kernel, scenarios = FakeKernel(), [self.guest.Scenario("a", 30, ["virtio-disk"]),
                                           self.guest.Scenario("b", 30, [])]

        def new_boot():
            return self.guest.Boot(kernel, scenarios, "tcg", self.logdir, "t", boot_deadline=10,
                                   on_result=print)

        def state(b):
            # What a boot, not one attempt, keeps.
            per_boot = ("seconds", "retried")
            return {k: [vars(st) for st in v] if k == "states" else v
                    for k, v in vars(b).items() if k not in per_boot}

        with contextlib.redirect_stdout(io.StringIO()):
            b = new_boot()
            b.run()
        self.assertTrue(b.booted and b.done and b.stopped and b.pending and b.killed_by and b.hardware_images)
        b._start_afresh()
        self.assertEqual(state(b), state(new_boot()))

    def test_the_guest_is_told_the_slowdown(self):
        """A debug kernel's time-bounded workloads run as much longer as its
        deadlines are stretched: the guest reads rqpath.slowdown."""
        k = FakeKernel()
        scenarios = [self.guest.Scenario("a", 30, [])]
        normal = self.guest.Boot(k, scenarios, "tcg", self.logdir, "n").append_line().split()
        debug = self.guest.Boot(k, scenarios, "tcg", self.logdir, "d", slowdown=8.0).append_line().split()
        self.assertIn("rqpath.slowdown=1", normal)
        self.assertIn("rqpath.slowdown=8", debug)

    def test_a_stopped_harness_leaves_no_guest(self):
        """QEMU runs in a session of its own, so neither Ctrl-C nor a CI
        job's SIGTERM reaches it, and the boot's cleanup runs in a worker
        thread that a stopped harness never finishes."""
        plan = os.path.join(self.dir, "plan.json")
        with open(plan, "w") as f:
            json.dump({"lines": self.booted(), "hang": True}, f)
        script = textwrap.dedent(f"""\
            import os, sys, threading, time
            sys.path.insert(0, {os.path.join(TOP, "tests")!r})
            sys.path.insert(0, {os.path.join(TOP, "tests/host")!r})
            import harness.guest as guest
            from harness_test import FakeKernel
            guest.QEMU = {os.environ["RQPATH_QEMU"]!r}
            os.environ["FAKE_PLAN"] = {plan!r}
            guest.stop_on_signals()
            b = guest.Boot(FakeKernel(), [guest.Scenario("a", 30, [])], "tcg", {self.logdir!r}, "stop")
            threading.Thread(target=b.run, daemon=True).start()
            while not guest.RUNNING:
                time.sleep(0.1)
            print(next(iter(guest.RUNNING)), flush=True)
            time.sleep(60)
            """)
        p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        qemu = int(p.stdout.readline())
        os.kill(p.pid, 15)
        rc = p.wait(timeout=20)
        for _ in range(50):
            try:
                os.kill(qemu, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.killpg(qemu, 9)
            self.fail(f"QEMU {qemu} still runs after the harness was stopped")
        self.assertEqual(rc, 128 + 15)

    def test_replay_script(self):
        _, b = self.boot({"lines": self.booted() + ok_scenario("a") + ok_scenario("b")
                          + [{"to": "results", "line": "RQPATH-DONE"}]})
        replay = os.path.join(b.dir, "replay")
        self.assertTrue(os.access(replay, os.X_OK))
        with open(replay) as f:
            self.assertIn("mon:stdio", f.read())


class PlanTest(unittest.TestCase):
    def test_shards_cover_every_boot_once(self):
        from harness import plan

        class K:
            def __init__(self, st):
                self.tree, self.stage, self.variant, self.label = "6.1", st, "normal", f"6.1/{st}"

        class S:
            def __init__(self, n, t):
                self.name, self.timeout, self.boot, self.hardware = n, t, "shared", []

        ks = [K(s) for s in ("stock", "base", "x", "y", "z")]
        ss = [S(f"s{i}", 30 + 20 * i) for i in range(12)]
        boots = plan.plan_boots(ks, ss, 1, plan.Estimates())
        tags = sorted(b.tag for b in boots)
        for n in (1, 2, 3, 4):
            parts = [plan.shard(boots, k, n) for k in range(1, n + 1)]
            self.assertEqual(sorted(b.tag for p in parts for b in p), tags)
            self.assertEqual(parts, [plan.shard(boots, k, n) for k in range(1, n + 1)])

    def test_a_scenario_restricted_to_stages_runs_only_there(self):
        from harness import plan

        class K:
            def __init__(self, st):
                self.tree, self.stage, self.variant, self.label = "6.1", st, "normal", f"6.1/{st}"

        class S:
            def __init__(self, n):
                self.name, self.timeout, self.boot, self.hardware = n, 60, "shared", []

        ks = [K(s) for s in ("stock", "base", "x")]
        boots = plan.plan_boots(ks, [S("a"), S("b")], 1, plan.Estimates(), {"b": {"base"}})
        ran = sorted((b.kernel.stage, s.name) for b in boots for s in b.scenarios)
        self.assertEqual(ran, [("base", "a"), ("base", "b"), ("stock", "a"), ("x", "a")])
        boots = plan.plan_boots(ks, [S("b")], 1, plan.Estimates(), {"b": {"base"}})
        self.assertEqual([b.kernel.stage for b in boots], ["base"])


class ProgressTest(unittest.TestCase):
    def test_time_left_weighs_what_finished_by_its_estimate(self):
        """A short scenario finished first says little of a long one: the
        time left is the estimated seconds left at the rate so far."""
        from harness import report

        cells = {("6.1", "stock", "smoke"): 10.0, ("6.1", "stock", "failover"): 90.0}
        p = report.Progress(cells, 2, 1)
        self.assertEqual(p.eta(), "1m40s")
        p.t0 = time.monotonic() - 10
        r = {"tree": "6.1", "stage": "stock", "scenario": "smoke", "boot": "b1",
             "verdict": "clean", "seconds": 10.0}
        with contextlib.redirect_stdout(io.StringIO()):
            p.result(r, ["clean"])
            p.result(r, ["clean"])  # a revised result is not a second one
        self.assertEqual(p.done, 1)
        self.assertIn(p.eta(), ("1m30s", "1m29s", "1m31s"))


class ScenarioHeaderTest(unittest.TestCase):
    def scenario(self, variant):
        from harness import scenarios
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.sh")
            with open(path, "w") as f:
                f.write(f"# rqpath scenario: x\n# expect: clean\n# variant: {variant}\n")
            return scenarios.Scenario(path)

    def test_variant(self):
        from harness import scenarios
        self.assertEqual(self.scenario("debug").variant, "debug")
        with self.assertRaisesRegex(scenarios.ScenarioError, "variant must be debug"):
            self.scenario("normal")


if __name__ == "__main__":
    unittest.main()
