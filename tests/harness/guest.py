"""Booting a kernel in QEMU with a list of scenarios, and what came of it.

A boot runs its scenarios one after another in one guest (tests/guest/lib.sh
is the other side of the protocol).  Every boot starts with fresh files in
a directory of its own, out/logs/TAG/, which also holds a script that
replays it by hand.  The boot's results are classified from what the guest
reported, what the console shows and how QEMU ended; a scenario that did
not start because an earlier one made the guest unusable is handed back to
the scheduler, which boots again for it.  A guest that hung before init
without a word from the kernel is booted once more (Boot.run), and every
result of the boot says so.

Nothing here touches the host kernel: kernels and modules only ever run
inside qemu-system-x86_64.
"""

import hashlib
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

from .kernels import TOP, HarnessError, cache_dir, log
from . import model
from .scenarios import VERDICTS


def guest_report_re():
    """What a kernel report looks like: tests/guest/lib.sh's RQ_REPORT_RE,
    read from there so that the guest's reading of dmesg and the harness's
    of the console never disagree."""
    path = os.path.join(TOP, "tests/guest/lib.sh")
    with open(path) as f:
        m = re.search(r"^RQ_REPORT_RE='([^']*)'$", f.read(), re.M)
    if m is None:
        raise HarnessError(f"{path}: no RQ_REPORT_RE='...' line")
    return re.compile(m[1])


REPORT_RE = guest_report_re()
# The reports that mean the guest kernel died or corrupted memory: a
# scenario they fail is `crashed`; any other report makes it `warned`.
CRASH_MARKERS = ("Kernel panic", "Oops:", "BUG: unable to handle", "kernel BUG at",
                 "general protection fault", "BUG: kernel NULL pointer", "BUG: KASAN:")
# The kernel log's marks of a scenario's start and its post-cleanup check.
WINDOW_MARK = re.compile(r"rqpath: (START|CHECKED) (\S+)")


