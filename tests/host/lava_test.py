#!/usr/bin/env python3
"""Host tests of rqpath's LAVA jobs (tests/harness/lava.py, tests/run
--lava-jobs and --from-lava): a job boots what the harness boots, with the
guest's protocol on the console; LAVA's own schema checker and lava-run's
validation accept it (both skipped, and said so, without Debian's
lava-dispatcher); and a job's LAVA log comes back as the verdicts the
harness gives the same boot, through the same classification.  Nothing
is booted: the recorded log is lava_fixture/.

  python3 tests/host/lava_test.py [-v]
"""

import contextlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
sys.path.insert(0, os.path.join(TOP, "tests/host"))
from harness import guest, lava, plan, scenarios as scn  # noqa: E402

FIXTURE = os.path.join(TOP, "tests/host/lava_fixture")
FIXTURE_TAG = "6.1-6ce3dd6eec-1"    # made with LAVA's loggers from recorded results
REAL_TAG = "6.1-stock-1"            # a real lava-run of a generated job
SCENARIOS = scn.load(os.path.join(TOP, "tests/scenarios"))
DEBIAN_PYTHON = "/usr/bin/python3"


class FakeKernel:
    tree, stage, variant, release, label = "6.1", "6ce3dd6eec", "normal", "6.1.0-fake", "6.1/6ce3dd6eec"

    def __init__(self, d):
        self.bzimage = os.path.join(d, "bzImage")
        self.initramfs = os.path.join(d, "initramfs.cpio")
        for p in (self.bzimage, self.initramfs):
            with open(p, "wb") as f:
                f.write(os.urandom(64))


def expected(k, name):
    return SCENARIOS[name].expected(k.stage, k.tree)


