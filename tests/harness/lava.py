"""rqpath's boots as LAVA jobs, and LAVA's logs of them back as results.

LAVA (Linaro's Automated Validation Architecture: what KernelCI's and
LKFT's labs run) schedules jobs on workers that boot kernels on QEMU or on
boards and stream their consoles.  write_jobs() turns every planned boot
(plan.plan_boots) into one job for LAVA's `qemu` device type: the boot's
kernel and guest image, empty disk images for its hardware, and the very
QEMU arguments guest.Boot runs locally (machine, memory, vCPUs,
accelerator, devices, kernel command line), with one change:
rqpath.results=console, which moves the guest's protocol lines to the
console, prefixed (tests/guest/lib.sh, RQ_CONSOLE_PREFIX), since a LAVA
job has one serial port.  Its test action is one LAVA monitor per
scenario: from the scenario's START to its CHECKED line, the RESULT line
is a test case of suite "rqpath", pass when the guest's verdict is one the
scenario expects on this stage.

read_results() does the judging the harness does: it replays the console
of a job's LAVA log (lava-run's output, or `lavacli jobs logs --raw`)
through guest.Boot, so a crash, a kernel report outside every scenario or
a cleanup failure counts as it does in a local run, and tests/run judges
the results against the expectations as it judges its own.

Layout of a jobs directory:
  jobs.json                 what was planned: every job's boot, kernel, scenarios
  TAG.yaml                  the LAVA job definition of boot TAG
  devices/TAG.yaml          the qemu device dictionary a LAVA server would render
                            for it (for lava-run on one machine)
  images/                   kernels, guest images and compressed empty disks,
                            by URL: file:// here, or --lava-url-base's
  results/TAG.yaml          the job's LAVA log, put there after it ran
"""

import datetime
import hashlib
import json
import lzma
import math
import os
import re
import shutil
import sys
import tempfile
import urllib.parse

from . import guest
from .kernels import TOP, HarnessError
from .model import Verdict

SUITE = "rqpath"
# The guest's verdicts as LAVA's results: pass/fail is filled per
# scenario from what it expects; these never pass.
LAVA_NEVER = {Verdict.SKIPPED: "skip"}
# What the qemu device type's template (lava-server's qemu.jinja2) puts on
# every command line itself, and which the job therefore leaves out.
TEMPLATE_OWNS = ("-m", "-monitor", "-display", "-serial")
NO_VALUE = ("-no-reboot",)


def console_prefix():
    """RQ_CONSOLE_PREFIX of tests/guest/lib.sh: the mark of a protocol line
    on the console."""
    path = os.path.join(TOP, "tests/guest/lib.sh")
    with open(path) as f:
        m = re.search(r"^RQ_CONSOLE_PREFIX='([^']*)'$", f.read(), re.M)
    if m is None:
        raise HarnessError(f"{path}: no RQ_CONSOLE_PREFIX='...' line")
    return m[1]


PREFIX = console_prefix()


class JobBoot(guest.Boot):
    """A guest.Boot whose protocol comes on the console."""

    def __init__(self, kernel, scenarios, accel, logdir, tag, slowdown=1.0):
        super().__init__(kernel, scenarios, accel, logdir, tag, slowdown=slowdown,
                         extra_append=["rqpath.results=console"])


def split_command(cmd, workdir):
    """A guest.Boot command line as LAVA wants it: ({'kernel', 'initrd',
    'append'}, {image label: [-drive arguments with {label} for its file]},
    [the other options, each 'OPTION VALUE'], memory).  Options the qemu
    device type sets itself are dropped."""
    files, drives, extra, memory = {}, {}, [], None
    i = 1
    while i < len(cmd):
        opt = cmd[i]
        if opt in NO_VALUE:
            extra.append(opt)
            i += 1
            continue
        val = cmd[i + 1]
        i += 2
        if opt == "-m":
            memory = int(val)
        elif opt in TEMPLATE_OWNS:
            continue
        elif opt in ("-kernel", "-initrd"):
            files[opt[1:]] = val
        elif opt == "-append":
            files["append"] = val
        elif opt == "-drive" and f"file={workdir}/" in val:
            name = val.split(f"file={workdir}/", 1)[1].split(",", 1)[0]
            label = "disk_" + re.sub(r"\W", "_", name.rsplit(".", 1)[0])
            drives.setdefault(label, (name, []))[1].append(
                val.replace(f"{workdir}/{name}", "{%s}" % label))
        else:
            extra.append(f"{opt} {val}")
    return files, drives, extra, memory