def search_ere(pattern, text):
    """An ERE a scenario allowed (rq_allow_report), as Python reads it; one
    it cannot read allows nothing."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def parse_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def verdict_object(text):
    """The object of a RESULT line, and what is wrong with it (None: nothing)."""
    r = parse_json(text)
    if r is None:
        return None, "not JSON"
    if not isinstance(r, dict):
        return None, "not an object"
    if r.get("verdict") not in VERDICTS:
        return r, f"no verdict the harness knows ({r.get('verdict')!r})"
    if not all(isinstance(r.get(k) or {}, dict) for k in ("details", "timing")):
        return r, "details or timing not an object"
    seconds = r.get("seconds")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))):
        return r, "seconds not a number"
    return r, None


def checked_object(text, line):
    """The object of a CHECKED line; one that cannot be read is a report
    of its own, so the scenario is not judged clean on it."""
    chk = parse_json(text)
    if isinstance(chk, dict) and all(isinstance(chk.get(k) or [], list) for k in
                                     ("new_reports", "cleanup_problems", "kmemleak", "allowed_reports")):
        return chk
    return {"new_reports": [f"unreadable post-cleanup check: {line[:200]}"]}


def bad_line_result(name, why, line):
    """The result of a scenario whose protocol line the harness cannot
    read: `error`, naming the line, and the boot goes on (a malformed line
    once raised here and ended the whole run without its matrix)."""
    return {"scenario": name, "verdict": "error", "seconds": None,
            "details": {"reason": f"the guest's protocol line is unreadable ({why}): {line[:200]}"}}


QEMU = os.environ.get("RQPATH_QEMU", "qemu-system-x86_64")
GUEST_MEMORY_MB = 2048
GUEST_CPUS = int(os.environ.get("RQPATH_GUEST_CPUS", "2"))
# Seconds a guest gets to reach init (times the kernel's slowdown).
BOOT_DEADLINE = 90
# Seconds a scenario's cleanup and post-cleanup check may take.
CHECK_DEADLINE = 90
# Seconds to wait for RQPATH-DONE and the reset after the last scenario.
END_GRACE = 20
# Why the harness killed a guest that never printed RQPATH-BOOTED.
NEVER_REACHED_INIT = "the guest never reached init"
NEVER_REACHED_INIT_TWICE = "the guest never reached init, on both attempts"
# How much of the console's last line a retried boot's results quote.
STOPPED_AT_CHARS = 160

# The process groups of the QEMUs running now.  Boots run in worker
# threads, whose cleanup never runs when the harness itself is stopped:
# stop_on_signals() kills these instead, or they would go on for hours.
RUNNING = set()


def kill_running_guests():
    for pgid in list(RUNNING):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def stop_on_signals():
    """SIGTERM, SIGINT and SIGHUP end the harness and every guest it runs
    (exit status 128 + the signal)."""
    def stop(signum, _frame):
        kill_running_guests()
        os._exit(128 + signum)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)


class Hardware:
    """Emulated devices the scenarios of a boot ask for, made fresh for
    every boot; the same on every run, so that no scenario depends on a
    QEMU default."""

    def __init__(self, names, workdir):
        self.names = sorted(set(names))
        self.workdir = workdir
        unknown = [n for n in self.names if not hasattr(self, "_" + n.replace("-", "_"))]
        if unknown:
            raise HarnessError(f"unknown qemu hardware {unknown}")
        self.images = []

    def args(self):
        args = []
        for n in self.names:
            args += getattr(self, "_" + n.replace("-", "_"))()
        return args

    def _image(self, name, mb):
        path = os.path.join(self.workdir, name)
        with open(path, "wb") as f:
            f.truncate(mb << 20)
        self.images.append((name, mb))
        return path

    def _ahci_disk(self):
        # q35's ICH9 AHCI controller: libata translates to SCSI, NCQ on.
        img = self._image("ahci.img", 512)
        return ["-drive", f"file={img},if=none,id=ahci0,format=raw,cache=none,aio=threads",
                "-device", "ide-hd,drive=ahci0,bus=ide.0,serial=rqpath-ahci"]

    def _virtio_paths(self):
        # One LUN behind two virtio-scsi controllers: two SCSI paths to the
        # same image, with the same serial and WWN so multipath groups them.
        # One request queue each, explicitly: QEMU's default follows the
        # vCPU count.
        img = self._image("paths.img", 256)
        args = []
        for i in range(2):
            args += ["-device", f"virtio-scsi-pci,id=vscsi{i},num_queues=1",
                     "-drive", f"file={img},if=none,id=path{i},format=raw,cache=none,file.locking=off,discard=unmap",
                     "-device", f"scsi-hd,drive=path{i},bus=vscsi{i}.0,share-rw=on,"
                                f"serial=RQPATH0001,wwn=0x5000c50015ea71ac"]
        return args

    def _virtio_mq_disk(self):
        # One virtio-scsi disk on a controller with two request queues:
        # a multi-queue SCSI host (the base stage's question).
        img = self._image("mq.img", 256)
        return ["-device", "virtio-scsi-pci,id=vscsimq,num_queues=2",
                "-drive", f"file={img},if=none,id=mq0,format=raw,cache=none,discard=unmap",
                "-device", "scsi-hd,drive=mq0,bus=vscsimq.0,serial=RQPATHMQ01"]

    def _hba_disk(self, hba, tag, serial):
        # One disk behind one of QEMU's emulated SCSI HBAs, driven by its
        # real Linux driver: each has its own way of answering busy.
        img = self._image(f"{tag}.img", 256)
        return ["-device", f"{hba},id={tag}",
                "-drive", f"file={img},if=none,id={tag}d,format=raw,cache=none,discard=unmap",
                "-device", f"scsi-hd,drive={tag}d,bus={tag}.0,serial={serial}"]

    def _megasas_disk(self):
        return self._hba_disk("megasas", "mega", "RQPATHMEGA1")

    def _lsi_disk(self):
        return self._hba_disk("lsi53c895a", "lsi", "RQPATHLSI01")

    def _mptsas_disk(self):
        return self._hba_disk("mptsas1068", "mpt", "RQPATHMPT01")

    def _pvscsi_disk(self):
        return self._hba_disk("pvscsi", "pvs", "RQPATHPVS01")

    def _virtio_disk(self):
        # One virtio-scsi disk, one request queue, discard passed through.
        img = self._image("disk.img", 256)
        return ["-device", "virtio-scsi-pci,id=vscsid,num_queues=1",
                "-drive", f"file={img},if=none,id=vd0,format=raw,cache=none,discard=unmap",
                "-device", "scsi-hd,drive=vd0,bus=vscsid.0,serial=RQPATHVD01"]


def qemu_version():
    out = subprocess.run([QEMU, "--version"], stdout=subprocess.PIPE, text=True, check=True)
    return out.stdout.splitlines()[0]


def accel_args(accel):
    if accel == "kvm":
        return ["-accel", "kvm", "-cpu", "host"]
    if accel == "kvm-default-cpu":
        return ["-accel", "kvm"]
    if accel == "tcg":
        return ["-accel", "tcg,thread=multi"]
    # Anything else is passed as is: a bogus value makes QEMU fail.
    return ["-accel", accel]


class Scenario:
    """What a boot needs to know about one scenario: name, timeout, hardware."""

    def __init__(self, name, timeout, hardware):
        self.name, self.timeout, self.hardware = name, timeout, hardware


class ScenarioState:
    def __init__(self, scenario):
        self.scenario = scenario
        self.started_at = None      # host monotonic time of RQPATH-START
        self.result = None          # the RQPATH-RESULT object
        self.result_at = None
        self.checked = None         # the RQPATH-CHECKED object
        self.checked_at = None
        self.final = None           # the classified result
        self.kmsg_seq = None


class Boot:
    """One QEMU run of one kernel with a list of scenarios.

    on_result(result) is called once per scenario as its result becomes
    final (the progress lines); pending lists the scenarios that did not
    start and should run in another boot.
    """

    def __init__(self, kernel, scenarios, accel, logdir, tag, slowdown=1.0,
                 shell=False, on_result=None, extra_append=(), boot_deadline=BOOT_DEADLINE):
        self.kernel = kernel
        self.scenarios = scenarios
        self.accel = accel
        self.tag = tag
        self.dir = os.path.join(logdir, tag)
        self.console = os.path.join(self.dir, "console.log")
        self.results_path = os.path.join(self.dir, "results.log")
        self.slowdown = slowdown
        self.shell = shell
        self.on_result = on_result or (lambda r: None)
        self.extra_append = list(extra_append)
        self.boot_deadline = boot_deadline * slowdown
        self.seconds = 0            # host seconds of the whole boot, every attempt
        self.retried = None         # what happened to the first attempt, if it was retried
        self._start_afresh()

    def _start_afresh(self):
        """Everything one QEMU run learns, as before it starts.  The one
        place it is set, so that a retry cannot inherit any of it."""
        self.states = [ScenarioState(s) for s in self.scenarios]
        self.pending = []
        self.started = None         # host monotonic time QEMU started
        self.exit_code = None
        self.killed_by = None       # why the harness stopped QEMU, if it did
        self.boot_seconds = None    # host seconds until RQPATH-BOOTED
        self.booted = False
        self.done = False
        self.stopped = None         # (scenario, reason) of RQPATH-STOP
        self.hardware_images = []

    # --- the command line -----------------------------------------------------

    def append_line(self):
        # no_timer_check: under TCG on a loaded host (three guests on two
        # cores) 6.1 failed its boot-time check that the emulated 8254
        # ticks through the IO-APIC and panicked ("IO-APIC + timer doesn't
        # work!"): a check of the emulator's timing, not of anything tested.
        return " ".join([
            "console=ttyS0", "loglevel=5", "panic=-1", "oops=panic", "no_timer_check",
            "hung_task_panic=0", "printk.devkmsg=on", "trace_clock=global",
            f"rqpath.stage={self.kernel.stage}",
            # the guest stretches its time-bounded workloads by as much
            # as this kernel's deadlines are (tests/guest/lib.sh reads a
            # whole number)
            f"rqpath.slowdown={math.ceil(self.slowdown)}",
            "rqpath.scenarios=" + ",".join(s.name for s in self.scenarios),
        ] + (["rqpath.shell=1"] if self.shell else []) + self.extra_append)

    def command(self, workdir):
        hw = Hardware([h for s in self.scenarios for h in s.hardware], workdir)
        cmd = [QEMU, "-machine", "q35", "-m", str(GUEST_MEMORY_MB), "-smp", str(GUEST_CPUS),
               "-no-reboot", "-display", "none", "-monitor", "none",
               "-kernel", self.kernel.bzimage, "-initrd", self.kernel.initramfs,
               "-append", self.append_line()]
        cmd += accel_args(self.accel)
        if self.shell:
            cmd += ["-serial", "mon:stdio"]
        else:
            cmd += ["-serial", f"file:{self.console}"]
        cmd += ["-serial", f"file:{self.results_path}"]
        cmd += hw.args()
        self.hardware_images = hw.images
        return cmd

    def write_replay(self, cmd, workdir):
        """qemu.cmd as run, and replay: the same boot by hand, with fresh
        disk images and the console on the terminal."""
        with open(os.path.join(self.dir, "qemu.cmd"), "w") as f:
            f.write(shlex.join(cmd) + "\n")
        lines = ["#!/bin/sh", f"# Replays boot {self.tag} ({self.kernel.label}): the same kernel, image,",
                 "# command line and (fresh, empty) disk images; the console on this terminal.",
                 "set -e", 'd=$(mktemp -d)', "trap 'rm -rf \"$d\"' EXIT"]
        for name, mb in self.hardware_images:
            lines.append(f'truncate -s {mb}M "$d/{name}"')
        replay = []
        for a in cmd:
            a = a.replace(workdir, "$d")
            if a.startswith("file:"):
                a = "file:/dev/null" if a.endswith("results.log") else a
            replay.append(a)
        # The console to the terminal, results discarded.
        rendered = " ".join('"' + a.replace('"', '\\"') + '"' if "$d" in a else shlex.quote(a) for a in replay)
        rendered = rendered.replace(shlex.quote(f"file:{self.console}"), "mon:stdio")
        lines.append(f"exec {rendered}")
        path = os.path.join(self.dir, "replay")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(path, 0o755)

    # --- running --------------------------------------------------------------

    def run(self):
        """Boot, follow the guest until it is done or stuck; never leak QEMU.

        Under TCG a guest now and then hangs early in the kernel's boot
        and the same kernel boots at once the next time: an emulator's
        flake, which would otherwise fail every scenario of the boot.  So
        a first attempt that hung before init with nothing wrong on its
        console is booted once more, from scratch; its logs stay beside
        the second's and every result of the boot names what happened."""
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        if self.shell:
            with tempfile.TemporaryDirectory(prefix="rqpath-boot-") as workdir:
                return subprocess.call(self._prepare(workdir))
        start = time.monotonic()
        self._attempt()
        if self._hung_quietly_before_init():
            self.retried = f"first attempt never reached init ({self._console_stopped_at()})"
            self._set_aside_first_attempt()
            self._start_afresh()
            self._attempt()
        self.seconds = time.monotonic() - start
        return self.classify()

    def _prepare(self, workdir):
        """The command line, with its disk images made in WORKDIR and its
        replay script written."""
        cmd = self.command(workdir)
        self.write_replay(cmd, workdir)
        return cmd

    def _attempt(self):
        """One QEMU run, with fresh disk images, followed to its end."""
        with tempfile.TemporaryDirectory(prefix="rqpath-boot-") as workdir:
            cmd = self._prepare(workdir)
            start = time.monotonic()
            with open(os.path.join(self.dir, "qemu.log"), "w") as qlog:
                proc = subprocess.Popen(cmd, stdout=qlog, stderr=subprocess.STDOUT,
                                        start_new_session=True)
            RUNNING.add(proc.pid)
            try:
                self._follow(proc, start)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                RUNNING.discard(proc.pid)
            self.exit_code = proc.returncode

    def _hung_quietly_before_init(self):
        """Whether the attempt is the emulator's flake a retry is for: the
        harness killed a guest that never reached init (a QEMU that exited
        by itself, a broken command line, is no hang), and the kernel
        reported nothing (a panic or a warning before init is the kernel's
        own result).  Never on a retry: a boot gets one."""
        if self.retried is not None or self.killed_by != NEVER_REACHED_INIT:
            return False
        crash, _, unowned = self._console_reports()
        return crash is None and not unowned

    def _console_stopped_at(self):
        """Where the console stopped: its last line, which is where to look
        first in the log the retry keeps."""
        lines = [line.strip() for line in self._read(self.console).splitlines() if line.strip()]
        if not lines:
            return "the console is empty"
        return f"console stopped at: {lines[-1][:STOPPED_AT_CHARS]}"

    def _set_aside_first_attempt(self):
        """The first attempt's logs under names of their own: the second
        attempt writes fresh ones, and the first's are what a flake left
        to read."""
        for name in ("console", "qemu", "results"):
            path = os.path.join(self.dir, f"{name}.log")
            if os.path.exists(path):
                os.replace(path, os.path.join(self.dir, f"{name}-attempt1.log"))

    def _follow(self, proc, start):
        offset = 0
        partial = b""
        done_at = None
        self.started = start
        deadline = start + self.boot_deadline
        while proc.poll() is None:
            time.sleep(0.5)
            now = time.monotonic()
            data = self._read_bytes(self.results_path, offset)
            offset += len(data)
            lines = (partial + data).split(b"\n")
            partial = lines.pop()
            for raw in lines:
                line = raw.decode(errors="replace").rstrip("\r")
                deadline = self._line(line, now, deadline)
                if line.startswith("RQPATH-DONE"):
                    done_at = now
            if done_at is not None and now - done_at > END_GRACE:
                self.killed_by = "finished but did not reset"
                break
            if now > deadline:
                self.killed_by = self._deadline_reason()
                break
        # What arrived between the last read and QEMU's exit.
        data = partial + self._read_bytes(self.results_path, offset)
        for raw in data.split(b"\n"):
            line = raw.decode(errors="replace").rstrip("\r")
            if line.strip():
                self._line(line, time.monotonic(), deadline)

    @staticmethod
    def _read_bytes(path, offset):
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                return f.read()
        except FileNotFoundError:
            return b""

    def _deadline_reason(self):
        running = self._running()
        if not self.booted:
            return NEVER_REACHED_INIT_TWICE if self.retried else NEVER_REACHED_INIT
        if running is None:
            return "no scenario running and no end"
        st = running
        if st.result is None:
            return f"{st.scenario.name}: no verdict within its timeout"
        return f"{st.scenario.name}: its cleanup did not finish"

    def _running(self):
        for st in self.states:
            if st.started_at is not None and st.checked is None:
                return st
        return None

    def _state(self, name):
        for st in self.states:
            if st.scenario.name == name:
                return st
        return None

    def _line(self, line, now, deadline):
        """One protocol line; returns the deadline by which the next must come."""
        kind, _, rest = line.partition(" ")
        if kind == "RQPATH-BOOTED":
            self.booted = True
            self.boot_seconds = round(now - self.started, 1)
            return now + 30 * self.slowdown
        if kind == "RQPATH-START":
            st = self._state((rest.split() or [None])[0])
            if st is not None:
                st.started_at = now
                return now + st.scenario.timeout * self.slowdown
        elif kind == "RQPATH-RESULT":
            r, why = verdict_object(rest)
            st = self._state(r.get("scenario")) if isinstance(r, dict) else None
            if why:
                # Whose it is, if it says; else the scenario running.
                st = st or self._running()
                if st is not None:
                    r = bad_line_result(st.scenario.name, why, line)
            if st is not None:
                st.result, st.result_at = r, now
                return now + CHECK_DEADLINE * self.slowdown
        elif kind == "RQPATH-CHECKED":
            name, _, js = rest.partition(" ")
            st = self._state(name)
            if st is not None:
                st.checked = checked_object(js, line)
                st.checked_at = now
                if st.result is None:
                    st.result = bad_line_result(name, "a post-cleanup check without a verdict", line)
                self._finalise(st)
                return now + 30 * self.slowdown
        elif kind == "RQPATH-STOP":
            name, _, reason = rest.partition(" ")
            self.stopped = (name, reason)
        elif kind == "RQPATH-DONE":
            self.done = True
        return deadline

    @staticmethod
    def _read(path, offset=0):
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    # --- classifying ------------------------------------------------------------

    def _console_reports(self):
        """The kernel reports on the console, by whose they are.

        A scenario's window runs from its START to its CHECKED mark in the
        kernel log.  A crash in it is that scenario's; its other reports
        the guest reads from dmesg itself.  Outside every window nobody but
        this reads the log, so every report there counts (see classify).
        A report a scenario allowed is passed over in its window and in the
        gap after it, where what it left behind shows.

        Returns (crash, crashes, unowned): the first crash marker of all,
        {scenario: the first crash marker in its window}, and a list of
        (verdict, line, the scenario whose check the report came after, or
        None before the first scenario).
        """
        crash, crashes, unowned = None, {}, []
        inside = after = None
        for line in self._read(self.console).splitlines():
            mark = WINDOW_MARK.search(line)
            if mark:
                inside, after = (mark[2], after) if mark[1] == "START" else (None, mark[2])
                continue
            found = REPORT_RE.search(line)
            if not found or self._allowed(inside or after, line[found.start():].strip()):
                continue
            marker = next((m for m in CRASH_MARKERS if m in line), None)
            crash = crash or marker
            if inside is None:
                unowned.append(("crashed" if marker else "warned", line[found.start():].strip(), after))
            elif marker:
                crashes.setdefault(inside, marker)
        return crash, crashes, unowned

    def _allowed(self, name, report):
        """Whether scenario NAME allowed REPORT: one of the reports its
        verdict listed as allowed, or a pattern its check sent."""
        st = self._state(name) if name else None
        if st is None:
            return False
        listed = ((st.result or {}).get("details") or {}).get("kernel_reports_allowed") or []
        patterns = (st.checked or {}).get("allowed_reports") or []
        return any(report in a for a in listed) or any(search_ere(p, report) for p in patterns)

    @staticmethod
    def _revise(st, verdict, reason):
        """ST's result made VERDICT (`crashed` or `warned`) unless it is
        already as bad; whether it changed."""
        if st.final["verdict"] in ("crashed", verdict):
            return False
        details = dict(st.final["details"])
        details.setdefault("scenario_verdict", st.final["verdict"])
        details["reason"] = reason
        st.final = dict(st.final, verdict=verdict, details=details)
        return True

    def _finalise(self, st):
        """A scenario whose verdict and post-cleanup check are both in."""
        r = dict(st.result)
        details = dict(r.get("details") or {})
        verdict = r["verdict"]
        chk = st.checked or {}
        timing = dict(r.get("timing") or {})
        if "cleanup_seconds" in chk:
            timing["cleanup"] = chk["cleanup_seconds"]
        if st.started_at is not None and st.checked_at is not None:
            timing["wall"] = round(st.checked_at - st.started_at, 1)
        new = chk.get("new_reports") or []
        problems = chk.get("cleanup_problems") or []
        if chk.get("kmemleak"):
            details["kmemleak"] = chk["kmemleak"]
        if new:
            details["kernel_reports_after_verdict"] = new
            details.setdefault("scenario_verdict", verdict)
            details["reason"] = f"the kernel reported after the verdict: {new[0]}"
            verdict = "warned"
        if problems:
            details["cleanup_problems"] = problems
            if verdict not in model.EXPLAIN_A_FAILED_CLEANUP and not self._expects_unusable(st):
                details.setdefault("scenario_verdict", verdict)
                details["reason"] = f"the cleanup after the scenario failed: {problems[0]}"
                verdict = "error"
        st.final = self._result(st, verdict, r.get("seconds"), details, timing)
        self.on_result(st.final)

    def _expects_unusable(self, st):
        return self.stopped is not None and self.stopped[0] == st.scenario.name and "cleanup" not in self.stopped[1]

    def _result(self, st, verdict, seconds, details, timing=None):
        if self.retried:
            details = dict(details, boot_retried=self.retried)
        k = self.kernel
        return {"tree": k.tree, "variant": k.variant, "stage": k.stage, "kernel": k.release,
                "scenario": st.scenario.name, "verdict": verdict, "seconds": seconds,
                "timing": timing or {}, "details": details, "boot": self.tag}

    def classify(self):
        """One result per scenario that ran; the ones that never started go
        to self.pending.  A scenario without a verdict and its check is
        hung, crashed or an error: never a pass.  The console is read to
        its end first: QEMU has exited, and what the kernel printed after
        the last scenario's check counts too."""
        crash, crashes, unowned = self._console_reports()
        heard = {st.scenario.name: st.final for st in self.states}
        qemu_failed = (self.exit_code not in (0, None) and self.killed_by is None
                       and not self.done)
        if qemu_failed:
            qlog = self._read(os.path.join(self.dir, "qemu.log")).strip().splitlines()[-3:]
            why = f"QEMU exited with status {self.exit_code} without finishing: {' / '.join(qlog)}"
        results = []
        progressed = any(st.started_at is not None for st in self.states)
        for st in self.states:
            name = st.scenario.name
            if qemu_failed:
                st.final = self._result(st, "error", None, {"reason": why})
            elif st.final is not None:
                pass  # its post-cleanup check passed before anything went wrong
            elif st.result is not None:
                # A verdict, but the guest never got through the cleanup.
                d = dict(st.result.get("details") or {})
                d["scenario_verdict"] = st.result["verdict"]
                if crash:
                    d["reason"] = f"the console shows '{crash}' after the verdict, before the post-cleanup check"
                    v = "crashed"
                elif self.killed_by:
                    d["reason"] = f"the cleanup after the verdict did not finish ({self.killed_by})"
                    v = "hung"
                else:
                    d["reason"] = "the guest stopped before the post-cleanup check"
                    v = "error"
                st.final = self._result(st, v, st.result.get("seconds"), d, st.result.get("timing"))
            elif st.started_at is not None:
                if crash:
                    v, d = "crashed", {"reason": f"console shows '{crash}'"}
                elif self.killed_by:
                    v, d = "hung", {"reason": self.killed_by}
                else:
                    v, d = "error", {"reason": "the guest stopped without a verdict"}
                st.final = self._result(st, v, None, d)
            elif not self.booted:
                v = "crashed" if crash else "error"
                st.final = self._result(st, v, None, {"reason": f"the guest did not boot ({crash or self.killed_by or 'no boot marker'})"})
            elif progressed and (self.stopped or crash or self.killed_by or self.done):
                self.pending.append(st.scenario)
                continue
            else:
                st.final = self._result(st, "error", None, {"reason": "not run: the guest stopped before it"})
            if name in crashes:
                self._revise(st, "crashed", f"console shows '{crashes[name]}' during the scenario or its cleanup")
            results.append(st)
        # A report outside every window.  A scenario's check vouches for
        # the kernel log from its START to its CHECKED mark, not for the gap
        # after it, where what it left behind (work items, timers, a task
        # stuck until the hung-task detector speaks) shows, and which no
        # check reads.  So the last clean check before such a report is the
        # one before the scenario whose gap it is in: that scenario's result
        # and every later one of the boot (they ran on a kernel that had
        # reported) are `crashed` or `warned`.  A report before the first
        # scenario leaves no result of the boot standing.  A verdict whose
        # check passed before a crash inside a later window stands.
        for verdict, line, after in unowned:
            where = f"after {after}'s post-cleanup check" if after else "before the first scenario"
            first = next((i for i, st in enumerate(results) if st.scenario.name == after), 0)
            for st in results[first:]:
                self._revise(st, verdict, f"the kernel reported outside every scenario ({where}): {line[:200]}")
        # The harness hears every result it has not heard as it stands now.
        for st in results:
            if st.final is not heard[st.scenario.name]:
                self.on_result(st.final)
        return [st.final for st in results]

    def timing(self):
        """The boot's own figures for the profile."""
        first = min((st.started_at for st in self.states if st.started_at), default=None)
        return {"boot": self.tag, "kernel": self.kernel.label, "seconds": round(self.seconds, 1),
                "to_init": self.boot_seconds,
                "scenarios": [st.scenario.name for st in self.states if st.started_at is not None],
                "stopped": self.stopped[1] if self.stopped else None,
                "killed": self.killed_by, "retried": self.retried}