def lava_python():
    """An interpreter that imports lava_common (Debian's lava-dispatcher
    installs it for /usr/bin/python3), or None."""
    for py in (sys.executable, DEBIAN_PYTHON):
        if os.path.exists(py) and subprocess.run([py, "-c", "import lava_common.schemas"],
                                                 stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


NO_LAVA = ("lava-dispatcher is not installed (apt-get install --no-install-recommends "
           "lava-dispatcher): LAVA's own checks of the jobs not run")


class JobsTest(unittest.TestCase):
    """Jobs of boots that use every kind of emulated hardware."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rqpath-lava-test-")
        cls.kernel = FakeKernel(cls.tmp)
        hw = set()
        chosen = []
        for s in SCENARIOS.values():
            if s.variant == "any" and not s.name.startswith("blktests:") and (
                    set(s.hardware) - hw or s.name == "smoke"):
                hw |= set(s.hardware)
                chosen.append(s)
        cls.chosen = chosen
        cls.boots = plan.plan_boots([cls.kernel], chosen, 1, plan.Estimates())
        for b in cls.boots:
            b.slowdown = 1.0
        cls.jobs_dir = os.path.join(cls.tmp, "jobs")
        cls.paths = lava.write_jobs(cls.boots, "tcg", expected, cls.jobs_dir)
        yaml = lava.import_yaml()
        cls.jobs = {}
        for p in cls.paths:
            with open(p) as f:
                cls.jobs[os.path.basename(p)[:-5]] = yaml.safe_load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def lava_command(self, job, files):
        """The QEMU command line LAVA's qemu boot runs for JOB: the device
        type's options, the job's extra options, every image's argument
        with its downloaded file (FILES: label -> path)."""
        device = lava.device_dictionary(job["context"])
        params = device["actions"]["boot"]["methods"]["qemu"]["parameters"]
        args = [params["command"]] + params["options"] + params["extra"]
        for label, image in job["actions"][0]["deploy"]["images"].items():
            args.append(image["image_arg"].replace("{%s}" % label, files[label]))
        return shlex.split(" ".join(args))

    @staticmethod
    def pairs(cmd):
        out, i = [], 1
        while i < len(cmd):
            if cmd[i] in lava.NO_VALUE or cmd[i] == "-nographic":
                out.append((cmd[i], None))
                i += 1
            else:
                out.append((cmd[i], cmd[i + 1]))
                i += 2
        return out

    def test_every_scenario_in_one_job_of_its_boot(self):
        self.assertGreaterEqual(len(self.chosen), 4)
        self.assertEqual(set(self.jobs), {b.tag for b in self.boots})
        for b in self.boots:
            monitors = self.jobs[b.tag]["actions"][2]["test"]["monitors"]
            self.assertEqual([m["pattern"].split("(?P<test_case_id>")[1].split(")")[0].replace("\\", "")
                              for m in monitors], [s.name for s in b.scenarios])

    def test_a_job_runs_the_harness_qemu_command(self):
        for b in self.boots:
            with self.subTest(boot=b.tag), tempfile.TemporaryDirectory() as work:
                job = self.jobs[b.tag]
                harness = guest.Boot(self.kernel, b.scenarios, "tcg", work, b.tag).command(work)
                files = {"kernel": self.kernel.bzimage, "initrd": self.kernel.initramfs}
                files.update({label: os.path.join(work, name) for label, (name, _) in
                              lava.split_command(harness, work)[1].items()})
                theirs = self.pairs(self.lava_command(job, files))
                ours = [p for p in self.pairs(harness) if p[0] not in ("-serial", "-display")]
                ours = [(o, v + " rqpath.results=console" if o == "-append" else v) for o, v in ours]
                self.assertEqual(sorted(set(theirs) - set(ours), key=str),
                                 sorted([("-nographic", None), ("-net", "user"),
                                         ("-net", "nic,model=virtio,macaddr=52:54:00:12:34:58")], key=str))
                self.assertEqual(sorted(set(ours) - set(theirs)), [])
                self.assertIn(("-accel", "tcg,thread=multi"), theirs)
                self.assertIn(("-machine", "q35"), theirs)
                self.assertTrue(job["context"]["no_kvm"])

    def test_images_by_url_with_the_disk_sizes(self):
        job = next(j for j in self.jobs.values() if len(j["actions"][0]["deploy"]["images"]) > 2)
        images = job["actions"][0]["deploy"]["images"]
        for label, image in images.items():
            self.assertTrue(image["url"].startswith("file://" + self.jobs_dir + "/images/"), image["url"])
            self.assertTrue(os.path.exists(image["url"][len("file://"):]))
            if label.startswith("disk_"):
                self.assertEqual(image["compression"], "xz")
        with tempfile.TemporaryDirectory() as d:
            lava.write_jobs(self.boots[:1], "tcg", expected, d, url_base="https://lab.example/rqpath/")
            with open(os.path.join(d, "jobs.json")) as f:
                tag = json.load(f)["jobs"][0]["tag"]
            yaml = lava.import_yaml()
            with open(os.path.join(d, f"{tag}.yaml")) as f:
                urls = [i["url"] for i in yaml.safe_load(f)["actions"][0]["deploy"]["images"].values()]
        self.assertTrue(all(u.startswith("https://lab.example/rqpath/images/") for u in urls), urls)

    def test_monitors_pass_what_the_stage_expects(self):
        m = next(m for j in self.jobs.values() for m in j["actions"][2]["test"]["monitors"]
                 if "(?P<test_case_id>smoke)" in m["pattern"])
        self.assertEqual({v for v, r in m["fixupdict"].items() if r == "pass"}, {"clean"})
        self.assertEqual(m["fixupdict"]["skipped"], "skip")
        import re
        line = (lava.PREFIX + 'RQPATH-RESULT {"scenario":"smoke","stage":"6ce3dd6eec","verdict":"warned",'
                '"seconds":1,"details":{}}')
        got = re.search(m["pattern"], "noise" + line)
        self.assertEqual((got["test_case_id"], got["result"]), ("smoke", "warned"))
        self.assertTrue(re.search(m["start"], lava.PREFIX + "RQPATH-START smoke t=3.1"))

    @unittest.skipUnless(lava_python(), NO_LAVA)
    def test_lavas_schema_accepts_the_jobs(self):
        check = ("import sys, yaml\nfrom lava_common.schemas import validate\n"
                 "for p in sys.argv[1:]:\n    validate(yaml.safe_load(open(p)), strict=True)\n"
                 "    print('valid', p)\n")
        p = subprocess.run([lava_python(), "-c", check, *self.paths], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(p.stdout.count("valid "), len(self.paths))
        # and one it must refuse: a monitor without its end
        yaml = lava.import_yaml()
        job = json.loads(json.dumps(self.jobs[self.boots[0].tag]))
        del job["actions"][2]["test"]["monitors"][0]["end"]
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            yaml.safe_dump(job, f)
        p = subprocess.run([lava_python(), "-c", check, bad], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertNotEqual(p.returncode, 0, p.stdout)

    @unittest.skipUnless(shutil.which("lava-run") and os.geteuid() == 0, NO_LAVA + " (or not root)")
    def test_lava_run_validates_a_job(self):
        tag = self.boots[0].tag
        with tempfile.TemporaryDirectory() as out:
            p = subprocess.run(["lava-run", "--validate", "--job-id", "1", "--output-dir", out,
                                "--device", os.path.join(self.jobs_dir, "devices", f"{tag}.yaml"),
                                os.path.join(self.jobs_dir, f"{tag}.yaml")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])
        self.assertIn('"case": "validate", "definition": "lava", "result": "pass"', p.stdout)


def lava_line(lvl, msg, dt="2026-12-07T12:00:00"):
    """One line of a LAVA log as lava-run writes it (a console line's
    quotes escaped, as LAVA's ShellLogger does)."""
    yaml = lava.import_yaml()
    if lvl == "target":
        msg = msg.replace('"', '\\"')
    return yaml.dump({"dt": dt, "lvl": lvl, "msg": msg}, default_flow_style=True,
                     default_style='"', width=10 ** 6)[:-1]


class RoundTripTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rqpath-lava-rt-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def from_lava(self, jobs_dir):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out, exist_ok=True)
        p = subprocess.run([os.path.join(TOP, "tests/run"), "--from-lava", jobs_dir],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, RQPATH_OUT=out))
        with open(os.path.join(out, "matrix.json")) as f:
            return p, json.load(f)

    @staticmethod
    def console_of(tag):
        """A recorded job's console as the two files a local boot writes:
        protocol lines to results.log, the rest to console.log."""
        entries = lava.read_log(os.path.join(FIXTURE, "results", f"{tag}.yaml"))
        plan_ = []
        for e in entries:
            if e["lvl"] in ("target", "feedback"):
                text = lava.target_text(e["msg"])
                before, mark, proto = text.partition(lava.PREFIX)
                if before.strip():
                    plan_.append({"to": "console", "line": before})
                if mark:
                    plan_.append({"to": "results", "line": proto.rstrip()})
        return plan_

    def test_the_recorded_jobs_give_the_harness_verdicts(self):
        p, m = self.from_lava(FIXTURE)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        got = {(r["boot"], r["scenario"]): r for r in m["results"]}
        self.assertEqual({k: (r["verdict"], r["pass"], r["lava"]["case"], r["lava"]["job"])
                          for k, r in got.items()},
                         {(REAL_TAG, "smoke"): ("clean", True, "pass", "pass"),
                          (FIXTURE_TAG, "corruption-targeted"): ("corrupted", True, "pass", "pass"),
                          (FIXTURE_TAG, "smoke"): ("clean", True, "pass", "pass")})
        # The same boots through the local harness, a fake QEMU writing the
        # same lines to its two serial files: the same results.
        import harness_test
        for tag in (REAL_TAG, FIXTURE_TAG):
            names = sorted(n for t, n in got if t == tag)
            t = harness_test.HarnessTest("test_clean_run")
            t.setUp()
            try:
                rs, _ = t.boot({"lines": self.console_of(tag)}, names=names, tag=tag)
            finally:
                t.tearDown()
            self.assertEqual(sorted(rs), names)
            for r in rs.values():
                theirs = got[(tag, r["scenario"])]
                with self.subTest(boot=tag, scenario=r["scenario"]):
                    self.assertEqual((r["verdict"], r["details"], r["seconds"]),
                                     (theirs["verdict"], theirs["details"], theirs["seconds"]))
        real = next(b for b in m["boots"] if b["boot"] == REAL_TAG)
        self.assertEqual((real["scenarios"], real["killed"]), (["smoke"], None))

    def job_dir(self, lines, scenarios=("rqpath-discard", "smoke")):
        d = os.path.join(self.tmp, "jobs")
        os.makedirs(os.path.join(d, "results"), exist_ok=True)
        record = {"tag": "6.1-stock-1", "job": "6.1-stock-1.yaml", "accel": "tcg", "slowdown": 1.0,
                  "kernel": {"tree": "6.1", "stage": "stock", "variant": "normal", "release": "6.1.0"},
                  "scenarios": [{"name": n, "timeout": 90, "hardware": []} for n in scenarios]}
        with open(os.path.join(d, "jobs.json"), "w") as f:
            json.dump({"prefix": lava.PREFIX, "jobs": [record]}, f)
        if lines is not None:
            with open(os.path.join(d, "results", "6.1-stock-1.yaml"), "w") as f:
                f.write("\n".join(lines) + "\n")
        return d

    def scenario_lines(self, name, verdict="clean", checked=True):
        P = lava.PREFIX
        out = [lava_line("target", f"[  10.0] rqpath: START {name} #1"),
               lava_line("target", P + f"RQPATH-START {name} t=10.0"),
               lava_line("target", P + "RQPATH-RESULT " + json.dumps(
                   {"scenario": name, "stage": "stock", "verdict": verdict, "seconds": 2.0,
                    "timing": {}, "details": {"reason": 'a "quoted" \\ reason'}}, separators=(",", ":")))]
        if checked:
            out += [lava_line("target", P + f"RQPATH-CHECKED {name} " + json.dumps(
                        {"new_reports": [], "cleanup_problems": [], "kmemleak": [], "allowed_reports": []})),
                    lava_line("target", f"[  12.0] rqpath: CHECKED {name} #1")]
        return out

    def test_a_crash_on_the_console_is_a_crash(self):
        lines = [lava_line("target", lava.PREFIX + "RQPATH-BOOTED stage=stock")]
        lines += self.scenario_lines("rqpath-discard")
        lines += self.scenario_lines("smoke", checked=False)
        lines += [lava_line("target", "[  13.0] BUG: kernel NULL pointer dereference, address: 0000000000000008"),
                  lava_line("target", "[  13.1] Kernel panic - not syncing: Fatal exception"),
                  lava_line("results", {"definition": "lava", "case": "job", "result": "fail",
                                        "error_msg": "lava test monitoring reached end of file"})]
        p, m = self.from_lava(self.job_dir(lines))
        self.assertEqual(p.returncode, 1)
        got = {r["scenario"]: r for r in m["results"]}
        self.assertEqual(got["rqpath-discard"]["verdict"], "clean")
        self.assertEqual(got["rqpath-discard"]["details"]["reason"], 'a "quoted" \\ reason')
        self.assertEqual(got["smoke"]["verdict"], "crashed")

    def test_a_job_that_ended_without_a_verdict_is_hung(self):
        lines = [lava_line("target", lava.PREFIX + "RQPATH-BOOTED stage=stock")]
        lines += self.scenario_lines("rqpath-discard")
        lines += [lava_line("target", lava.PREFIX + "RQPATH-START smoke t=20.0"),
                  lava_line("results", {"definition": "lava", "case": "job", "result": "fail",
                                        "error_msg": "lava-test-monitor timed out after 780 seconds"})]
        p, m = self.from_lava(self.job_dir(lines))
        got = {r["scenario"]: r for r in m["results"]}
        self.assertEqual(got["smoke"]["verdict"], "hung")
        self.assertIn("timed out after 780 seconds", got["smoke"]["details"]["reason"])

    def test_kernel_output_before_the_prefix_is_the_consoles(self):
        # printk wrote into the console line a protocol line starts on
        lines = [lava_line("target", lava.PREFIX + "RQPATH-BOOTED stage=stock")]
        for n in ("rqpath-discard", "smoke"):
            sl = self.scenario_lines(n)
            result = lava.target_text(lava.import_yaml().safe_load(sl[2])["msg"])
            sl[2] = lava_line("target", "[  11.0] sd 0:0:0:0: [sda] Synchronizing SCSI cache" + result)
            lines += sl
        lines.append(lava_line("target", "[  30.0] WARNING: CPU: 1 PID: 7 at block/blk-mq.c:1 x"
                               + lava.PREFIX + "RQPATH-DONE "))
        p, m = self.from_lava(self.job_dir(lines))
        got = {r["scenario"]: r["verdict"] for r in m["results"]}
        # The results are read whole; the warning after the last check is
        # a kernel report outside every scenario, so the last scenario's
        # result is warned, as in a local boot.
        self.assertEqual(got, {"rqpath-discard": "clean", "smoke": "warned"})

    def test_a_job_without_its_log_is_an_error(self):
        p, m = self.from_lava(self.job_dir(None))
        self.assertEqual(p.returncode, 1)
        self.assertEqual({r["verdict"] for r in m["results"]}, {"error"})
        self.assertIn("no LAVA log", m["results"][0]["details"]["reason"])
        self.assertIn("no LAVA log for 1 of 1 jobs", p.stderr)