def quote_arg(text):
    """One argument as LAVA's pexpect command line reads it."""
    if re.fullmatch(r"[\w@%+=:,./-]+", text):
        return text
    if '"' in text or "\\" in text:
        raise HarnessError(f"cannot pass {text!r} through LAVA's command line")
    return f'"{text}"'


def blank_image(images_dir, mb):
    """An empty disk of MB MiB, xz-compressed (a lab downloads kilobytes)."""
    path = os.path.join(images_dir, f"empty-{mb}M.img.xz")
    if not os.path.exists(path):
        comp = lzma.LZMACompressor(preset=1)
        zeros = bytes(1 << 20)
        with open(path + ".tmp", "wb") as f:
            for _ in range(mb):
                f.write(comp.compress(zeros))
            f.write(comp.flush())
        os.rename(path + ".tmp", path)
    return path


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def place(src, images_dir, name):
    """SRC as images/NAME: a hard link where it can be (the cache's files
    are hundreds of MiB), else a copy."""
    dst = os.path.join(images_dir, name)
    if os.path.exists(dst):
        os.remove(dst)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)
    return dst


class Urls:
    """An image's URL: under BASE (a lab's web server publishing the jobs
    directory), or file:// of the path here."""

    def __init__(self, jobs_dir, base=None):
        self.jobs_dir = os.path.abspath(jobs_dir)
        self.base = base.rstrip("/") if base else None

    def __call__(self, path):
        rel = os.path.relpath(os.path.abspath(path), self.jobs_dir)
        if self.base:
            return f"{self.base}/{urllib.parse.quote(rel)}"
        return "file://" + urllib.parse.quote(os.path.join(self.jobs_dir, rel))


def rx(text):
    """TEXT as a regular expression that matches it (re.escape, without
    escaping what needs none: the job stays readable)."""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)


def minutes(seconds):
    return {"minutes": max(1, math.ceil(seconds / 60))}


def monitor(scenario, expected, last=False):
    """The LAVA monitor of one scenario: its RESULT line between its START
    and CHECKED lines, pass when the guest's verdict is expected.  The
    last one reads on to the guest's DONE, so that the log holds what
    the kernel printed after the last check, as a local boot's console
    does."""
    name = rx(scenario.name)
    return {
        "name": SUITE,
        "start": rx(f"{PREFIX}RQPATH-START {scenario.name} "),
        "end": rx(f"{PREFIX}RQPATH-DONE" if last else f"{PREFIX}RQPATH-CHECKED {scenario.name} "),
        "pattern": (rx(f'{PREFIX}RQPATH-RESULT {{"scenario":"') + f"(?P<test_case_id>{name})"
                    + '","stage":"[^"]*","verdict":"(?P<result>[a-z]+)"'),
        "fixupdict": {v.value: "pass" if v in expected else LAVA_NEVER.get(v, "fail") for v in Verdict},
    }


