"""Building guest images and booting them in QEMU.

Nothing here touches the host kernel: kernels and modules only ever run
inside qemu-system-x86_64.
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("RQPATH_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rqpath")

# Markers in the console log that mean the guest kernel died or complained
# in a way no scenario may cause.
CRASH_MARKERS = ("Kernel panic", "Oops:", "BUG: unable to handle", "kernel BUG at",
                 "general protection fault", "BUG: kernel NULL pointer")

QEMU = "qemu-system-x86_64"
GUEST_MEMORY_MB = 2048
GUEST_CPUS = 2
# Seconds a guest gets to reach the init's first report.
BOOT_DEADLINE = 90


class HarnessError(Exception):
    """The harness could not build, boot or run something: never a pass."""


def log(msg):
    print(msg, flush=True)


def run_tool(cmd, what):
    """Run a build tool, streaming its progress; return its stdout lines."""
    log(f"$ {' '.join(os.path.relpath(c, TOP) if c.startswith(TOP) else c for c in cmd)}")
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise HarnessError(f"{what} failed (exit {proc.returncode})")
    return proc.stdout.splitlines()


class Stage:
    """A built stage: kernel, modules and the per-stage guest image."""

    def __init__(self, name):
        self.name = name
        out = run_tool([os.path.join(TOP, "qemu/build-kernel"), name], f"building stage {name}")
        kv = dict(line.split("=", 1) for line in out if "=" in line)
        try:
            self.bzimage = kv["bzImage"]
            self.modules = kv["modules"]
            self.rqpath_ko = kv["dm-rqpath"]
        except KeyError as e:
            raise HarnessError(f"qemu/build-kernel {name} did not print {e}")
        self.initramfs = None
        touch(os.path.dirname(self.bzimage))

    def build_image(self, base_cpio):
        """Base image + this stage's modules (and dm-rqpath), one cpio."""
        with open(self.rqpath_ko, "rb") as f:
            key = hashlib.sha256(
                (base_cpio + self.modules).encode() + f.read()).hexdigest()[:16]
        out = os.path.join(CACHE, "initramfs", f"{self.name}-{key}.cpio")
        if not os.path.exists(out):
            with tempfile.TemporaryDirectory() as tmp:
                shutil.copytree(self.modules, os.path.join(tmp, "root"), symlinks=True)
                [version] = os.listdir(os.path.join(tmp, "root/lib/modules"))
                extra = os.path.join(tmp, "root/lib/modules", version, "extra")
                os.makedirs(extra, exist_ok=True)
                shutil.copy(self.rqpath_ko, extra)
                subprocess.run(["depmod", "-b", os.path.join(tmp, "root"), version], check=True)
                mods = os.path.join(tmp, "modules.cpio")
                with open(mods, "wb") as f:
                    find = subprocess.Popen(["find", "."], cwd=os.path.join(tmp, "root"),
                                            stdout=subprocess.PIPE)
                    subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"],
                                   cwd=os.path.join(tmp, "root"), stdin=find.stdout,
                                   stdout=f, check=True)
                    find.wait()
                # The kernel unpacks concatenated newc archives in order.
                tmp_out = f"{out}.tmp.{os.getpid()}"
                with open(tmp_out, "wb") as f:
                    for part in (base_cpio, mods):
                        with open(part, "rb") as p:
                            shutil.copyfileobj(p, f, 1 << 20)
                os.rename(tmp_out, out)
        touch(out)
        self.initramfs = out


def prune_cache(keep_minutes=120):
    """Drop guest images, stage builds and build directories that no run
    has touched for a while: every change to a scenario or a patch makes
    new ones, and each image is ~100 MiB.  Recent ones stay, so runs in
    progress (other checkouts share the cache) keep theirs."""
    cutoff = time.time() - keep_minutes * 60
    for sub in ("initramfs", "stages", "obj"):
        d = os.path.join(CACHE, sub)
        if not os.path.isdir(d):
            continue
        for entry in os.listdir(d):
            path = os.path.join(d, entry)
            try:
                if os.stat(path).st_mtime < cutoff:
                    if os.path.isdir(path):
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        os.remove(path)
            except FileNotFoundError:
                pass