class RunTest(unittest.TestCase):
    def test_run_writes_the_jobs_of_its_plan(self):
        # tests/run's own step after the kernels are built: the boots
        # plan_boots makes for the selection, one job each, with what
        # each scenario expects on the kernel's stage.
        from importlib.machinery import SourceFileLoader
        run = SourceFileLoader("rqpath_run", os.path.join(TOP, "tests/run")).load_module()
        with tempfile.TemporaryDirectory() as d:
            k = FakeKernel(d)
            chosen = [SCENARIOS[n] for n in ("smoke", "corruption-targeted", "rqpath-discard")]
            args = run.parse_args(["--lava-jobs", os.path.join(d, "jobs"), "--boots", "2"])
            with contextlib.redirect_stdout(io.StringIO()) as said:
                rc = run.write_lava_jobs(args, [k], chosen, {}, SCENARIOS, "normal")
            self.assertIn("2 LAVA jobs (6 scenarios)", said.getvalue())
            self.assertEqual(rc, 0)
            with open(os.path.join(d, "jobs", "jobs.json")) as f:
                index = json.load(f)
            planned = plan.plan_boots([k], chosen, 2, plan.Estimates())
            self.assertEqual([j["tag"] for j in index["jobs"]], [b.tag for b in planned])
            yaml = lava.import_yaml()
            with open(os.path.join(d, "jobs", index["jobs"][0]["job"])) as f:
                job = yaml.safe_load(f)
        fix = {m["pattern"].split("(?P<test_case_id>")[1].split(")")[0].replace("\\", ""):
               sorted(v for v, r in m["fixupdict"].items() if r == "pass")
               for m in job["actions"][2]["test"]["monitors"]}
        self.assertEqual(fix.get("corruption-targeted"), ["corrupted", "violated"])