def device_dictionary(context):
    """The qemu device dictionary lava-server renders from its qemu.jinja2
    for an x86_64 job with this CONTEXT: what `lava-run --device` wants on
    a machine without a server."""
    options = []
    if not context.get("no_kvm"):
        options += ["-cpu host", "-enable-kvm"]
    options += ["-nographic",
                "-net nic,model=virtio,macaddr=52:54:00:12:34:58 -net user",
                f"-m {context.get('memory', 512)}",
                "-monitor none"]
    return {
        "device_type": "qemu",
        "available_architectures": ["amd64", "x86_64"],
        "constants": {"posix": {"lava_test_sh_cmd": "/bin/sh", "lava_test_results_dir": "/lava-%s",
                                "lava_test_shell_file": "~/.bashrc"},
                      "shutdown-message": "The system is going down for reboot NOW",
                      "kernel-start-message": "Linux version [0-9]",
                      "default-shell-prompt": "lava-test: # ",
                      "spawn_maxread": "4092", "failure_retry": 1, "boot_retry": 1},
        "commands": {"connections": {}},
        "timeouts": {"actions": {}, "connections": {}},
        "actions": {
            "deploy": {"connections": {"serial": None, "lxc": None},
                       "methods": {"tmpfs": None, "image": {"parameters": {"guest": {
                           "size": 512, "interface": "ide", "driveid": "lavatest"}}}}},
            "boot": {"connections": {"serial": None},
                     "methods": {"qemu": {"parameters": {
                         "command": "qemu-system-x86_64",
                         "boot_options": {"root": "/dev/sda1", "console": "ttyS0,115200",
                                          "boot_order": "c"},
                         "options": options,
                         "extra": list(context.get("extra_options", []))}}}},
        },
    }


def job_definition(pb, accel, expected_of, urls, images_dir, workdir):
    """The LAVA job of planned boot PB, and its record for jobs.json."""
    k = pb.kernel
    slowdown = getattr(pb, "slowdown", 1.0)
    b = JobBoot(k, pb.scenarios, accel, workdir, pb.tag, slowdown=slowdown)
    cmd = b.command(workdir)
    files, drives, extra, memory = split_command(cmd, workdir)
    stage = k.stage.replace(":", "-")
    base = f"{k.tree}-{stage}-{k.variant}"
    kernel = place(files["kernel"], images_dir, f"{base}.bzImage")
    initrd = place(files["initrd"], images_dir, f"{base}.cpio")
    images = {
        "kernel": {"url": urls(kernel), "sha256sum": sha256(kernel),
                   "image_arg": f"-kernel {{kernel}} -append {quote_arg(files['append'])}"},
        "initrd": {"url": urls(initrd), "sha256sum": sha256(initrd),
                   "image_arg": "-initrd {initrd}"},
    }
    sizes = dict(b.hardware_images)
    for label, (name, args) in sorted(drives.items()):
        images[label] = {"url": urls(blank_image(images_dir, sizes[name])), "compression": "xz",
                         "image_arg": " ".join(f"-drive {a}" for a in args)}
    context = {"arch": "x86_64", "memory": memory, "extra_options": extra}
    if not accel.startswith("kvm"):
        context["no_kvm"] = True
    boot_s = guest.BOOT_DEADLINE * slowdown
    longest = max([s.timeout for s in pb.scenarios] or [0])
    run_s = boot_s + sum((s.timeout + guest.CHECK_DEADLINE) * slowdown for s in pb.scenarios) + guest.END_GRACE
    # How long LAVA's console reader waits for the line a monitor wants
    # next: the boot action's timeout (a scenario's RESULT, CHECKED) and
    # the connection's (the next START, the first after the boot): the
    # longest the guest may be silent, a debug kernel's boot included.
    silent = minutes(boot_s + (longest + guest.CHECK_DEADLINE) * slowdown)
    names = [s.name for s in pb.scenarios]
    job = {
        "device_type": "qemu",
        "job_name": f"rqpath {k.label} {pb.tag}: {' '.join(names)}"[:200],
        "timeouts": {"job": minutes(run_s + 20 * 60), "connection": silent,
                     "actions": {"lava-test-monitor": minutes(run_s)}},
        "priority": "medium",
        "visibility": "public",
        "context": context,
        "metadata": {"rqpath.tree": k.tree, "rqpath.stage": k.stage, "rqpath.variant": k.variant,
                     "rqpath.kernel": k.release, "rqpath.boot": pb.tag,
                     "rqpath.scenarios": ",".join(names)},
        "actions": [
            {"deploy": {"to": "tmpfs", "timeout": minutes(15 * 60), "images": images}},
            {"boot": {"method": "qemu", "media": "tmpfs", "timeout": silent}},
            {"test": {"timeout": minutes(run_s),
                      "monitors": [monitor(s, expected_of(k, s.name), last=i == len(pb.scenarios) - 1)
                                   for i, s in enumerate(pb.scenarios)]}},
        ],
    }
    record = {"tag": pb.tag, "job": f"{pb.tag}.yaml", "accel": accel, "slowdown": slowdown,
              "kernel": {"tree": k.tree, "stage": k.stage, "variant": k.variant, "release": k.release,
                         "label": k.label},
              "scenarios": [{"name": s.name, "timeout": s.timeout, "hardware": list(s.hardware)}
                            for s in pb.scenarios],
              "qemu": cmd[1:]}
    return job, record, context


