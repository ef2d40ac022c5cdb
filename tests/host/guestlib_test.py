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
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUEST = os.path.join(TOP, "tests", "guest")
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import explore  # noqa: E402

# The kernel log of a boot in which scenario "x" (the boot's second) starts
# after a first scenario that left a hung-task report about its own pid 5.
BOOT_LOG = """\
[   10.000000] rqpath: START first #1
[   30.000000] INFO: task blkdiscard:5 blocked for more than 5 seconds.
[   31.000000] rqpath: CHECKED first #1
[   32.000000] rqpath: START x #2
"""

CLEAN_ORACLE = ("front_merges 0\nback_merges 0\nprepared_merges 0\nunattributed_merges 0\n"
                "missed_probes 0\n")


class GuestLib(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rqpath-guestlib-")
        self.addCleanup(shutil.rmtree, self.dir)
        os.mkdir(os.path.join(self.dir, "scenarios"))
        files = [(os.path.join(GUEST, name), name) for name in
                 ("lib.sh", "livelock.sh", "multipath.sh", "watchdog.sh", "corruption.sh", "rqpath.sh",
                  "explore.sh", "blktests.sh")]
        files += [(os.path.join(TOP, "tests", "scenarios", name), os.path.join("scenarios", name))
                  for name in ("rqpath-discard.sh", "rqpath-suspend.sh", "plug-discard-virtio.sh")]
        for src, name in files:
            with open(src) as f:
                text = f.read()
            # The guest's paths, into this test's folder (and nothing of
            # this machine's: no mount point, no page cache to drop, no
            # block device).
            for guest_path, here in (("/tmp/", "/"), ("/rqpath/", "/"), ("/mnt/rq", "/mnt-rq"),
                                     ("/proc/sys/vm/drop_caches", "/drop_caches"),
                                     ("/proc/sys/kernel/hung_task_", "/hung_task_"),
                                     ("/proc/cmdline", "/cmdline"), ("/dev/ttyS1", "/ttyS1"),
                                     ("/dev/console", "/console"),
                                     ("/sys/block/", "/sys/block/")):
                text = text.replace(guest_path, self.dir + here)
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
        results = os.path.join(d, "results")
        if os.path.exists(results):
            os.unlink(results)  # a test may run several scenarios
        proc = subprocess.run(["dash", "-c", script], capture_output=True, text=True, timeout=60)
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

    def test_the_protocol_goes_to_the_console_when_the_command_line_says(self):
        # A LAVA job has one serial port: rqpath.results=console moves the
        # protocol there, each line prefixed; without it, the second port.
        d = self.dir
        line = 'RQPATH-RESULT {"scenario":"x","details":{"reason":"a\\tb"}}'
        for cmdline, port, prefix in (("console=ttyS0 rqpath.stage=stock", "ttyS1", ""),
                                      ("console=ttyS0 rqpath.results=console rqpath.stage=stock",
                                       "console", "@rqpath@ ")):
            with self.subTest(cmdline=cmdline):
                for name, text in (("cmdline", cmdline + "\n"), ("ttyS1", ""), ("console", "")):
                    with open(os.path.join(d, name), "w") as f:
                        f.write(text)
                proc = subprocess.run(["dash", "-c", f". {d}/lib.sh; rq_results_setup; "
                                       f"rq_report RESULT '{line.split(' ', 1)[1]}'"],
                                      capture_output=True, text=True, timeout=60)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                other = "console" if port == "ttyS1" else "ttyS1"
                with open(os.path.join(d, port)) as f, open(os.path.join(d, other)) as g:
                    self.assertEqual((f.read(), g.read()), (prefix + line + "\n", ""))

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
        verdict, reason, _ = self.verdict(
            'rq_trigger t fired 3 1\nrq_fail "cleanup"\nrq_finish corrupted "3 bad blocks"')
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

    def test_the_check_sends_the_patterns_the_scenario_allowed(self):
        """The harness reads the console after the check, where what the
        scenario left behind may report again (its stuck task): it needs the
        patterns, not only the reports the verdict saw."""
        d = self.dir
        result, output = self.run_guest(
            'rq_allow_report "task (blkdiscard|dd):[0-9]+ blocked for more than" "stuck on purpose"\n'
            'rq_trigger t fired 3 1\nrq_finish livelocked "stuck"\n'
            f'rq_kmemleak_scan() {{ echo 0; }}\n: > {d}/rq-cleanup.txt\n: > {d}/rq-kmemleak-head.txt\n'
            'rq_check_after 1.5')
        self.assertIsNotNone(result, output)
        self.assertEqual(self.checked()["allowed_reports"], ["task (blkdiscard|dd):[0-9]+ blocked for more than"])

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
        """A wait that gives up has waited its bound, by the clock its time
        is recorded with, even when the guest stalls as the wait begins (a
        loaded host deschedules the vCPU; once the bound, taken before the
        start, came due 0.3 s after a start read late).  The clock is a
        file that moves 10 ms per reading and half a second at the first
        reading after STALL appears: no timing of this host counts."""
        d = self.dir
        clock = (f'echo 10000 > {d}/clock\n'
                 f'rq_cs() {{ read -r _c < {d}/clock\n'
                 f'  if [ -e {d}/stall ]; then rm {d}/stall; echo $((_c + 50)); else echo $((_c + 1)); fi > {d}/clock\n'
                 f'  echo "$_c"; }}\n'
                 f'rq_now() {{ _c=$(rq_cs); printf "%d.%02d\\n" $((_c / 100)) $((_c % 100)); }}\n'
                 f'touch {d}/stall\n')
        result, output = self.run_guest(
            clock + 'if rq_wait 0.3 "never" false; then echo WAITED-TRUE; else echo WAITED-FALSE; fi\n'
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

    # --- evidence and the oracle fail closed (issue 29, 1.5) -----------------

    def test_an_oracle_report_without_its_keys_cannot_vouch(self):
        # A renamed or missing prepared_merges is not 0 violations.
        for report in (CLEAN_ORACLE.replace("prepared_merges 0\n", ""),
                       CLEAN_ORACLE.replace("prepared_merges 0", "prepared_merge 3"),
                       CLEAN_ORACLE.replace("missed_probes 0\n", "")):
            self.oracle(report)
            for said in ("clean", "violated"):
                verdict, reason, _ = self.verdict(f'rq_trigger t fired 3 1\nrq_finish {said}')
                self.assertEqual(verdict, "error", (report, said))
                self.assertIn("the merge oracle's report has no", reason)

    def test_a_trigger_without_a_minimum_is_not_met(self):
        for call in ('rq_trigger t fired 3 ""', "rq_trigger t fired 3", "rq_trigger t fired 3 many"):
            verdict, reason, details = self.verdict(f'{call}\nrq_finish clean')
            self.assertEqual(verdict, "error", call)
            self.assertIn("fired has no minimum", reason)
            self.assertIs(details["trigger"]["met"], False)

    def test_a_verdict_without_trigger_evidence_is_an_error(self):
        for said in ("clean", "violated", "corrupted", "livelocked"):
            verdict, reason, details = self.verdict(f'rq_finish {said} "it ran"')
            self.assertEqual(verdict, "error", said)
            self.assertIn("no trigger evidence recorded", reason)
            self.assertEqual(details["scenario_verdict"], said)

    def test_a_scenario_without_a_trigger_says_why(self):
        verdict, _, details = self.verdict('rq_no_trigger "it checks the tool"\nrq_finish clean')
        self.assertEqual(verdict, "clean")
        self.assertEqual(details["no_trigger"], "it checks the tool")
        self.assertIsNone(details["trigger"])

    def test_every_oracle_run_of_a_scenario_counts(self):
        # corruption-multiqueue resets the oracle before each of its runs:
        # what the earlier runs saw must still reach the verdict.
        d = self.dir
        with open(os.path.join(d, "clean-report"), "w") as f:
            f.write(CLEAN_ORACLE)
        for earlier, verdict_wanted, text in (
                (CLEAN_ORACLE.replace("missed_probes 0", "missed_probes 4"), "error",
                 "4 missed kretprobe instances"),
                (CLEAN_ORACLE.replace("prepared_merges 0", "prepared_merges 2"), "violated",
                 "2 bios merged into requests the driver had prepared")):
            with open(os.path.join(d, "earlier-report"), "w") as f:
                f.write(earlier)
            self.oracle(CLEAN_ORACLE)
            verdict, reason, _ = self.verdict(
                f"rq_oracle_start\ncp {d}/earlier-report {d}/oracle/report\n"
                f"rq_oracle_start\ncp {d}/clean-report {d}/oracle/report\n"
                "rq_trigger t fired 3 1\nrq_finish clean")
            self.assertEqual(verdict, verdict_wanted, earlier)
            self.assertIn(text, reason)

    # --- corruption.sh: ext4 and sata (issue 29, 1.4) -------------------------

    EXT4_FAKES = """
. {d}/corruption.sh
# (not a name dash takes for a function)
mkdir {d}/bin && printf '#!/bin/sh\n' > {d}/bin/mkfs.ext4 && chmod +x {d}/bin/mkfs.ext4
PATH={d}/bin:$PATH
mount() { :; }; umount() { :; }; sync() { :; }
e2fsck() { echo "clean"; }
rq_trace_start() { :; }; rq_trace_stop() { :; }
fio() {
	_out= _v=0
	for a; do case $a in --output=*) _out=${a#--output=} ;; --verify_only=1) _v=1 ;; esac; done
	if [ $_v = 1 ]; then
		printf '{"jobs": [{"jobname": "buffered", "error": 0, "read": {"io_bytes": 4194304}},
			{"jobname": "direct", "error": 0, "read": {"io_bytes": 8388608}}]}' > "$_out"
		echo "verify: bad magic header 0, wanted acca at file direct.0.0 offset 4096, length 4096" >&2
		return 0
	fi
	printf '{"jobs": [{"jobname": "buffered", "error": 0}, {"jobname": "direct", "error": WERR}]}' > "$_out"
	[ WRC = 0 ] || echo "fio: io_u error on file direct.0.0: Input/output error: write offset=4096" >&2
	return WRC
}
v=$(rq_ext4_workload /dev/sdz "$RQ_MIN_SATA")
rq_finish "$v"
"""

    def ext4_run(self, write_ok, verify_json=True):
        """rq_ext4_workload (as corruption-sata runs it) with fio, mkfs,
        mount and e2fsck replaced: the write phase succeeds or fails with
        EIO; the verify phase then names a bad offset (and writes its JSON,
        or, as fio did on 6ce3dd6eec, none)."""
        self.oracle(CLEAN_ORACLE.replace("front_merges 0", "front_merges 40") +
                    "disk sdz requeues 50 merge_candidates 9 prepared_requeues 50 prepared_candidates 9\n")
        werr, wrc = ("0", "0") if write_ok else ("5", "1")
        fakes = self.EXT4_FAKES
        if not verify_json:
            fakes = fakes.replace("""{"jobs": [{"jobname": "buffered", "error": 0, "read\"""", "X\"")
        return self.verdict(fakes.replace("{d}", self.dir).replace("WERR", werr).replace("WRC", wrc))

    def test_bad_blocks_are_corruption_when_the_verify_phase_wrote_no_json(self):
        verdict, reason, _ = self.ext4_run(write_ok=True, verify_json=False)
        self.assertEqual(verdict, "corrupted")
        self.assertIn("fio verify: 1 blocks bad", reason)

    def test_a_failed_write_phase_is_an_error_not_corruption(self):
        verdict, reason, details = self.ext4_run(write_ok=False)
        self.assertEqual(verdict, "error")
        self.assertIn("the fio write phase failed", reason)
        self.assertEqual(details["fio_verify_failures"], 1)

    def test_a_bad_block_after_a_clean_write_phase_is_corruption(self):
        verdict, reason, _ = self.ext4_run(write_ok=True)
        self.assertEqual(verdict, "corrupted")
        self.assertIn("fio verify: 1 blocks bad", reason)

    def test_a_corruption_run_whose_oracle_saw_no_merge_proves_nothing(self):
        # Requeues and bios in front of them, but not one merge: the oracle
        # could not have seen a merge into a prepared request either.
        self.oracle(CLEAN_ORACLE + "disk sdz requeues 50 merge_candidates 9 prepared_requeues 50 prepared_candidates 9\n")
        verdict, reason, details = self.verdict(
            f'. {self.dir}/corruption.sh\nrq_corruption_trigger /dev/sdz 40000 "$RQ_MIN_TARGETED"\nrq_finish clean')
        self.assertEqual(verdict, "error")
        self.assertIn("merges 0 < 1", reason)

    # --- rqpath-discard (issue 29, 1.2) ---------------------------------------

    DISCARD_FAKES = """
RQ_SLOWDOWN=@SLOWDOWN@
. {d}/scenarios/rqpath-discard.sh
rqp_setup() { RQP_P1=/dev/sdy RQP_P2=/dev/sdz RQP_M1=8:0 RQP_M2=8:16; }
rqp_cleanup() { :; }
dmsetup() { case "$*" in *fail_path*) : > {d}/paths-failed ;; esac; }
rqpathctl() {
	echo "$*" >> {d}/watches
	_j=
	for a; do
		[ "$_j" = 1 ] && echo '{"verdict": "drained"}' > "$a"
		_j=; [ "$a" = --json ] && _j=1
	done
	return 0
}
rqp_st() {
	ST_line=fake RQ_IN_FLIGHT=0 RQ_ERRORS=0 RQ_DISCARD_MAPPED=1 RQ_DISCARD_BUSY=0 RQ_DISCARD_ERRORS=0
	RQ_DISCARD_COMPLETED=$([ -e {d}/discard-done ] && echo 1 || echo 0)
}
check_ops() {
	rq_trigger rqpath write_zeroes_mapped 1 1
	run_op discard discard the_discard
}
"""

    def discard_run(self, op, slowdown=1):
        """rqpath-discard's run_op on a discard that is the shell function
        OP, with dm-rqpath's status, dmsetup and rqpathctl replaced: the
        watch finds nothing in flight at its first sample (exit 0), and
        failing a path ends whatever still waits with EIO."""
        return self.verdict(self.DISCARD_FAKES.replace("{d}", self.dir).replace("@SLOWDOWN@", str(slowdown)) +
                            op.replace("{d}", self.dir) + "\nscenario_run\n")

    def test_an_operation_never_seen_to_complete_is_an_error(self):
        # In flight until both paths are failed, then EIO; the watch's
        # first sample saw nothing in flight.
        verdict, reason, _ = self.discard_run("""the_discard() {
	while [ ! -e {d}/paths-failed ]; do sleep 0.1; done
	echo "blkdiscard: BLKDISCARD ioctl failed: Input/output error" >&2
	return 1
}""")
        self.assertEqual(verdict, "error")
        self.assertIn("discard: 'the_discard' did not complete", reason)

    def test_the_discards_first_wait_is_stretched_by_the_slowdown(self):
        # 2 s: over the 1.5 s bound on a normal kernel, within it when the
        # kernel is twice as slow.  Without the stretch the watch runs.
        verdict, _, _ = self.discard_run("""the_discard() {
	sleep 2
	: > {d}/discard-done
}""", slowdown=2)
        self.assertEqual(verdict, "clean")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "watches")),
                         "rqpathctl watch ran before the stretched bound")

    # --- watchdog.sh (issue 29, 1.8) --------------------------------------------

    WATCHDOG_FAKES = """
. {d}/watchdog.sh
LL_SD_SYSFS={d}/sd
wd_setup() { :; }
rqpathctl() { :; }
rq_unload() { :; }
wd_phase() {
	[ "$1" = heavy ] && rc=EXIT || rc=0
	echo "$1 1 0 5.00 $rc" >> {d}/wd-sessions.txt
	echo "$1 $2 5.00 1 0 900 300 0.80" >> {d}/wd-phases.txt
	echo '{"result": "clean", "generations": [], "totals": {"blocks_verified": 64, "bad": 0}}' > {d}/wd-rqcheck-$1.json
}
wd_scenario
"""

    def watchdog_run(self, watch_exit):
        """wd_scenario over its two load phases, the followed watch of the
        first ending with WATCH_EXIT, the second's quiet (0)."""
        os.mkdir(os.path.join(self.dir, "sd"))
        return self.verdict(self.WATCHDOG_FAKES.replace("{d}", self.dir).replace("EXIT", str(watch_exit)))

    def test_a_livelock_verdict_of_the_watch_is_a_false_alarm(self):
        verdict, reason, details = self.watchdog_run(1)
        self.assertEqual(verdict, "error")
        self.assertIn("FALSE ALARM: rqpathctl watch said livelock in 1 of 2 sessions", reason)
        self.assertEqual(details["false_alarms"], 1)

    def test_a_watch_that_failed_is_no_false_alarm(self):
        verdict, reason, details = self.watchdog_run(3)
        self.assertEqual(verdict, "error")
        self.assertNotIn("FALSE ALARM", reason)
        self.assertIn("watch sessions that did not end quiet: heavy session 1: exit 3", reason)
        self.assertEqual(details["false_alarms"], 0)

    def test_the_watchdog_floors_are_the_ones_the_readme_quotes(self):
        with open(os.path.join(GUEST, "watchdog.sh")) as f:
            code = f.read()
        with open(os.path.join(TOP, "tests", "README.md")) as f:
            readme = f.read()
        row = re.search(r"^\| `watchdog` \| `busy_per_completion` \(([0-9.]+)\), `max_flat_s` \(([0-9.]+) s\)",
                        readme, re.M)
        self.assertIsNotNone(row, "tests/README.md has no watchdog row in its trigger table")
        for var, quoted in (("WD_MIN_RATIO", row.group(1)), ("WD_MIN_FLAT", row.group(2))):
            m = re.search(rf"^{var}=([0-9.]+)$", code, re.M)
            self.assertIsNotNone(m, var)
            self.assertEqual(float(m.group(1)), float(quoted), var)

    # --- rqpath-suspend (issue 29, 1.9) -----------------------------------------

    def test_a_suspend_counts_when_the_kernel_shows_it(self):
        # dmsetup suspend returned 0, but the device is not suspended.
        d = self.dir
        os.makedirs(os.path.join(d, "sys", "block", "dm-7", "dm"))
        with open(os.path.join(d, "sys", "block", "dm-7", "dm", "suspended"), "w") as f:
            f.write("0\n")
        verdict, reason, details = self.verdict(f"""
. {d}/scenarios/rqpath-suspend.sh
dmsetup() {{ :; }}
SUS_DM=dm-7
: > {d}/rqp-suspends.txt
timed_suspend "load 1"
rq_trigger rqpath suspends "$(wc -l < {d}/rqp-suspends.txt)" 1
rq_finish clean""")
        self.assertEqual(verdict, "error")
        self.assertIn("load 1: dmsetup suspend returned, but the kernel does not show rqp-s suspended", reason)
        self.assertEqual(details["trigger"]["counts"]["suspends"], 0)


    # --- tests/explore's trials (tests/guest/explore.sh) ---------------------

    def stuck_disk(self, before, after):
        """dm-0 over sda whose dm-0 stat, oracle requeue count and sda
        inflight are BEFORE and, once the livelock window has passed,
        AFTER: (requeues, discards completed, in flight on the path)."""
        sysblk = os.path.join(self.dir, "sys", "block")
        for b in ("dm-0", "sda"):
            os.makedirs(os.path.join(sysblk, b), exist_ok=True)

        def files(state, suffix):
            requeues, discards, inflight = state
            stat = ["0"] * 17
            stat[11] = str(discards)
            with open(os.path.join(sysblk, "dm-0", "stat" + suffix), "w") as f:
                f.write(" ".join(stat) + "\n")
            with open(os.path.join(sysblk, "sda", "inflight" + suffix), "w") as f:
                f.write(f"0 {inflight}\n")
            with open(os.path.join(self.dir, "oracle", "report" + suffix), "w") as f:
                f.write(CLEAN_ORACLE + f"disk dm-0 requeues {requeues} merge_candidates 0 "
                        "prepared_requeues 0 prepared_candidates 0\n")
        files(before, "")
        files(after, ".after")
        d = self.dir
        return (f'EX_DISKS=/dev/sda\n'
                f'rq_sleep() {{ for f in {sysblk}/dm-0/stat {sysblk}/sda/inflight {d}/oracle/report; do '
                f'mv "$f.after" "$f"; done; }}\n')

    def explore(self):
        return f". {self.dir}/explore.sh\n"

    def scsi_devices(self, **disks):
        """/sys/block/NAME/device/FILE for each NAME={FILE: value}."""
        for name, files in disks.items():
            dev = os.path.join(self.dir, "sys", "block", name, "device")
            os.makedirs(dev, exist_ok=True)
            for k, v in files.items():
                with open(os.path.join(dev, k), "w") as f:
                    f.write(f"{v}\n")

    def device_file(self, name, key):
        with open(os.path.join(self.dir, "sys", "block", name, "device", key)) as f:
            return f.read().strip()

    def test_two_scsi_debug_paths_share_its_command_slots(self):
        # scsi_debug's max_queue slots are one pool for both hosts: each
        # path gets half, or commands over it end as DID_ABORT I/O errors.
        for paths, queue, want in ((2, 4, "2"), (2, 192, "96"), (1, 4, "7")):
            with self.subTest(paths=paths, queue=queue):
                self.scsi_devices(sda={"queue_depth": 7}, sdb={"queue_depth": 7})
                _, output = self.run_guest(self.explore() + (
                    f"EX_DISKS='/dev/sda /dev/sdb' EX_paths={paths} EX_sd_queue={queue}\n"
                    "ex_sdebug_share_slots || echo FAILED\nrq_trigger t f 1 1\nrq_finish clean"))
                self.assertNotIn("FAILED", output)
                self.assertEqual([self.device_file(n, "queue_depth") for n in ("sda", "sdb")], [want, want])

    def livelock_kind(self, released, **paths):
        """ex_livelock_kind over PATHS (name -> (device_blocked,
        device_busy)), whose stuck pid exits once every path was read
        when RELEASED; the kind, and the paths that were read."""
        self.scsi_devices(**{n: {"device_blocked": b, "device_busy": busy} for n, (b, busy) in paths.items()})
        disks = " ".join(f"/dev/{n}" for n in paths)
        _, output = self.run_guest(self.explore() + (
            f"EX_DISKS='{disks}' EX_TOP=/dev/dm-0\n"
            # The watch's JSON goes where its --json says, as the real one's.
            'rqpathctl() { while [ $# -gt 1 ] && [ "$1" != --json ]; do shift; done; echo "{}" > "$2"; return 4; }\n'
            'dd() { echo "READ ${1#if=}"; }\n'
            f"rq_wait_pid() {{ return {0 if released else 124}; }}\n"
            "ex_livelock_kind 123\necho KIND $EX_LIVELOCK_KIND\nrq_trigger t f 1 1\nrq_finish clean"))
        return re.search(r"KIND (\S+)", output).group(1), re.findall(r"READ (\S+)", output)

    def test_a_livelock_is_told_apart_by_what_its_paths_show(self):
        self.assertEqual(self.livelock_kind(True, sda=(1, 0)), ("blocked_path_released", ["/dev/sda"]))
        self.assertEqual(self.livelock_kind(False, sda=(1, 0)), ("blocked_path_not_released", ["/dev/sda"]))
        # A path that takes requests, or one with requests in flight: the
        # stack itself hands the operation back, and nothing is read.
        self.assertEqual(self.livelock_kind(True, sda=(0, 0)), ("paths_take_requests", []))
        self.assertEqual(self.livelock_kind(True, sda=(1, 3)), ("paths_take_requests", []))
        self.assertEqual(self.livelock_kind(True, sda=(1, 0), sdb=(0, 0)), ("paths_take_requests", []))
        self.assertEqual(self.livelock_kind(True, sda=(1, 0), sdb=(2, 0)),
                         ("blocked_path_released", ["/dev/sda", "/dev/sdb"]))

    # --- plug-discard-virtio: which path a plug took, from its block trace ----

    def plug_path(self, events):
        trace = os.path.join(self.dir, "pd-trace.txt")
        with open(trace, "w") as f:
            f.write("# tracer: nop\n")
            for n, (event, rwbs, sector) in enumerate(events):
                f.write(f"   sh-41  [000] ..... {n}.0: block_rq_{event}: 8,16 {rwbs} 4096 () {sector} + 8 [sh]\n")
            # Another disk's requests are no part of the plug.
            f.write("   sh-41  [000] ..... 9.0: block_rq_issue: 8,0 W 4096 () 8 + 8 [sh]\n")
        _, output = self.run_guest(f". {self.dir}/scenarios/plug-discard-virtio.sh\n"
                                   f"echo PATH $(pd_plug_path {trace} 8,16)\nrq_trigger t f 1 1\nrq_finish clean")
        return re.search(r"PATH (\d+ \d+ \d+)", output).group(1)

    def test_a_plug_issued_directly_puts_its_writes_ahead_of_the_discard(self):
        writes = [0, 16, 32, 48]
        # The writes straight from the plug, then the discard, which finds
        # no budget and is inserted: what the gate has to commit.
        self.assertEqual(self.plug_path([("issue", "W", s) for s in writes]
                                        + [("insert", "D", 64), ("issue", "D", 64)]), "4 4 0")
        # The discard first (6.12's oldest-first plug with the discard
        # submitted first): issued directly, nothing ahead of it.
        self.assertEqual(self.plug_path([("issue", "D", 64)] + [("issue", "W", s) for s in writes]), "0 5 0")
        # A kernel that queues the plug (base): every write inserted first.
        self.assertEqual(self.plug_path([("insert", "D", 64)] + [("insert", "W", s) for s in writes]
                                        + [("issue", "D", 64)] + [("issue", "W", s) for s in writes]), "0 0 4")

    # --- tests/guest/livelock.sh: the verdict on one operation ----------------

    LL_AGREE = dict(LL_TARGET="rqpath", LL_PID=5, LL_CMD="blkdiscard", LL_OBSERVED=30, LL_DM="dm-0",
                    LL_DMNAME="x", LL_STATE="D", LL_ACTIVE_PATHS=2, LL_WATCH_RC=1, LL_RWATCH_REQUIRED=1,
                    LL_RWATCH_RC=1, F_RWATCH_OP="discard", F_RWATCH_OP_OK=1,
                    F_TRACE_LIVELOCK=1, F_TRACE_BRIEF="'900 requeues and 0 completions'", F_HUNG=1,
                    F_WATCH_VERDICT="livelock", F_WATCH_STUCK="'[\"discard\"]'", F_WATCH_STUCK_OK=1,
                    F_WATCH_LATENCY=3, F_RWATCH_VERDICT="livelock", F_RWATCH_GOAL=1, F_RWATCH_LATENCY=0.3,
                    F_STACK_TOP="blkdev_issue_discard")
    LL_DONE = dict(LL_TARGET="rqpath", LL_CMD="blkdiscard", LL_RC=0, LL_OP_SECONDS=1, LL_WATCH_RC=0,
                   LL_RWATCH_REQUIRED=1, LL_RWATCH_RC=0, F_RWATCH_VERDICT="quiet",
                   F_STATUS_OK=1, F_TRACE_COMPLETED=1, F_TRACE_BRIEF="'1 completion'",
                   F_HUNG=0, F_WATCH_VERDICT="drained")

    def ll_judge(self, judge, facts):
        # Nothing of this machine's device-mapper or modules: the guest
        # commands a judge may reach are stubs that fail.
        body = "".join(f"{k}={v}\n" for k, v in facts.items())
        return self.verdict(f". {self.dir}/livelock.sh\n"
                            "dmsetup() { return 1; }\nrmmod() { return 1; }\nmodprobe() { return 1; }\n"
                            "ll_cleanup() { :; }\n"
                            f"{body}rq_trigger t fired 1 1\n{judge} discard")

    def test_an_operation_is_livelocked_only_when_every_signal_says_so(self):
        for target in ("rqpath", "multipath"):
            verdict, reason, _ = self.ll_judge("ll_judge_stuck", dict(self.LL_AGREE, LL_TARGET=target))
            self.assertEqual(verdict, "livelocked", (target, reason))
        for name, value, why in (("LL_STATE", "S", "not D"),
                                 ("F_TRACE_LIVELOCK", 0, "900 requeues"),
                                 ("F_HUNG", 0, "no hung-task report"),
                                 ("LL_WATCH_RC", 0, "rqpathctl watch exit 0"),
                                 ("F_WATCH_STUCK_OK", 0, "names stuck ops"),
                                 ("LL_ACTIVE_PATHS", 0, "no active path"),
                                 ("LL_RWATCH_RC", 0, "--via trace exit 0"),
                                 ("F_RWATCH_OP_OK", 0, "names a stuck discard")):
            for target in ("rqpath", "multipath"):
                if target == "multipath" and name.startswith(("LL_WATCH", "F_WATCH")):
                    continue  # no rqpath counters to watch on dm-multipath
                with self.subTest(target=target, signal=name):
                    verdict, reason, _ = self.ll_judge("ll_judge_stuck",
                                                       dict(self.LL_AGREE, LL_TARGET=target, **{name: value}))
                    self.assertEqual(verdict, "error", reason)
                    self.assertIn(why, reason)

    def test_an_operation_is_clean_only_when_it_completed_as_it_should(self):
        verdict, reason, _ = self.ll_judge("ll_judge_done", self.LL_DONE)
        self.assertEqual(verdict, "clean", reason)
        for name, value, why in (("LL_RC", 1, "failed with exit 1"),
                                 ("F_STATUS_OK", 0, "no error-free completion"),
                                 ("LL_WATCH_RC", 1, "although the operation completed"),
                                 ("LL_RWATCH_RC", 1, "FALSE ALARM: rqpathctl watch --via trace"),
                                 ("F_TRACE_COMPLETED", 0, "has no completion of the op"),
                                 ("F_HUNG", 1, "hung-task report for a submitter that completed")):
            with self.subTest(signal=name):
                verdict, reason, _ = self.ll_judge("ll_judge_done", dict(self.LL_DONE, **{name: value}))
                self.assertEqual(verdict, "error", reason)
                self.assertIn(why, reason)

    def test_a_trial_names_each_dimension_once(self):
        verdict, reason, _ = self.verdict(self.explore() + "ex_trial 'dev=sdebug paths=1 bogus=1'")
        self.assertEqual(verdict, "error")
        self.assertIn("unknown trial key 'bogus'", reason)

    def test_an_operation_is_livelocked_only_when_every_signal_agrees(self):
        cases = (((10, 3, 0), (40, 3, 0), True),     # refused on, nothing done
                 ((10, 3, 0), (40, 4, 0), False),    # a discard completed
                 ((10, 3, 0), (15, 3, 0), False),    # hardly requeued: slow
                 ((10, 3, 0), (40, 3, 1), False))    # the path is busy: waiting

        for before, after, stuck in cases:
            with self.subTest(before=before, after=after):
                _, output = self.run_guest(self.explore() + self.stuck_disk(before, after) + (
                    'EX_STUCK_WINDOW=3\n'
                    'if ex_stuck $$ /dev/dm-0 discard; then echo STUCK; else echo MOVING; fi\n'
                    'rq_trigger t fired 1 1\nrq_finish clean'))
                self.assertIn("STUCK" if stuck else "MOVING", output)
                self.assertNotIn("MOVING" if stuck else "STUCK", output)

    def test_a_trial_that_judged_no_operation_is_an_error(self):
        verdict, reason, details = self.verdict(self.explore() + "ex_trigger 0\nrq_finish clean")
        self.assertEqual(verdict, "error")
        self.assertIn("operations_judged 0 < 1", reason)

    def test_a_trial_records_the_oracles_counts_over_every_disk(self):
        with open(os.path.join(self.dir, "oracle", "report"), "w") as f:
            f.write(CLEAN_ORACLE
                    + "disk sda requeues 7 merge_candidates 2 prepared_requeues 5 prepared_candidates 1 "
                    "queued_candidates 2 prepared_queued_candidates 1 direct_issues 40 direct_requeues 4 "
                    "prepared_direct_requeues 3\n"
                    + "disk dm-0 requeues 3 merge_candidates 1 prepared_requeues 0 prepared_candidates 0 "
                    "queued_candidates 1 prepared_queued_candidates 0 direct_issues 0 direct_requeues 0 "
                    "prepared_direct_requeues 0\n")
        verdict, _, details = self.verdict(self.explore() + "ex_trigger 1\nrq_finish clean")
        self.assertEqual(verdict, "clean")
        self.assertEqual({k: details["trigger"]["counts"][k] for k in explore.EVIDENCE},
                         {"requeues": 10, "merge_candidates": 3, "prepared_requeues": 5,
                          "prepared_candidates": 1, "queued_candidates": 3, "prepared_queued_candidates": 1,
                          "direct_requeues": 4, "prepared_direct_requeues": 3})
        self.assertEqual(details["trigger"]["counts"]["direct_issues"], 40)


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
