#!/usr/bin/env python3
"""Host tests of tests/run's command line: the options that pick a kernel
(--tree, --kernel-tree, --kernel/--modules/--headers, --bisect, --shard,
--merge), their usage errors, the config check of a kernel we did not build,
and --bisect's exit status.  Nothing is booted or built.

  python3 tests/host/cli_test.py [-v]
"""

import glob
import json
import fnmatch
import os
import re
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(TOP, "tests/run")
sys.path.insert(0, os.path.join(TOP, "tests"))


OUT = tempfile.mkdtemp(prefix="rqpath-cli-test-")


def run(*args, env=None):
    """tests/run with its own out/: never the one a real run may be using."""
    p = subprocess.run([RUN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env={**os.environ, "RQPATH_OUT": OUT, **(env or {})})
    return p.returncode, p.stdout, p.stderr


class UsageTest(unittest.TestCase):
    def usage(self, *args, says):
        rc, out, err = run(*args)
        self.assertEqual(rc, 2, f"{args}: exit {rc}, stderr {err!r}")
        self.assertIn(says, err)
        self.assertIn("Try 'tests/run --help'.", err)

    def test_unknown_tree(self):
        self.usage("--tree", "5.4", "--list", says="unknown tree 5.4")

    def test_unknown_stage(self):
        self.usage("--stage", "nosuch", "--list", says="unknown stage nosuch")

    def test_no_scenario_matches(self):
        self.usage("--scenario", "no-such-*", "--list", says="no scenario matches")

    def test_kernel_needs_modules_and_headers(self):
        self.usage("--kernel", "/dev/null", says="--kernel needs --modules and --headers")

    def test_modules_without_kernel(self):
        self.usage("--modules", "/tmp", says="--modules and --headers go with --kernel")

    def test_two_kernels(self):
        self.usage("--kernel-tree", "/tmp", "--kernel", "/dev/null", "--modules", "/tmp",
                   "--headers", "/tmp", says="one at a time")

    def test_stage_with_custom_kernel(self):
        self.usage("--kernel-tree", "/tmp", "--stage", "stock", says="pick our stages")

    def test_missing_kernel_tree(self):
        self.usage("--kernel-tree", "/no/such/tree", says="--kernel-tree /no/such/tree: no such file")

    def test_bisect_needs_a_user_kernel(self):
        self.usage("--bisect", "--scenario", "smoke", says="--bisect runs a user's kernel")

    def test_build_needs_a_tree(self):
        self.usage("--build", "--scenario", "smoke", says="--build builds a --kernel-tree")

    def test_bad_shard(self):
        self.usage("--shard", "3/2", "--list", says="K must be 1 to N")
        self.usage("--shard", "x", "--list", says="--shard wants K/N")

    def test_missing_blktests(self):
        self.usage("--blktests", "/no/such/dir", says="--blktests /no/such/dir: no such directory")

    def test_setup_takes_no_arguments(self):
        # It used to ignore them, so `tests/setup --help` ran apt-get.
        p = subprocess.run([os.path.join(TOP, "tests/setup"), "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertIn("usage: tests/setup", p.stderr)

    def test_build_kernel_without_the_source_package(self):
        # A machine without linux-source-X: one line that says what to
        # install, not a cascade of tar, mv and awk errors after it.
        with tempfile.TemporaryDirectory() as top:
            for d in ("qemu", "patches"):
                subprocess.run(["cp", "-r", os.path.join(TOP, d), top], check=True)
            with open(os.path.join(top, "patches/trees"), "w") as f:
                f.write("6.1 /no/such/linux-source-6.1.tar.xz patches\n")
            p = subprocess.run([os.path.join(top, "qemu/build-kernel"), "stock"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, RQPATH_CACHE=os.path.join(top, "cache")))
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        self.assertEqual(p.stderr.splitlines(), [
            "error: /no/such/linux-source-6.1.tar.xz not found: install Debian's linux-source-6.1 (tests/setup does)"])

    def test_bad_arguments_to_the_other_scripts(self):
        # One usage line, exit 2, and no work: build-initramfs and
        # bisect-demo used to ignore what they did not know and start
        # building; check-config and build-modules added bash's own errors.
        for args, says in [
                (["qemu/build-initramfs", "--bogus"], "usage: qemu/build-initramfs"),
                (["tests/bisect-demo", "--bogus"], "usage: tests/bisect-demo"),
                (["tests/bisect-demo", "corruption", "nosuch"], "usage: tests/bisect-demo"),
                (["qemu/fetch-debian-kernel", "--bogus"], "usage: qemu/fetch-debian-kernel"),
                (["qemu/check-config", "/no/such/fragment", "/no/such/config"],
                 "error: /no/such/fragment: no such file"),
                (["qemu/build-modules", "/no/such/kdir", "/tmp/x"], "error: no kernel build directory /no/such/kdir"),
                (["blktests/rqpath-run", "--bogus"], "usage: rqpath-run [TEST...], from a blktests checkout")]:
            with self.subTest(args=args):
                p = subprocess.run([os.path.join(TOP, args[0]), *args[1:]], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, timeout=30,
                                   env=dict(os.environ, RQPATH_CACHE=os.path.join(OUT, "no-cache")))
                self.assertEqual(p.stdout, "")
                self.assertEqual(len(p.stderr.splitlines()), 1, f"{args}: not one line: {p.stderr!r}")
                self.assertTrue(p.stderr.startswith(says), f"{args}: {p.stderr!r}")
                self.assertEqual(p.returncode, 2 if says.startswith("usage") else 1, p.stderr)
                self.assertFalse(os.path.exists(os.path.join(OUT, "no-cache")), f"{args} wrote into the cache")
                self.assertFalse(os.path.exists(os.path.join(TOP, "blktests/results")), f"{args} wrote into the repository")

    def test_json_into_a_missing_directory(self):
        # Checked before any build or boot: it used to fail at the end.
        self.usage("--json", "/no/such/dir/x.json", "--scenario", "smoke", "--stage", "stock",
                   says="--json /no/such/dir/x.json: no such directory /no/such/dir")
        self.usage("--merge", os.path.join(TOP, "tests/host/report_fixture.json"), "--json",
                   "/no/such/dir/x.json", says="--json /no/such/dir/x.json: no such directory")

    def test_output_directory_that_cannot_be_made(self):
        rc, out, err = run("--tree", "6.1", "--stage", "stock", "--scenario", "smoke",
                           env={"RQPATH_OUT": "/proc/no-such-dir"})
        self.assertEqual(rc, 2, err)
        self.assertIn("RQPATH_OUT=/proc/no-such-dir: cannot make the directory", err)
        self.assertNotIn("Traceback", err)
        self.assertNotIn("stage stock", err, "it built or looked up kernels first")
        # --merge writes there too when it has no --json.
        rc, out, err = run("--merge", os.path.join(TOP, "tests/host/report_fixture.json"),
                           env={"RQPATH_OUT": "/proc/no-such-dir"})
        self.assertEqual(rc, 2, err)
        self.assertIn("RQPATH_OUT=/proc/no-such-dir: cannot make the directory", err)
        self.assertNotIn("Traceback", err)

    def test_merge_of_what_is_not_a_run(self):
        self.usage("--merge", "/no/such.json", says="--merge /no/such.json: no such file")
        self.usage("--merge", RUN, says=f"--merge {RUN}: not JSON, so not a matrix of tests/run")

    def test_scenario_at_unknown_stage(self):
        self.usage("--scenario", "smoke@nosuch", "--list", says="unknown stage nosuch in --scenario")

    def test_scenario_at_nothing(self):
        self.usage("--scenario", "smoke@", "--list", says="want PATTERN or PATTERN@STAGE")

    def test_scenario_at_stage_with_custom_kernel(self):
        self.usage("--kernel-tree", "/tmp", "--scenario", "smoke@stock", says="picks our stages")

    def test_list_every_tree(self):
        rc, out, _ = run("--list", "--scenario", "smoke")
        self.assertEqual(rc, 0)
        self.assertIn("smoke", out)


def listed_stages(*patterns, tree="6.1"):
    """{scenario: {stage: expectation}} as tests/run --list prints them."""
    args = ["--list", "--tree", tree]
    for p in patterns:
        args += ["--scenario", p]
    rc, out, err = run(*args)
    if rc:
        raise AssertionError(f"tests/run {' '.join(args)}: exit {rc}: {err}")
    listed = {}
    for line in out.splitlines():
        if line and not line[0].isspace():
            name, _, _, *cells = line.split()
            listed[name] = dict(c.split("=", 1) for c in cells)
    return listed


def check_selection(array="FIRST_TREE"):
    """An array of tests/check-selection (make check's FIRST_TREE patterns
    by default), as bash expands it: one element a line."""
    p = subprocess.run(["bash", "-euc", f'. "$1"; printf "%s\\n" "${{{array}[@]}}"', "-",
                        os.path.join(TOP, "tests/check-selection")],
                       stdout=subprocess.PIPE, text=True, check=True)
    elements = p.stdout.splitlines()
    if not elements:
        raise AssertionError(f"tests/check-selection: no {array} read")
    return elements


def first_tree_rule(name, cells, chosen, tree, omitted=()):
    """Where make check breaks the first tree's rule for scenario NAME
    (cells: {stage: expectation}; chosen: the stages it runs), leaving out
    what OMITTED patterns declare: a list of what is missing."""
    missing = []
    if not any(fnmatch.fnmatch(name, o) for o in omitted):
        stages = [st for st in cells if ":" not in st]  # TREE:STAGE overrides come last
        # The listed tree's own expectations (TREE:STAGE) override the others.
        verdict = {st: cells.get(f"{tree}:{st}", cells[st]) for st in stages}
        for before, after in zip(stages, stages[1:]):
            if verdict[before] != verdict[after]:
                missing += [f"{name} changes verdict from {before} to {after}, make check runs it "
                            f"only on {sorted(chosen)}"] * (not {before, after} <= set(chosen))
        if name.startswith(("corruption-", "livelock-")) and name != "corruption-multiqueue":
            missing += [f"{name} defines stages, make check runs it only on {sorted(chosen)}"] * (
                {st for st in chosen if ":" not in st} != set(stages))
    if "stock" not in chosen and "*@stock" not in omitted:
        missing.append(f"{name} does not run on stock")
    return missing


class CheckSelectionTest(unittest.TestCase):
    """make check runs fewer cells than make matrix: never so few that a
    stage's defining verdict goes unchecked."""

    def test_at_stage_restricts_the_listing(self):
        listed = listed_stages("failover-rqpath-virtio@stock,ffe81d45322c", "smoke")
        self.assertEqual(sorted(listed["failover-rqpath-virtio"]), ["ffe81d45322c", "stock"])
        self.assertEqual(len(listed["smoke"]), 5)

    def test_a_debug_scenario_exists_only_in_debug_runs(self):
        """debug-canary checks the debug kernels' detectors: a normal
        kernel has none, so neither make check nor make matrix lists it."""
        self.assertNotIn("debug-canary", listed_stages())
        rc, out, err = run("--list", "--tree", "6.1", "--debug", "--scenario", "debug-*")
        self.assertEqual(rc, 0, err)
        self.assertIn("debug-canary", out)
        rc, _, err = run("--list", "--tree", "6.1", "--scenario", "debug-canary")
        self.assertEqual(rc, 2)
        self.assertIn("no scenario matches", err)

    def test_every_change_of_verdict_along_the_series_is_checked(self):
        """A scenario that tells stages apart runs on both sides of every
        stage where its verdict changes (the listing is in series order),
        the corruption and livelock families, whose verdicts define the
        stages, on every stage, and everything on stock."""
        everything = listed_stages()
        chosen = listed_stages(*check_selection())
        self.assertEqual(sorted(chosen), sorted(everything), "make check leaves a scenario out")
        for name, cells in everything.items():
            self.assertEqual(first_tree_rule(name, cells, chosen[name], "6.1"), [])

    def test_the_other_trees_keep_the_rule_or_say_why_not(self):
        """The other trees run a subset (CHECK_SUBSET); what the first
        tree's rule would add there is declared, with its reason, in
        CHECK_SUBSET_OMITS, and nothing else is left out."""
        omits = dict(o.split(": ", 1) for o in check_selection("CHECK_SUBSET_OMITS"))
        everything = listed_stages(tree="6.12")
        chosen = listed_stages(*check_selection("CHECK_SUBSET"), tree="6.12")
        for pattern, why in omits.items():
            self.assertTrue(why.strip(), f"{pattern}: no reason given")
            self.assertTrue(pattern == "*@stock" or fnmatch.filter(everything, pattern),
                            f"CHECK_SUBSET_OMITS names {pattern}, which is no scenario")
        missing = [m for name, cells in everything.items()
                   for m in first_tree_rule(name, cells, chosen.get(name, {}), "6.12", omits)]
        self.assertEqual(missing, [])


class KernelTreeTest(unittest.TestCase):
    """A tree that is not built, or lacks config options, is refused before
    anything boots, naming what is missing: exit 3, or 125 for --bisect."""

    def tree(self, config_lines, release="6.1.0-test"):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "include/config"))
        with open(os.path.join(d, "include/config/kernel.release"), "w") as f:
            f.write(release + "\n")
        os.makedirs(os.path.join(d, "arch/x86/boot"))
        open(os.path.join(d, "arch/x86/boot/bzImage"), "w").close()
        with open(os.path.join(d, ".config"), "w") as f:
            f.write("\n".join(config_lines) + "\n")
        return d

    def test_unbuilt_tree(self):
        d = tempfile.mkdtemp()
        rc, _, err = run("--kernel-tree", d, "--scenario", "smoke")
        self.assertEqual(rc, 3)
        self.assertIn("not a built kernel tree", err)

    def test_missing_options_are_named(self):
        d = self.tree(["CONFIG_BLK_DEV_DM=y", "CONFIG_SCSI_DEBUG=m"])
        rc, _, err = run("--kernel-tree", d, "--scenario", "smoke")
        self.assertEqual(rc, 3)
        self.assertIn("the kernel config lacks what the scenarios need", err)
        self.assertIn("CONFIG_KPROBES=y (have: not set)", err)
        self.assertIn("merge qemu/rqpath.config", err)

    def test_bisect_cannot_decide(self):
        d = self.tree(["CONFIG_BLK_DEV_DM=y"])
        rc, _, err = run("--bisect", "--kernel-tree", d, "--scenario", "smoke")
        self.assertEqual(rc, 125, err)

    def test_modules_are_fine_where_modprobe_loads_them(self):
        from harness import kernels
        lines = []
        with open(os.path.join(TOP, "qemu/rqpath.config")) as f:
            for line in f:
                if line.startswith("CONFIG_"):
                    lines.append(line.strip().replace("CONFIG_SCSI_DEBUG=m", "CONFIG_SCSI_DEBUG=y")
                                 .replace("CONFIG_DM_MULTIPATH=m", "CONFIG_DM_MULTIPATH=y"))
        d = self.tree(lines)
        self.assertEqual(kernels.config_problems(os.path.join(d, ".config")), [])

    def test_every_module_option_is_loaded_in_the_guest(self):
        # A distribution kernel has these as modules: an option accepted as
        # =m that nothing loads leaves its device missing (Debian's loop).
        from harness import kernels
        text = ""
        for path in glob.glob(os.path.join(TOP, "tests/guest/*.sh")) + \
                glob.glob(os.path.join(TOP, "tests/scenarios/*.sh")):
            with open(path) as f:
                text += f.read()
        boot = re.search(r'^RQ_BOOT_DRIVERS="([^"]*)"', text, re.M).group(1).split()
        loaded = set(boot) | set(re.findall(r"modprobe\s+(?:-q\s+)?([\w-]+)", text))
        loaded = {m.replace("-", "_") for m in loaded}
        for sym, module in kernels.FLEXIBLE_OPTIONS.items():
            if module is not None:
                self.assertIn(module, loaded, f"{sym}=m is accepted but the guest never loads {module}")


class BisectStatusTest(unittest.TestCase):
    def status(self, *verdicts):
        sys.path.insert(0, os.path.dirname(RUN))
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("tests_run", RUN)
        spec = importlib.util.spec_from_loader("tests_run", loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return mod.bisect_status(verdicts)

    def test_codes(self):
        self.assertEqual(self.status("clean", "clean"), 0)
        self.assertEqual(self.status("clean", "corrupted"), 1)
        self.assertEqual(self.status("violated"), 1)
        self.assertEqual(self.status("livelocked", "clean"), 1)
        self.assertEqual(self.status("clean", "error"), 125)
        self.assertEqual(self.status("corrupted", "hung"), 125)
        self.assertEqual(self.status("skipped"), 125)
        self.assertEqual(self.status("warned"), 125)
        self.assertEqual(self.status(), 125)


def shard_result(tree, stage, scenario, verdict, boot):
    """A result as a shard's matrix holds it, judged as if it passed (the
    merge judges it again)."""
    return {"tree": tree, "variant": "normal", "stage": stage, "kernel": "6.1.0", "scenario": scenario,
            "verdict": verdict, "seconds": 1, "timing": {}, "details": {}, "boot": boot,
            "expected": verdict, "pass": True}


def write_shard(path, results, timing):
    with open(path, "w") as f:
        json.dump({"schema": "rqpath.matrix/1", "kernels": [], "timing": timing, "boots": [],
                   "results": results}, f)


class MergeTest(unittest.TestCase):
    def test_merge_of_shards(self):
        """Two shards' JSON joined: every result once, one verdict."""
        d = tempfile.mkdtemp()
        results = [shard_result("6.1", st, "smoke", "clean", f"b-{st}") for st in ("stock", "base")]
        paths = []
        for i, r in enumerate(results):
            p = os.path.join(d, f"s{i}.json")
            write_shard(p, [r], {"boot_seconds": 10})
            paths.append(p)
        rc, out, err = run("--merge", *paths, "--json", os.path.join(d, "m.json"))
        self.assertEqual(rc, 0, err)
        with open(os.path.join(d, "m.json")) as f:
            m = json.load(f)
        self.assertEqual(sorted(r["stage"] for r in m["results"]), ["base", "stock"])
        self.assertEqual(m["timing"]["boot_seconds"], 20)
        self.assertIn("2/2 results as expected", out)

    def test_an_expectation_for_one_tree(self):
        """corruption-ext4 expects 'corrupted|violated|clean' (measured) on
        6.12's 6ce3dd6eec only: a clean result there passes, the same on
        6.1's fails, and 6.12's other stages keep the default."""
        d = tempfile.mkdtemp()
        paths = []
        for i, (tree, stage, verdict) in enumerate((("6.12", "6ce3dd6eec", "clean"),
                                                     ("6.1", "6ce3dd6eec", "clean"),
                                                     ("6.12", "base", "violated"))):
            p = os.path.join(d, f"s{i}.json")
            write_shard(p, [shard_result(tree, stage, "corruption-ext4", verdict, f"b{i}")], {})
            paths.append(p)
        rc, out, err = run("--merge", *paths, "--json", os.path.join(d, "m.json"))
        self.assertEqual(rc, 1, err)
        with open(os.path.join(d, "m.json")) as f:
            m = {(r["tree"], r["stage"]): r for r in json.load(f)["results"]}
        self.assertEqual(m["6.12", "6ce3dd6eec"]["expected"], "corrupted|violated|clean")
        self.assertTrue(m["6.12", "6ce3dd6eec"]["pass"])
        self.assertEqual(m["6.1", "6ce3dd6eec"]["expected"], "corrupted|violated")
        self.assertFalse(m["6.1", "6ce3dd6eec"]["pass"])
        self.assertFalse(m["6.12", "base"]["pass"])
        self.assertIn("1/3 results as expected", out)



class CheckPartsTest(unittest.TestCase):
    """tests/check's scenario parts and their join, sourced with a fake
    tests/run: nothing is built or booted."""

    FAKE_RUN = """#!/bin/sh
# A stand-in for tests/run: --merge records what it was given; the 6.12
# part writes its JSON, the others fail as the harness did, exit 3
# without writing it.
if [ "$1" = --merge ]; then echo "$@" > merged; exit 0; fi
case "$*" in *"--tree 6.12"*) echo '{"results": []}' > "$2"; exit 0 ;; esac
exit 3
"""

    def sandbox(self):
        """(DIR, DIR/out): a directory with tests/ and out/ in it, removed
        after the test."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        os.makedirs(os.path.join(tmp.name, "tests"))
        os.makedirs(os.path.join(tmp.name, "out"))
        return tmp.name, os.path.join(tmp.name, "out")

    @staticmethod
    def fake(d, name, text):
        """DIR/tests/NAME, an executable script of TEXT."""
        path = os.path.join(d, "tests", name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)

    @staticmethod
    def source_check(d, out, script):
        """The output of SCRIPT run in DIR after sourcing tests/check."""
        return subprocess.run(["bash", "-c", f'. {os.path.join(TOP, "tests/check")}\n{script}'],
                              cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=dict(os.environ, RQPATH_OUT=out), timeout=30).stdout

    def test_a_part_without_its_json_is_not_read_from_an_earlier_check(self):
        """A part whose tests/run wrote no JSON fails the check, and neither
        its file nor the matrix of an earlier check stands in for it."""
        d, out = self.sandbox()
        self.fake(d, "run", self.FAKE_RUN)
        stale = os.path.join(out, "check-6.1.json")
        with open(stale, "w") as f:
            json.dump({"results": [{"scenario": "smoke", "verdict": "clean"}]}, f)
        with open(os.path.join(out, "matrix.json"), "w") as f:
            json.dump({"results": [{"scenario": "smoke", "verdict": "clean"}]}, f)
        with open(os.path.join(out, "matrix.ktap"), "w") as f:
            f.write("KTAP version 1\n1..0\n")
        output = self.source_check(d, out, 'run_part 6.1 --tree 6.1\nrun_part 6.12 --tree 6.12\n'
                                   'merge_parts\necho "rc=$rc"')
        self.assertIn("rc=1", output)
        with open(os.path.join(d, "merged")) as f:
            self.assertEqual(f.read().split(), ["--merge", os.path.join(out, "check-6.12.json"),
                                                "--json", os.path.join(out, "matrix.json"),
                                                "--ktap", os.path.join(out, "matrix.ktap")],
                             "not this check's parts alone")
        self.assertFalse(os.path.exists(os.path.join(out, "matrix.json")), "an earlier check's matrix was left")
        self.assertFalse(os.path.exists(os.path.join(out, "matrix.ktap")), "an earlier check's KTAP was left")

    def test_the_explorer_part_fails_on_a_finding_an_error_or_no_evidence(self):
        d, out = self.sandbox()
        good = {"errors": 0, "judged": 5, "share_requeued": 0.4}
        for exit_code, figures, passes in ((0, good, True),
                                           (1, good, False),                       # a finding
                                           (0, dict(good, errors=1), False),
                                           (0, dict(good, judged=0), False),
                                           (0, dict(good, share_requeued=0.0), False),
                                           (3, None, False)):                      # no JSON
            with self.subTest(exit_code=exit_code, figures=figures):
                with open(os.path.join(out, "check-explore.json"), "w") as f:
                    json.dump({"figures": good}, f)            # an earlier check's
                self.fake(d, "explore", "#!/bin/sh\n"
                          + ("" if figures is None else
                             f"while [ \"$1\" != --json ]; do shift; done\n"
                             f"echo '{json.dumps({'figures': figures})}' > \"$2\"\n")
                          + f"exit {exit_code}\n")
                output = self.source_check(d, out, 'CHECK_EXPLORE=(--stage stock --trials 6)\n'
                                           'explore_part 6.1\necho "rc=$rc"')
                self.assertIn("rc=0" if passes else "rc=1", output)


def load_run():
    """tests/run as a module (it has no .py suffix)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("tests_run", RUN)
    spec = importlib.util.spec_from_loader("tests_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class MutantsTest(unittest.TestCase):
    """--mutants: the mutant stages it picks, the expectation they take
    (stock's) and the kill matrix; nothing is built or booted."""

    def test_usage(self):
        for args, says in ((("--mutants", "no-such-*"), "no mutant of"),
                           (("--mutants", "--stage", "stock"), "--mutants picks the mutant stages"),
                           (("--mutants", "--tree", "9.9"), "unknown tree 9.9")):
            rc, out, err = run(*args, "--list")
            self.assertEqual(rc, 2, f"{args}: exit {rc}, stderr {err!r}")
            self.assertIn(says, err)

    def test_selection(self):
        rq = load_run()
        from harness import kernels
        described = kernels.describe()

        class A:
            tree, mutants = ["6.1"], "plug-*,requeue-*"
        pairs = rq.select_mutant_kernels(A, described)
        self.assertEqual(pairs, [("6.1", "mutant:plug-busy-to-swq"), ("6.1", "mutant:requeue-dontprep-to-swq")])
        for t, st in ((t, kernels.mutant_stage(m)) for t in described["trees"]
                      for m in described["trees"][t]["mutants"]):
            self.assertEqual(rq.expected_stage(st), "stock")
        self.assertGreaterEqual(min(len(t["mutants"]) for t in described["trees"].values()), 8)

    def test_kill_matrix(self):
        rq = load_run()
        from harness import model

        def r(stage, scenario, verdict, ok):
            return model.Result.from_json(dict(shard_result("6.1", stage, scenario, verdict, "b"),
                                               expected="clean", **{"pass": ok}), "test")
        results = [r("mutant:a", "x", "corrupted", False), r("mutant:a", "y", "hung", False),
                   r("mutant:b", "x", "clean", True), r("mutant:b", "y", "clean", True),
                   r("stock", "x", "corrupted", False)]
        m = rq.kill_matrix(results)
        self.assertEqual(set(m), {"6.1"})
        self.assertTrue(m["6.1"]["a"]["killed"])
        self.assertEqual([k["scenario"] for k in m["6.1"]["a"]["killed_by"]], ["x", "y"])
        self.assertFalse(m["6.1"]["b"]["killed"])
        self.assertEqual(m["6.1"]["b"]["cells"], 2)
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rq.print_kill_matrix(results, m, ["x", "y"])
        self.assertIn("killed 1/2", buf.getvalue())
        self.assertIn("SURVIVED", buf.getvalue())

    def test_a_cell_that_could_not_decide_kills_no_mutant(self):
        rq = load_run()
        from harness import model

        def r(scenario, verdict):
            return model.Result.from_json(dict(shard_result("6.1", "mutant:c", scenario, verdict, "b"),
                                               expected="clean", **{"pass": verdict == "clean"}), "test")
        m = rq.kill_matrix([r("x", "error"), r("y", "skipped"), r("z", "clean")])
        self.assertFalse(m["6.1"]["c"]["killed"])
        self.assertEqual(m["6.1"]["c"]["killed_by"], [])
        self.assertEqual([u["scenario"] for u in m["6.1"]["c"]["undecided"]], ["x", "y"])
        m = rq.kill_matrix([r("x", "error"), r("z", "livelocked")])
        self.assertTrue(m["6.1"]["c"]["killed"])
        self.assertEqual([k["scenario"] for k in m["6.1"]["c"]["killed_by"]], ["z"])


if __name__ == "__main__":
    unittest.main()