def import_yaml():
    """PyYAML: the interpreter's, else Debian's python3-yaml (a python3 of
    its own, pyenv or a venv, does not search /usr/lib/python3/dist-packages;
    it goes last on the path, so that nothing the interpreter has is
    replaced)."""
    try:
        import yaml
    except ImportError:
        debian = "/usr/lib/python3/dist-packages"
        if os.path.isdir(debian) and debian not in sys.path:
            sys.path.append(debian)
        import yaml
    return yaml


def dump_yaml(data, path):
    yaml = import_yaml()
    with open(path + ".tmp", "w") as f:
        yaml.safe_dump(data, f, sort_keys=False, width=1 << 16, default_flow_style=False)
    os.rename(path + ".tmp", path)


def write_jobs(boots, accel, expected_of, jobs_dir, url_base=None, meta=None):
    """One LAVA job per planned boot into JOBS_DIR, with jobs.json and
    the images; returns the job files' paths."""
    images_dir = os.path.join(jobs_dir, "images")
    os.makedirs(images_dir, exist_ok=True)
    os.makedirs(os.path.join(jobs_dir, "results"), exist_ok=True)
    os.makedirs(os.path.join(jobs_dir, "devices"), exist_ok=True)
    urls = Urls(jobs_dir, url_base)
    records, paths = [], []
    for pb in boots:
        with tempfile.TemporaryDirectory(prefix="rqpath-lava-") as workdir:
            job, record, context = job_definition(pb, accel, expected_of, urls, images_dir, workdir)
        path = os.path.join(jobs_dir, record["job"])
        dump_yaml(job, path)
        dump_yaml(device_dictionary(context), os.path.join(jobs_dir, "devices", f"{pb.tag}.yaml"))
        records.append(record)
        paths.append(path)
    with open(os.path.join(jobs_dir, "jobs.json"), "w") as f:
        json.dump(dict(meta or {}, prefix=PREFIX, url_base=url_base, jobs=records), f, indent=1)
        f.write("\n")
    return paths


# --- back from LAVA -----------------------------------------------------------------

def read_log(path):
    """A LAVA job log as its entries ({dt, lvl, msg}): lava-run's lines or
    the server's (`lavacli jobs logs --raw`, each line '- {...}').  A line
    that is not an entry (a traceback, a shell's noise) is passed over."""
    yaml = import_yaml()
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    entries = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            s = line.strip()
            if s.startswith("- "):
                s = s[2:]
            if not s.startswith("{"):
                continue
            try:
                e = yaml.load(s, Loader=loader)
            except yaml.YAMLError:
                continue
            if isinstance(e, dict) and "lvl" in e and "msg" in e:
                entries.append(e)
    return entries


def target_text(msg):
    """A console line as LAVA logged it: its logger escapes every '"'."""
    return msg.replace('\\"', '"') if isinstance(msg, str) else ""


def seconds_of(dt):
    try:
        return datetime.datetime.fromisoformat(str(dt)).timestamp()
    except ValueError:
        return None


