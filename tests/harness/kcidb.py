"""A run's matrix as a KCIDB report: KernelCI's format for a lab's results
(schema v5, validated against ../shared/kcidb-io's, see PINNED there).

  a checkout per tree     Debian's linux-source-X (the tarball the stages
                          are built from), the series in misc
  a build per kernel      tree/stage[+debug]: its patches (input_files),
                          config, compiler
  a test per result       path rqpath.<family>.<scenario> (family: the
                          scenario name up to its first '-'), status from
                          the judged verdict, verdict and evidence in misc,
                          the boot's console as log_url

Ids are stable: origin rqpath, then what the object is made of (the tree
and its tarball; the stage and the hash of its patches; the test's boot
and a hash of the run), so sending a report twice adds nothing.
"""

import hashlib
import json
import os
import re
import subprocess
import urllib.parse

from .kernels import TOP, MUTANT_PREFIX
from .model import Verdict

ORIGIN = "rqpath"
VERSION = {"major": 5, "minor": 3}
# A result not as expected whose verdict says the scenario could not judge
# the kernel; any other is the kernel's FAIL.
NOT_JUDGED = {Verdict.ERROR: "ERROR", Verdict.SKIPPED: "SKIP"}


def short_hash(*parts):
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()[:12]


CONFIG = os.path.join(TOP, "qemu/rqpath.config")


