#!/usr/bin/env python3
"""Host tests of the guest library (tests/guest/lib.sh and the family
files): the rules that turn what a scenario saw into its verdict, run under
dash as in the guest.  Nothing touches this machine's kernel: the library
is loaded with its /tmp files moved into a private folder and with dmesg,
the kernel log writer and the merge oracle replaced by files.

  python3 tests/host/guestlib_test.py [-v]
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUEST = os.path.join(TOP, "tests", "guest")

# The kernel log of a boot in which scenario "x" (the boot's second) starts
# after a first scenario that left a hung-task report about its own pid 5.
BOOT_LOG = """\
[   10.000000] rqpath: START first #1
[   30.000000] INFO: task blkdiscard:5 blocked for more than 5 seconds.
[   31.000000] rqpath: CHECKED first #1
[   32.000000] rqpath: START x #2
"""

CLEAN_ORACLE = "prepared_merges 0\nunattributed_merges 0\nmissed_probes 0\n"


class GuestLib(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rqpath-guestlib-")
        self.addCleanup(shutil.rmtree, self.dir)
        for name in ("lib.sh", "livelock.sh", "multipath.sh", "blktests.sh"):
            with open(os.path.join(GUEST, name)) as f:
                text = f.read()
            # The guest's paths, into this test's folder.
            text = text.replace("/tmp/", self.dir + "/").replace("/rqpath/", self.dir + "/")
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        os.mkdir(os.path.join(self.dir, "oracle"))
        self.oracle(CLEAN_ORACLE)
        self.kernel_log(BOOT_LOG)

    def oracle(self, report):
        for name, text in (("report", report), ("report.json", "{}")):
            with open(os.path.join(self.dir, "oracle", name), "w") as f:
                f.write(text)

    def kernel_log(self, text):
        with open(os.path.join(self.dir, "dmesg"), "w") as f:
            f.write(text)

    def run_guest(self, body):
        """Run BODY in scenario "x" (its second of the boot); return the
        RESULT line's JSON and the shell's output."""
        d = self.dir
        script = f"""