def touch(path):
    """Mark a cache entry as used, so prune_cache keeps it."""
    try:
        os.utime(path)
    except FileNotFoundError:
        pass


def base_image():
    out = run_tool([os.path.join(TOP, "qemu/build-initramfs")], "building the guest image")
    touch(out[-1])
    return out[-1]


class Hardware:
    """Emulated devices a scenario asks for, made fresh for every boot."""

    def __init__(self, names, workdir):
        self.names = sorted(set(names))
        self.workdir = workdir
        unknown = [n for n in self.names if not hasattr(self, "_" + n.replace("-", "_"))]
        if unknown:
            raise HarnessError(f"unknown qemu hardware {unknown}")

    def args(self):
        args = []
        for n in self.names:
            args += getattr(self, "_" + n.replace("-", "_"))()
        return args

    def _image(self, name, mb):
        path = os.path.join(self.workdir, name)
        with open(path, "wb") as f:
            f.truncate(mb << 20)
        return path

    def _ahci_disk(self):
        # q35's ICH9 AHCI controller: libata translates to SCSI, NCQ on.
        img = self._image("ahci.img", 512)
        return ["-drive", f"file={img},if=none,id=ahci0,format=raw,cache=none,aio=threads",
                "-device", "ide-hd,drive=ahci0,bus=ide.0,serial=rqpath-ahci"]

    def _virtio_paths(self):
        # One LUN behind two virtio-scsi controllers: two SCSI paths to the
        # same image, with the same serial and WWN so multipath groups them.
        img = self._image("paths.img", 256)
        args = []
        for i in range(2):
            args += ["-device", f"virtio-scsi-pci,id=vscsi{i}",
                     "-drive", f"file={img},if=none,id=path{i},format=raw,cache=none,file.locking=off",
                     "-device", f"scsi-hd,drive=path{i},bus=vscsi{i}.0,share-rw=on,"
                                f"serial=RQPATH0001,wwn=0x5000c50015ea71ac"]
        return args


def qemu_version():
    out = subprocess.run([QEMU, "--version"], stdout=subprocess.PIPE, text=True, check=True)
    return out.stdout.splitlines()[0]