def probe_accel(kernel):
    """Boot the kernel with KVM once, with a short timeout, and cache the
    answer: on some hosts /dev/kvm exists but cannot run a Linux guest."""
    forced = os.environ.get("RQPATH_ACCEL")
    if forced:
        return forced
    # The answer depends on the host (its kernel, its KVM, QEMU), not on
    # which of our kernels boots: probe once per host configuration.
    key = hashlib.sha256((qemu_version() + os.uname().release).encode()).hexdigest()[:16]
    cache = os.path.join(cache_dir(), "accel")
    try:
        with open(cache) as f:
            saved = json.load(f)
        if saved.get("key") == key:
            log(f"accel: {saved['accel']} (cached: {saved['why']})")
            return saved["accel"]
    except (OSError, ValueError):
        pass
    why = "/dev/kvm is missing"
    accel = "tcg"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        for candidate in ("kvm", "kvm-default-cpu"):
            with tempfile.TemporaryDirectory() as d:
                b = Boot(kernel, [], candidate, d, "probe", boot_deadline=20)
                try:
                    b.run()
                except HarnessError:
                    pass
                if b.done:
                    accel, why = candidate, f"{candidate} booted {kernel.label} to init"
                    break
                why = f"{candidate} did not boot {kernel.label} to init within 20s"
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache, "w") as f:
        json.dump({"key": key, "accel": accel, "why": why}, f)
    log(f"accel: {accel} ({why})")
    return accel