. {d}/lib.sh
# The guest writes its protocol lines to a serial port; here they add up.
rq_report() {{ printf 'RQPATH-%s %s\\n' "$1" "$2" >> {d}/results; }}
RQ_ORACLE={d}/oracle
RQ_STAGE=test RQ_SEQ=1
dmesg() {{ cat {d}/dmesg; }}
rq_kmsg() {{ :; }}
rq_scenario_begin x
{body}
"""
        proc = subprocess.run(["dash", "-c", script], capture_output=True, text=True, timeout=60)
        results = os.path.join(d, "results")
        lines = []
        if os.path.exists(results):
            with open(results) as f:
                lines = [ln for ln in f.read().splitlines() if ln.startswith("RQPATH-RESULT ")]
        output = proc.stdout + proc.stderr
        self.assertLessEqual(len(lines), 1, output)
        return (json.loads(lines[0].split(" ", 1)[1]) if lines else None), output

    def checked(self):
        with open(os.path.join(self.dir, "results")) as f:
            lines = [ln for ln in f.read().splitlines() if ln.startswith("RQPATH-CHECKED x ")]
        self.assertEqual(len(lines), 1)
        return json.loads(lines[0].split(" ", 2)[2])

    def verdict(self, body):
        result, output = self.run_guest(body)
        self.assertIsNotNone(result, output)
        return result["verdict"], result["details"].get("reason", ""), result["details"]

    def test_no_failed_check_is_clean(self):
        verdict, _, details = self.verdict('rq_trigger t fired 3 1\nrq_finish clean "all well"')
        self.assertEqual(verdict, "clean")
        self.assertEqual(details["trigger"]["counts"], {"fired": 3})

    def test_a_failed_check_makes_the_verdict_error(self):
        verdict, reason, details = self.verdict(
            'rq_trigger t fired 3 1\nrq_fail "first"\nrq_fail "second"\nrq_finish clean "it ran"')
        self.assertEqual(verdict, "error")
        self.assertEqual(reason, "it ran; first (and 1 more failed checks)")
        self.assertEqual(details["failed_checks"], ["first", "second"])

    def test_corruption_stays_corrupted_after_a_failed_check(self):
        verdict, reason, _ = self.verdict('rq_fail "cleanup"\nrq_finish corrupted "3 bad blocks"')
        self.assertEqual((verdict, reason), ("corrupted", "3 bad blocks; cleanup"))

    def test_a_trigger_that_fell_short_is_an_error(self):
        verdict, reason, details = self.verdict('rq_trigger t fired 0 1\nrq_finish clean')
        self.assertEqual(verdict, "error")
        self.assertIn("the trigger did not fire: fired 0 < 1", reason)
        self.assertEqual(details["scenario_verdict"], "clean")

    def test_an_unexpected_kernel_report_warns(self):
        self.kernel_log(BOOT_LOG + "[   40.000000] WARNING: CPU: 1 PID: 9 at block/blk-mq.c:1 x\n")
        verdict, reason, _ = self.verdict('rq_trigger t fired 3 1\nrq_finish clean')
        self.assertEqual(verdict, "warned")
        self.assertIn("WARNING: CPU: 1", reason)

    def test_a_report_before_the_scenario_is_not_its(self):
        verdict, _, details = self.verdict('rq_trigger t fired 3 1\nrq_finish clean')
        self.assertEqual(verdict, "clean")
        self.assertNotIn("kernel_reports", details)

    def allowed_reports(self, task, why):
        """The allowed-report details of a livelocked run whose kernel log
        says TASK blocked, allowed for the reason WHY (as dash reads it)."""
        report = f"[   40.000000] INFO: task {task} blocked for more than 5 seconds."
        self.kernel_log(BOOT_LOG + report + "\n")
        verdict, _, details = self.verdict(
            f'rq_allow_report "task {task} blocked" "{why}"\n'
            'rq_trigger t fired 3 1\nrq_finish livelocked "stuck"')
        self.assertEqual(verdict, "livelocked")
        return report, details["kernel_reports_allowed"]

    def test_an_allowed_report_does_not_warn(self):
        report, allowed = self.allowed_reports("blkdiscard:77", "the stuck op")
        self.assertEqual(allowed, [report + " (allowed: the stuck op)"])

    def test_an_allowed_reports_reason_is_kept_as_written(self):
        report, allowed = self.allowed_reports("dd:78", "dd & blkdiscard | both stuck \\\\n")
        self.assertEqual(allowed, [report + " (allowed: dd & blkdiscard | both stuck \\n)"])

    def test_a_prepared_merge_makes_clean_violated(self):
        self.oracle(CLEAN_ORACLE.replace("prepared_merges 0", "prepared_merges 2"))
        verdict, reason, _ = self.verdict('rq_trigger t fired 3 1\nrq_finish clean')
        self.assertEqual(verdict, "violated")
        self.assertIn("2 bios merged into requests the driver had prepared", reason)

    def test_a_blind_oracle_cannot_vouch_for_clean(self):
        self.oracle(CLEAN_ORACLE.replace("missed_probes 0", "missed_probes 4"))
        verdict, reason, _ = self.verdict('rq_trigger t fired 3 1\nrq_finish clean')
        self.assertEqual(verdict, "error")
        self.assertIn("4 missed kretprobe instances", reason)

    def verdict_then_check(self, log_at_verdict, log_after):
        """A clean run's verdict over LOG_AT_VERDICT, then the post-cleanup
        check over LOG_AFTER: the verdict and the CHECKED record."""
        self.kernel_log(log_at_verdict)
        with open(os.path.join(self.dir, "after"), "w") as f:
            f.write(log_after)
        d = self.dir
        result, output = self.run_guest(
            f'rq_trigger t fired 3 1\nrq_finish clean\ncp {d}/after {d}/dmesg\n'
            f'rq_kmemleak_scan() {{ echo 0; }}\n: > {d}/rq-cleanup.txt\n: > {d}/rq-kmemleak-head.txt\n'
            'rq_check_after 1.5')
        self.assertIsNotNone(result, output)
        return result["verdict"], self.checked()

    def test_a_report_after_the_verdict_is_found_after_the_cleanup(self):
        late = "[   50.000000] BUG: KASAN: use-after-free in dm_softirq_done"
        verdict, after = self.verdict_then_check(BOOT_LOG, BOOT_LOG + late + "\n")
        self.assertEqual(verdict, "clean")
        self.assertEqual(after["new_reports"], [late])
        self.assertEqual(after["cleanup_problems"], [])

    def test_a_report_the_verdict_had_is_not_new_after_the_cleanup(self):
        warning = "[   40.000000] WARNING: CPU: 1 PID: 9 at block/blk-mq.c:1 x\n"
        late = "[   50.000000] BUG: KASAN: use-after-free in dm_softirq_done"
        verdict, after = self.verdict_then_check(BOOT_LOG + warning, BOOT_LOG + warning + late + "\n")
        self.assertEqual(verdict, "warned")
        self.assertEqual(after["new_reports"], [late])

    def test_details_keep_their_kinds(self):
        _, _, details = self.verdict(
            'rq_detail s \'a "quoted" string\'\nrq_detail_json j \'{"k": [1, 2]}\'\n'
            'rq_detail_json bad "{not json"\nprintf "one\\n\\ntwo\\n" > {d}/f\nrq_detail_file l {d}/f\n'
            'v=$(rq_detail sub "from a subshell"; echo ok)\nrq_detail s "the later wins"\n'
            'rq_trigger t fired 3 1\nrq_finish clean'.replace("{d}", self.dir))
        self.assertEqual(details["s"], "the later wins")
        self.assertEqual(details["j"], {"k": [1, 2]})
        self.assertEqual(details["bad"], "{not json")
        self.assertEqual(details["l"], ["one", "two"])
        self.assertEqual(details["sub"], "from a subshell")

    def test_a_wait_gives_up_at_its_bound(self):
        result, output = self.run_guest(
            'if rq_wait 0.3 "never" false; then echo WAITED-TRUE; else echo WAITED-FALSE; fi\n'
            'rq_trigger t fired 3 1\nrq_finish clean')
        self.assertIn("WAITED-FALSE", output)
        self.assertGreaterEqual(result["timing"]["wait:never"], 0.3)

    def test_the_hung_task_report_is_looked_for_in_the_scenario_only(self):
        # Scenario x's submitter has pid 5, as the first scenario's had.
        _, output = self.run_guest(
            f'. {self.dir}/livelock.sh\nLL_PID=5\necho "HUNG[$(ll_hung_line)]"')
        self.assertIn("HUNG[]", output)
        self.kernel_log(BOOT_LOG + "[   40.000000] INFO: task sync:5 blocked for more than 5 seconds.\n")
        _, output = self.run_guest(
            f'. {self.dir}/livelock.sh\nLL_PID=5\necho "HUNG[$(ll_hung_line)]"')
        self.assertIn("HUNG[1:[   40.000000] INFO: task sync:5 blocked", output)


    # --- tests/guest/blktests.sh, with a fake rqpath-run -----------------------

    def blktests(self, test, output):
        """The verdict of scenario blktests:TEST when rqpath-run prints OUTPUT."""
        run = os.path.join(self.dir, "fake-rqpath-run")
        # One verdict per call, subtests included.
        if os.path.exists(os.path.join(self.dir, "results")):
            os.unlink(os.path.join(self.dir, "results"))
        with open(os.path.join(self.dir, "fake-output"), "w") as f:
            f.write(output)
        with open(run, "w") as f:
            f.write(f"#!/bin/sh\ncat {self.dir}/fake-output\n")
        os.chmod(run, 0o755)
        return self.verdict(f'BT_RUN={run}\n. {self.dir}/blktests.sh\nbt_scenario {test}')

    BLOCK = "block/merge-prepared"
    DM = "dm/mpath-busy-ops"

    @staticmethod
    def bt_failure(test, number, reason, evidence, diff):
        return (f"BLKTESTS-TEST {test} {number}\nBLKTESTS-EVIDENCE {test}{evidence}\n"
                f"BLKTESTS-RESULT {test} fail 2.1 {reason}\n"
                f"BLKTESTS-OUTPUT-BEGIN {test}\n--- diff -u tests/{number}.out results/nodev/{number}.out.bad\n"
                f"{diff}BLKTESTS-OUTPUT-END {test}\n")

    def test_blktests_a_failure_without_the_corruption_report_is_an_error(self):
        for reason in ("exit status 1", "./check did not finish within 1200 s",
                       "output differs from tests/block/048.out"):
            with self.subTest(reason=reason):
                verdict, why, _ = self.blktests(self.BLOCK, self.bt_failure(
                    self.BLOCK, "block/048", reason, " requeues=12 merges=900",
                    " Running block/048\n+merge_into_prepared failed with exit status 3\n Test complete\n"))
                self.assertEqual(verdict, "error", why)
                self.assertIn(reason, why)

    def test_blktests_the_corruption_report_is_corrupted(self):
        verdict, why, details = self.blktests(self.BLOCK, self.bt_failure(
            self.BLOCK, "block/048", "output differs from tests/block/048.out", " requeues=3 merges=900",
            " Running block/048\n+pass 1: block 1973 (sector 15784, byte 8081408): stale (pass 0); "
            "re-read: stale (pass 0): on disk\n+pass 1: 1 of 2048 blocks bad\n Test complete\n"))
        self.assertEqual(verdict, "corrupted", why)
        self.assertEqual(details["blktests_test"], "block/048")
        self.assertEqual(details["trigger"]["counts"], {"requeues": 3, "merges": 900})

    def test_blktests_a_dm_failure_other_than_the_livelock_is_an_error(self):
        for diff in ("+discard: 'blkdiscard' failed with exit status 1\n",
                     "+discard: completed, but dm-0 never requeued it: the paths were not busy\n",
                     "+discard: did not complete within 30 s (dm-0 requeued it 3 times), killed\n"):
            with self.subTest(diff=diff):
                verdict, why, _ = self.blktests(self.DM, self.bt_failure(
                    self.DM, "dm/004", "output differs from tests/dm/004.out", " discard_requeues=3",
                    " Running dm/004\n" + diff))
                self.assertEqual(verdict, "error", why)

    def test_blktests_the_livelock_message_is_livelocked(self):
        verdict, why, details = self.blktests(self.DM, self.bt_failure(
            self.DM, "dm/004", "output differs from tests/dm/004.out", " discard_requeues=2978",
            " Running dm/004\n+discard: did not complete within 30 s (dm-0 requeued it 2978 times); "
            "'blkdiscard' (pid 203) is in state D and survived SIGKILL\n"
            "+not trying the remaining operations\n+left behind: pid 203 in D state, ...\n"))
        self.assertEqual(verdict, "livelocked", why)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "rq-unusable")))
        self.assertEqual(details["trigger"]["counts"], {"discard_requeues": 2978, "stuck_requeues": 2978})
        self.assertEqual(details["trigger"]["minimum"], {"discard_requeues": 0, "stuck_requeues": 100})

    def test_blktests_a_livelock_the_test_ended_leaves_the_guest_usable(self):
        verdict, why, _ = self.blktests(self.DM, self.bt_failure(
            self.DM, "dm/004", "output differs from tests/dm/004.out", " discard_requeues=2978",
            " Running dm/004\n+discard: did not complete within 30 s (dm-0 requeued it 2978 times); "
            "'blkdiscard' (pid 203) is in state D and survived SIGKILL\n"
            "+not trying the remaining operations\n+failing both paths ended the operation\n"))
        self.assertEqual(verdict, "livelocked", why)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "rq-unusable")))

    def test_blktests_a_livelock_message_without_the_requeues_is_an_error(self):
        verdict, why, _ = self.blktests(self.DM, self.bt_failure(
            self.DM, "dm/004", "output differs from tests/dm/004.out", " discard_requeues=2",
            " Running dm/004\n+discard: did not complete within 30 s (dm-0 requeued it 2 times); "
            "'blkdiscard' (pid 203) is in state D and survived SIGKILL\n"))
        self.assertEqual(verdict, "error", why)

    def test_blktests_a_pass_without_evidence_is_an_error(self):
        for evidence in ("", "BLKTESTS-EVIDENCE block/merge-prepared\n",
                         "BLKTESTS-EVIDENCE block/merge-prepared requeues=0 merges=5\n",
                         "BLKTESTS-EVIDENCE block/merge-prepared merges=5\n"):
            with self.subTest(evidence=evidence):
                verdict, why, _ = self.blktests(self.BLOCK, f"BLKTESTS-TEST {self.BLOCK} block/048\n{evidence}"
                                                f"BLKTESTS-RESULT {self.BLOCK} pass 8.2\n")
                self.assertEqual(verdict, "error", why)

    def test_blktests_a_pass_with_its_evidence_is_clean(self):
        verdict, why, details = self.blktests(
            self.DM, f"BLKTESTS-TEST {self.DM} dm/004\nBLKTESTS-EVIDENCE {self.DM} discard_requeues=14 "
            f"write_zeroes_requeues=11 flush_requeues=9\nBLKTESTS-RESULT {self.DM} pass 4.5\n")
        self.assertEqual(verdict, "clean", why)
        self.assertEqual(details["trigger"]["counts"],
                         {"discard_requeues": 14, "write_zeroes_requeues": 11, "flush_requeues": 9})
        self.assertEqual(details["blktests_test"], "dm/004")


if __name__ == "__main__":
    unittest.main()