def file_hash(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "missing"


def file_url(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def trees():
    """{tree: (tarball, series directory)} from patches/trees."""
    out = {}
    with open(os.path.join(TOP, "patches/trees")) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and not line.startswith("#"):
                out[parts[0]] = (parts[1], os.path.join(TOP, parts[2]))
    return out


def series(series_dir):
    with open(os.path.join(series_dir, "series")) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def stage_patches(tree, stage):
    """The patch files a stage applies, in order (qemu/lib.sh's
    stage_patches): the first N of the series, a mutant's after stock's."""
    tarball, sdir = trees()[tree]
    mutant = stage[len(MUTANT_PREFIX):] if stage.startswith(MUTANT_PREFIX) else None
    depth = {}
    with open(os.path.join(sdir, "stages")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#"):
                depth[parts[0]] = int(parts[1])
    n = depth.get("stock" if mutant else stage)
    if n is None:
        return None
    files = [os.path.join(sdir, p) for p in series(sdir)[:n]]
    if mutant:
        files.append(os.path.join(TOP, "patches/mutants", tree, f"{mutant}.patch"))
    return files


def package_version(tarball):
    """The Debian version of the package that installed TARBALL, or None."""
    name = os.path.basename(tarball).split(".tar")[0]
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None
    return out.stdout.strip() or None


def compiler():
    try:
        out = subprocess.run(["gcc", "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
        return out.stdout.splitlines()[0] if out.stdout else None
    except OSError:
        return None


def family(scenario):
    """rqpath.<family>.<scenario>: family is the name up to its first '-';
    characters a KCIDB path cannot hold become '_' (blktests:block/040)."""
    name = re.sub(r"[^a-zA-Z0-9_-]", "_", scenario)
    return re.sub(r"[^a-zA-Z0-9_-]", "_", scenario.split("-", 1)[0].split(":", 1)[0]), name


def status(r):
    """PASS as expected; else ERROR when the scenario could not judge (an
    error), SKIP when the kernel lacked what it needs, FAIL otherwise: the
    kernel did something the stage is not expected to (corrupted, hung,
    crashed, warned, or clean where the bug should show)."""
    if r.passed:
        return "PASS"
    return NOT_JUDGED.get(r.verdict, "FAIL")


def evidence(details):
    keep = ("reason", "trigger", "oracle", "scenario_verdict", "kernel_reports",
            "kernel_reports_after_verdict", "cleanup_problems", "no_trigger")
    return {k: details[k] for k in keep if k in details}


def report(matrix, logs=None, compiler_name=None):
    """The KCIDB report (a dict) of MATRIX, a model.Matrix; LOGS: the
    directory of its boots' logs (out/logs), for the tests' log URLs."""
    results = matrix.results
    run_id = short_hash(json.dumps([(r.boot, r.scenario, r.seconds) for r in results], sort_keys=True))
    accel = matrix.meta.get("accel")
    known = trees()
    checkouts, builds, tests = {}, {}, []
    cc = compiler_name if compiler_name is not None else compiler()
    for r in results:
        tree, stage, variant = r.tree, r.stage, r.variant
        tarball = known.get(tree, (None, None))[0]
        ck = f"{ORIGIN}:{tree}-{short_hash(tree, tarball)}"
        if ck not in checkouts:
            c = {"id": ck, "origin": ORIGIN, "tree_name": f"rqpath-{tree}", "valid": True,
                 "misc": {"tree": tree}}
            if tarball:
                pkg = os.path.basename(tarball).split(".tar")[0]
                ver = package_version(tarball)
                c["comment"] = f"Debian's {pkg}" + (f" {ver}" if ver else "") + ", rqpath's series on top by stage"
                c["misc"].update(source_package=pkg, source_version=ver, tarball=tarball,
                                 series=series(known[tree][1]))
            else:
                c["comment"] = f"a kernel rqpath did not build ({tree})"
            checkouts[ck] = c
        patches = stage_patches(tree, stage) if tree in known else None
        phash = short_hash(*[file_hash(p) for p in (patches or []) + [CONFIG]])
        bid = f"{ORIGIN}:{tree}-{stage}-{variant}-{phash}"
        if bid not in builds:
            b = {"id": bid, "checkout_id": ck, "origin": ORIGIN, "architecture": "x86_64",
                 "config_name": "rqpath" + ("-debug" if variant == "debug" else ""),
                 "status": "PASS",
                 "comment": f"{tree}/{stage}" + ("+debug" if variant == "debug" else "")
                            + f" ({r.kernel or '?'})",
                 "misc": {"tree": tree, "stage": stage, "variant": variant, "release": r.kernel,
                          "patches": [os.path.basename(p) for p in patches or []],
                          "config_fragment": "qemu/rqpath.config"},
                 "input_files": [{"name": os.path.basename(p), "url": file_url(p)}
                                 for p in patches or []] +
                                [{"name": "rqpath.config", "url": file_url(CONFIG)}]}
            if cc:
                b["compiler"] = cc
            builds[bid] = b
        fam, name = family(r.scenario)
        details = r.details
        expected = "|".join(r.expected)
        t = {"id": f"{bid}:{name}:{r.boot}:{run_id}", "build_id": bid, "origin": ORIGIN,
             "path": f"rqpath.{fam}.{name}", "status": status(r),
             "comment": f"{r.scenario} on {tree}/{stage}: {r.verdict} (expected {expected})",
             "environment": {"comment": f"QEMU q35, {accel or 'tcg'}, {matrix.meta.get('guest_cpus', 2)} vCPUs",
                             "misc": {"accel": accel, "boot": r.boot}},
             "misc": {"scenario": r.scenario, "verdict": r.verdict.value, "expected": expected,
                      "pass": r.passed, "boot": r.boot, "kernel": r.kernel,
                      "timing": r.timing, **evidence(details)}}
        if r.seconds is not None:
            t["duration"] = r.seconds
        if r.extra.get("lava"):
            t["misc"]["lava"] = r.extra["lava"]
        if "reason" in details and isinstance(details["reason"], str):
            t["log_excerpt"] = details["reason"][:16000]
        if logs and r.boot:
            console = os.path.join(logs, r.boot, "console.log")
            t["log_url"] = file_url(console)
            t["output_files"] = [{"name": "console.log", "url": file_url(console)}]
        tests.append(t)
    return {"version": dict(VERSION), "checkouts": list(checkouts.values()),
            "builds": list(builds.values()), "tests": tests}


def write(path, data):
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.rename(path + ".tmp", path)