class Kernel:
    """What guest.Boot needs of a kernel to classify a boot."""

    def __init__(self, d):
        self.tree, self.stage, self.variant = d["tree"], d["stage"], d["variant"]
        self.release, self.label = d.get("release"), d.get("label", f"{d['tree']}/{d['stage']}")
        self.bzimage = self.initramfs = None


def replay(record, entries, logdir):
    """The results of one job's boot from its LAVA log, classified by
    guest.Boot as a local boot is; (results, boot timing, LAVA's own)."""
    scenarios = [guest.Scenario(s["name"], s["timeout"], s.get("hardware", []))
                 for s in record["scenarios"]]
    b = JobBoot(Kernel(record["kernel"]), scenarios, record.get("accel", "tcg"), logdir,
                record["tag"], slowdown=record.get("slowdown", 1.0))
    b.started = None
    os.makedirs(b.dir, exist_ok=True)
    lava_cases, job_result = {}, None
    console = []
    t0 = t_last = None
    deadline = float("inf")
    for e in entries:
        t = seconds_of(e.get("dt"))
        if e["lvl"] == "results" and isinstance(e["msg"], dict):
            m = e["msg"]
            if m.get("definition") == SUITE:
                lava_cases[(m.get("extra") or {}).get("test_case_id", m.get("case"))] = m.get("result")
            elif m.get("definition") == "lava" and m.get("case") == "job":
                job_result = m
            continue
        # What the console printed: "target"; after the test action
        # (the guest's last words as LAVA powers it off), "feedback".
        if e["lvl"] not in ("target", "feedback"):
            continue
        text = target_text(e["msg"])
        if t is not None:
            t0 = t if t0 is None else t0
            t_last = t
        if b.started is None:
            b.started = t0 if t0 is not None else 0.0
        before, mark, proto = text.partition(PREFIX)
        if before.strip():
            console.append(before)
        if mark:
            deadline = b._line(proto.rstrip(), t if t is not None else 0.0, deadline)
    with open(b.console, "w") as f:
        f.write("\n".join(console) + "\n")
    b.exit_code = 0
    b.seconds = (t_last - t0) if t0 is not None and t_last is not None else 0
    if not b.done:
        why = (job_result or {}).get("error_msg") or "no job result in the log"
        b.killed_by = f"the LAVA job ended before the guest was done: {why}"
    results = b.classify()
    for st in b.pending:
        results.append(b._result(guest.ScenarioState(st), Verdict.ERROR.value, None, {
            "reason": f"not run: the guest stopped before it ({b.stopped[1] if b.stopped else b.killed_by}); "
                      "a LAVA job boots once, run it in a job of its own"}))
    for r in results:
        r["lava"] = {"case": lava_cases.get(r["scenario"]),
                     "job": (job_result or {}).get("result")}
    return results, b.timing()


def read_results(jobs_dir, logdir):
    """Every job of JOBS_DIR with its LAVA log (results/TAG.yaml) as
    results; (meta, results, boots, missing tags)."""
    with open(os.path.join(jobs_dir, "jobs.json")) as f:
        index = json.load(f)
    if index.get("prefix", PREFIX) != PREFIX:
        raise HarnessError(f"{jobs_dir}: jobs written for the console prefix {index['prefix']!r}, "
                           f"the guest library's is {PREFIX!r}")
    results, boots, missing = [], [], []
    for record in index["jobs"]:
        path = os.path.join(jobs_dir, "results", f"{record['tag']}.yaml")
        if not os.path.exists(path):
            missing.append(record["tag"])
            entries = []
        else:
            entries = read_log(path)
        rs, info = replay(record, entries, logdir)
        if not entries:
            for r in rs:
                r["details"] = {"reason": f"no LAVA log of job {record['job']} "
                                          f"(results/{record['tag']}.yaml)"}
                r["verdict"] = Verdict.ERROR.value
        results += rs
        boots.append(info)
    meta = {k: v for k, v in index.items() if k not in ("jobs", "prefix") and not k.startswith("_")}
    return meta, results, boots, missing