class TimeoutTest(unittest.TestCase):
    def test_lava_waits_as_long_as_the_harness(self):
        # LAVA's console reader gives up on a silent guest after the
        # connection's timeout (before a START) and the boot action's
        # (before a RESULT or CHECKED): never sooner than the harness.
        with tempfile.TemporaryDirectory() as d:
            k = FakeKernel(d)
            boots = plan.plan_boots([k], [SCENARIOS["smoke"], SCENARIOS["corruption-targeted"]], 1,
                                    plan.Estimates())
            for b in boots:
                b.slowdown = 8.0
            path = lava.write_jobs(boots, "tcg", expected, os.path.join(d, "jobs"))[0]
            with open(path) as f:
                job = lava.import_yaml().safe_load(f)
        longest = max(s.timeout for s in boots[0].scenarios)
        for waits in (job["timeouts"]["connection"], job["actions"][1]["boot"]["timeout"]):
            self.assertGreaterEqual(waits["minutes"] * 60, guest.BOOT_DEADLINE * 8)
            self.assertGreaterEqual(waits["minutes"] * 60, (longest + guest.CHECK_DEADLINE) * 8)
        self.assertIn("rqpath.slowdown=8", job["actions"][0]["deploy"]["images"]["kernel"]["image_arg"])


class UsageTest(unittest.TestCase):
    def usage(self, *args, says):
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([os.path.join(TOP, "tests/run"), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=dict(os.environ, RQPATH_OUT=d))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(says, p.stderr)

    def test_usage_errors(self):
        self.usage("--lava-url-base", "https://lab/x", "--scenario", "smoke",
                   says="--lava-url-base goes with --lava-jobs")
        self.usage("--from-lava", "/tmp", says="--from-lava /tmp: no jobs.json")
        self.usage("--from-lava", FIXTURE, "--merge", "x.json", says="one at a time")
        self.usage("--lava-jobs", "/tmp/x", "--shard", "1/2", says="--lava-jobs writes the boots")


if __name__ == "__main__":
    unittest.main()