class Boot:
    """One QEMU run of one stage with a list of scenarios."""

    def __init__(self, stage, scenarios, accel, logdir, tag, shell=False):
        self.stage = stage
        self.scenarios = scenarios
        self.accel = accel
        self.logdir = logdir
        self.tag = tag
        self.console = os.path.join(logdir, f"{tag}.console.log")
        self.results_path = os.path.join(logdir, f"{tag}.results.log")
        self.timeout = 60 + sum(s.timeout for s in scenarios)
        self.shell = shell

    def command(self, workdir):
        hw = Hardware([h for s in self.scenarios for h in s.hardware], workdir)
        append = " ".join([
            "console=ttyS0", "loglevel=5", "panic=-1", "oops=panic",
            "hung_task_panic=0", "printk.devkmsg=on", "trace_clock=global",
            f"rqpath.stage={self.stage.name}",
            "rqpath.scenarios=" + ",".join(s.name for s in self.scenarios),
        ] + (["rqpath.shell=1"] if self.shell else []))
        cmd = [QEMU, "-machine", "q35", "-m", str(GUEST_MEMORY_MB), "-smp", str(GUEST_CPUS),
               "-no-reboot", "-display", "none", "-monitor", "none",
               "-kernel", self.stage.bzimage, "-initrd", self.stage.initramfs,
               "-append", append]
        cmd += accel_args(self.accel)
        if self.shell:
            cmd += ["-serial", "mon:stdio"]
        else:
            cmd += ["-serial", f"file:{self.console}"]
        cmd += ["-serial", f"file:{self.results_path}"]
        return cmd + hw.args()

    def run(self):
        """Boot, wait for the guest to finish or the timeout; never leak QEMU."""
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="rqpath-boot-") as workdir:
            cmd = self.command(workdir)
            with open(os.path.join(self.logdir, f"{self.tag}.qemu.cmd"), "w") as f:
                f.write(" ".join(cmd) + "\n")
            if self.shell:
                return subprocess.call(cmd)
            with open(os.path.join(self.logdir, f"{self.tag}.qemu.log"), "w") as qlog:
                proc = subprocess.Popen(cmd, stdout=qlog, stderr=subprocess.STDOUT,
                                        start_new_session=True)
            self.timed_out = False
            try:
                done_at = None
                while proc.poll() is None:
                    time.sleep(0.5)
                    elapsed = time.monotonic() - start
                    results = self._read(self.results_path)
                    if done_at is None and "RQPATH-DONE" in results:
                        done_at = elapsed
                    if done_at is not None and elapsed - done_at > 15:
                        break  # finished but did not reset: stop it
                    if elapsed > BOOT_DEADLINE and "RQPATH-BOOTED" not in results:
                        self.timed_out = True
                        break  # never reached init: no point waiting
                    if elapsed > self.timeout:
                        self.timed_out = True
                        break
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            self.exit_code = proc.returncode
        self.seconds = time.monotonic() - start
        return self.classify()

    @staticmethod
    def _read(path):
        try:
            with open(path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def classify(self):
        """One result per scenario, from what the guest reported and what the
        console shows.  A scenario without a verdict is hung, crashed or an
        error: never a pass."""
        results_text = self._read(self.results_path)
        console = self._read(self.console)
        crash = next((m for m in CRASH_MARKERS if m in console), None)
        booted = "RQPATH-BOOTED" in results_text
        reported = {}
        started = []
        for line in results_text.splitlines():
            if line.startswith("RQPATH-START "):
                started.append(line.split(" ", 1)[1].strip())
            elif line.startswith("RQPATH-RESULT "):
                try:
                    r = json.loads(line.split(" ", 1)[1])
                    reported[r["scenario"]] = r
                except (ValueError, KeyError):
                    pass
        results = []
        blocked_by = None
        for s in self.scenarios:
            r = reported.get(s.name)
            if r is not None:
                verdict, seconds, details = r["verdict"], r.get("seconds"), r.get("details", {})
            elif not booted:
                verdict, seconds = ("crashed" if crash else "error"), None
                details = {"reason": f"guest did not boot ({crash or 'no boot marker'})"}
            elif s.name in started:
                seconds = None
                if crash:
                    verdict, details = "crashed", {"reason": f"console shows '{crash}'"}
                elif self.timed_out:
                    verdict, details = "hung", {"reason": f"no verdict within {self.timeout}s"}
                else:
                    verdict, details = "error", {"reason": "guest stopped without a verdict"}
                blocked_by = s.name
            else:
                verdict, seconds = "error", None
                details = {"reason": f"not run: {blocked_by or 'guest stopped'} before it"}
            if crash and r is not None:
                details = dict(details, console_crash=crash)
            results.append({"stage": self.stage.name, "scenario": s.name, "verdict": verdict,
                            "seconds": seconds, "details": details, "boot": self.tag})
        return results


def accel_args(accel):
    if accel == "kvm":
        return ["-accel", "kvm", "-cpu", "host"]
    if accel == "kvm-default-cpu":
        return ["-accel", "kvm"]
    return ["-accel", "tcg,thread=multi"]


def probe_accel(stage):
    """Boot the stage with KVM once, with a short timeout, and cache the
    answer: on some hosts /dev/kvm exists but cannot run a Linux guest."""
    forced = os.environ.get("RQPATH_ACCEL")
    if forced:
        return forced
    # The answer depends on the host (its kernel, its KVM, QEMU), not on
    # which of our kernels boots: probe once per host configuration.
    key = hashlib.sha256((qemu_version() + os.uname().release).encode()).hexdigest()[:16]
    cache = os.path.join(CACHE, "accel")
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
                b = Boot(stage, [], candidate, d, "probe")
                b.timeout = 20
                b.run()
                if "RQPATH-DONE" in b._read(b.results_path):
                    accel, why = candidate, f"{candidate} booted {stage.name} to init"
                    break
                why = f"{candidate} did not boot {stage.name} to init within 20s"
    with open(cache, "w") as f:
        json.dump({"key": key, "accel": accel, "why": why}, f)
    log(f"accel: {accel} ({why})")
    return accel
