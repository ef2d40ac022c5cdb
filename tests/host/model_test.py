#!/usr/bin/env python3
"""Host tests of the matrix's model (tests/harness/model.py): its schema,
checked once on load and refused in one line; a matrix that round-trips
through load and save; the verdicts named in one place (the guest
library's shell keeps its own words, held here to the model's); and the
matrix as KTAP, read back by a strict KTAP parser and, where a kernel
source tree is in the build cache, by the kernel's own
tools/testing/kunit/kunit_parser.py.  Nothing is booted.

  python3 tests/host/model_test.py [-v]
"""

import ast
import copy
import glob
import importlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import ktap, model  # noqa: E402

FIXTURE = os.path.join(TOP, "tests", "host", "report_fixture.json")


def fixture_json():
    with open(FIXTURE) as f:
        return json.load(f)


def cli(tool, *args, out_dir):
    p = subprocess.run([os.path.join(TOP, "tests", tool), *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=dict(os.environ, RQPATH_OUT=out_dir))
    return p.returncode, p.stdout, p.stderr


class Schema(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="rqpath-model-test-")
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def write(self, doc, name="matrix.json"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            if isinstance(doc, str):
                f.write(doc)
            else:
                json.dump(doc, f, indent=1)
        return path

    def refused(self, path, *says):
        """load_matrix refuses PATH with one line naming it and saying SAYS."""
        with self.assertRaises(model.MatrixError) as cm:
            model.load_matrix(path)
        msg = str(cm.exception)
        self.assertNotIn("\n", msg)
        self.assertTrue(msg.startswith(path + ": "), msg)
        for s in says:
            self.assertIn(s, msg)
        return msg

    def test_the_fixture_round_trips_byte_for_byte(self):
        m = model.load_matrix(FIXTURE)
        self.assertEqual(len(m.results), 12)
        self.assertIsInstance(m.results[0].verdict, model.Verdict)
        path = os.path.join(self.dir, "again.json")
        model.save_matrix(path, m)
        with open(FIXTURE, "rb") as a, open(path, "rb") as b:
            self.assertEqual(a.read(), b.read())
        self.assertEqual(model.load_matrix(path), m)
        self.assertEqual(os.listdir(self.dir), ["again.json"], "the write left its temporary file")

    def test_keys_the_schema_does_not_name_are_kept(self):
        doc = fixture_json()
        doc["results"][0]["lava"] = {"case": "pass", "job": "pass"}
        doc["mutants"] = {"6.1": {}}
        doc["boots"][0]["retried"] = {"stopped_at": "MTRR map"}
        m = model.load_matrix(self.write(doc))
        self.assertEqual(m.results[0].extra, {"lava": {"case": "pass", "job": "pass"}})
        self.assertEqual(m.to_json(), doc)

    def test_a_matrix_without_a_schema_is_refused_in_one_line(self):
        doc = fixture_json()
        del doc["schema"]
        path = self.write(doc)
        self.refused(path, "no schema", model.SCHEMA, "rerun tests/run")
        rc, out, err = cli("report", path, "-o", os.path.join(self.dir, "r.html"), out_dir=self.dir)
        self.assertEqual((rc, err.count("\n")), (1, 1), err)
        self.assertIn("rerun tests/run", err)
        rc, out, err = cli("run", "--merge", path, "--json", os.path.join(self.dir, "m.json"), out_dir=self.dir)
        self.assertEqual(rc, 2, err)
        self.assertIn(f"--merge {path}: no schema", err)
        self.assertNotIn("Traceback", err)

    def test_a_matrix_of_another_schema_is_refused_in_one_line(self):
        doc = fixture_json()
        doc["schema"] = "rqpath.matrix/2"
        path = self.write(doc)
        self.refused(path, "'rqpath.matrix/2'", model.SCHEMA)
        rc, out, err = cli("run", "--merge", path, "--json", os.path.join(self.dir, "m.json"), out_dir=self.dir)
        self.assertEqual(rc, 2, err)
        self.assertIn("rqpath.matrix/2", err)
        for other in ("rqpath.explore/1", 1, None):
            doc["schema"] = other
            self.refused(self.write(doc), model.SCHEMA)

    def test_what_is_not_a_matrix(self):
        self.refused(os.path.join(self.dir, "none.json"), "no such file")
        self.refused(self.write("{not json"), "not JSON")
        self.refused(self.write([1, 2]), "not an object")
        self.refused(self.write({"schema": model.SCHEMA, "results": "none"}), '"results"')
        self.refused(self.write({"schema": model.SCHEMA, "results": [], "timing": {}}), 'no "boots"')
        self.refused(self.write({"schema": model.SCHEMA, "results": [], "boots": [3]}), "boots[0]")
        self.refused(self.write({"schema": model.SCHEMA, "results": [], "boots": [], "timing": []}), '"timing"')

    def test_a_result_of_the_wrong_shape_is_refused(self):
        typed = {"tree": 6.1, "variant": None, "stage": 3, "kernel": 7, "scenario": [], "verdict": "fine",
                 "seconds": "12", "timing": [], "details": "x", "boot": None, "expected": "clean|nice",
                 "pass": "yes"}
        for key, odd in typed.items():
            for value in ("missing", odd):
                doc = fixture_json()
                r = doc["results"][3]
                if value == "missing":
                    del r[key]
                else:
                    r[key] = value
                with self.subTest(key=key, value=value):
                    self.refused(self.write(doc), "results[3]", f'"{key}"')
        doc = fixture_json()
        doc["results"][3]["seconds"] = True
        self.refused(self.write(doc), '"seconds"')

    def test_what_may_be_null_or_anything(self):
        doc = fixture_json()
        doc["results"][0].update(kernel=None, seconds=None)
        doc["results"][1]["details"] = {"reason": None, "trigger": "odd", "anything": [1, {"x": None}]}
        doc["results"][2]["timing"] = {"workload": "odd"}
        m = model.load_matrix(self.write(doc))
        self.assertEqual(m.to_json(), doc)

    def test_a_saved_run_is_read_by_a_merge(self):
        """tests/run --merge reads what save_matrix wrote, and writes the
        schema too (tests/check joins its parts this way)."""
        m = model.load_matrix(FIXTURE)
        parts = []
        for i, stage in enumerate(("stock", "6ce3dd6eec")):
            part = model.Matrix(results=[r for r in m.results if r.stage == stage], boots=[],
                                timing={"boot_seconds": 10}, meta={"kernels": []})
            parts.append(os.path.join(self.dir, f"part{i}.json"))
            model.save_matrix(parts[-1], part)
        out = os.path.join(self.dir, "m.json")
        rc, stdout, err = cli("run", "--merge", *parts, "--json", out, out_dir=self.dir)
        self.assertIn(rc, (0, 1), err)
        merged = model.load_matrix(out)
        self.assertEqual(len(merged.results), sum(len(model.load_matrix(p).results) for p in parts))
        self.assertEqual(merged.timing["boot_seconds"], 20)
        self.assertEqual(merged.meta["merged_from"], ["part0.json", "part1.json"])
        with open(out) as f:
            self.assertEqual(json.load(f)["schema"], model.SCHEMA)


VERDICT_WORD = r"\b(?:rq_result|rq_finish|rq_overrule)\s+\"?([a-z]+)\b"


class Verdicts(unittest.TestCase):
    # A guest that hangs or crashes cannot say so: only the harness gives these.
    HARNESS_ONLY = {model.Verdict.HUNG, model.Verdict.CRASHED}

    def guest_words(self):
        """Every verdict the guest's shell names: the words it passes to
        rq_result, rq_finish and rq_overrule, and the arms of lib.sh's
        case statements on $verdict."""
        words = set()
        for path in glob.glob(os.path.join(TOP, "tests/guest/*.sh")) + \
                glob.glob(os.path.join(TOP, "tests/scenarios/*.sh")):
            with open(path) as f:
                text = f.read()
            words |= set(re.findall(VERDICT_WORD, text))
            for arms in re.findall(r'case "?\$verdict"? in\s*\n\s*([a-z|]+)\)', text):
                words |= set(arms.split("|"))
            words |= set(re.findall(r"\bverdict=([a-z]+)\b", text))
        return words

    def test_the_guest_names_the_models_verdicts(self):
        """The guest library cannot import the model: its words must be the
        model's, every one the guest can give (all but the harness's own)."""
        words = self.guest_words()
        self.assertEqual(words - set(model.Verdict), set(), "the guest names a verdict the model lacks")
        self.assertEqual(set(model.Verdict) - words, self.HARNESS_ONLY)

    def test_the_mutants_predict_findings(self):
        with open(os.path.join(TOP, "tests/host/run")) as f:
            m = re.search(r"^MUTANT_VERDICTS='([a-z|]+)'$", f.read(), re.M)
        self.assertIsNotNone(m)
        self.assertLessEqual(set(m[1].split("|")), set(model.FINDINGS))

    def test_the_sets_partition_the_verdicts(self):
        V = model.Verdict
        self.assertEqual(set(model.FINDINGS) | set(model.UNDECIDED) | {V.CLEAN}, set(V))
        self.assertEqual(set(model.FINDINGS) & set(model.UNDECIDED), set())
        self.assertLessEqual(set(model.DETECTED), set(model.BUG_FOUND))
        self.assertLessEqual(set(model.BUG_FOUND), set(model.EXPECTABLE))
        self.assertTrue(model.is_measured((V.CORRUPTED, V.CLEAN)))
        self.assertFalse(model.is_measured((V.VIOLATED, V.CORRUPTED)))
        self.assertFalse(model.is_measured((V.CLEAN,)))

    # The files that still write verdicts out: none; one that does fails
    # the test below.
    STILL_WRITTEN_OUT = {}

    def test_no_other_file_writes_the_verdicts_out(self):
        """A literal tuple, list or set of several verdict names, or a
        dict keyed by them, is a verdict list of its own: outside the
        model, the names come from it."""
        names = {v.value for v in model.Verdict}
        found = {}
        files = [p for p in glob.glob(os.path.join(TOP, "tests/harness/*.py")) if not p.endswith("/model.py")]
        files += [os.path.join(TOP, "tests", f) for f in ("run", "bench", "report", "explore")]
        for path in files:
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                    elts = node.elts
                elif isinstance(node, ast.Dict):
                    elts = node.keys
                else:
                    continue
                if len(elts) >= 2 and all(isinstance(e, ast.Constant) and e.value in names for e in elts):
                    rel = os.path.relpath(path, TOP)
                    found.setdefault(rel, []).append(node.lineno)
        with open(os.path.join(TOP, "tests/check")) as f:
            for n, line in enumerate(f, 1):
                code = line.split("#", 1)[0]
                if len(names & set(re.findall(r"[a-z]+", code))) >= 2:
                    found.setdefault("tests/check", []).append(n)
        self.assertEqual({k: len(v) for k, v in found.items()}, self.STILL_WRITTEN_OUT,
                         f"verdict lists outside tests/harness/model.py: {found}")


# ---- KTAP -----------------------------------------------------------------------------------

class KtapError(Exception):
    pass


class KtapTest:
    def __init__(self, name, ok, directive, subtests, diagnostics):
        self.name, self.ok, self.directive = name, ok, directive
        self.subtests, self.diagnostics = subtests, diagnostics


def parse_ktap(text):
    """KTAP version 1 (Documentation/dev-tools/ktap.rst), strictly: a
    version line, a plan, then as many tests as planned, numbered from 1,
    a subtest's lines indented by two spaces more than its parent's, each
    line a version, plan, result or diagnostic ('#') line.  The top
    level's tests, each a KtapTest; KtapError on anything else."""
    lines = text.split("\n")
    if lines[-1] != "":
        raise KtapError("the output does not end with a newline")
    pos = 0

    def take(indent):
        nonlocal pos
        if pos >= len(lines) - 1:
            raise KtapError(f"line {pos + 1}: the output ends early")
        line = lines[pos]
        if not line.startswith(indent) or line[len(indent):].startswith(" "):
            raise KtapError(f"line {pos + 1}: not indented by {len(indent)}: {line!r}")
        pos += 1
        return line[len(indent):]

    def peek():
        return lines[pos] if pos < len(lines) - 1 else None

    def diagnostics(indent):
        out = []
        while peek() is not None and peek().startswith(indent + "#"):
            out.append(take(indent)[1:].strip())
        return out

    def block(indent):
        """A version line, a plan and the planned tests at INDENT."""
        if take(indent) != "KTAP version 1":
            raise KtapError(f"line {pos}: not 'KTAP version 1'")
        header = diagnostics(indent)
        m = re.fullmatch(r"1\.\.(\d+)", take(indent))
        if not m:
            raise KtapError(f"line {pos}: not a plan")
        tests = []
        pre = header + diagnostics(indent)
        for n in range(1, int(m[1]) + 1):
            subtests = None
            if peek() is not None and peek().startswith(indent + "  KTAP version 1"):
                subtests = block(indent + "  ")
            pre += diagnostics(indent)
            r = re.fullmatch(r"(ok|not ok) (\d+)(?: ([^#]*?))?(?: # (.*))?", take(indent))
            if not r:
                raise KtapError(f"line {pos}: not a test result line: {lines[pos - 1]!r}")
            if int(r[2]) != n:
                raise KtapError(f"line {pos}: test {r[2]} where {n} was due")
            tests.append(KtapTest(r[3] or "", r[1] == "ok", r[4], subtests, pre))
            pre = diagnostics(indent)
        return tests

    tests = block("")
    diagnostics("")
    if peek() is not None:
        raise KtapError(f"line {pos + 1}: after the last planned test: {peek()!r}")
    return tests


def kunit_parsers():
    """The kernel's own KTAP parser of every source tree in the build cache."""
    cache = os.environ.get("RQPATH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rqpath")
    return sorted(glob.glob(os.path.join(cache, "src", "linux-*", "linux", "tools", "testing", "kunit")))


def kunit_parse(kunit_dir, text):
    """TEXT through kunit_parser.parse_run_tests of KUNIT_DIR: its main
    test (counts, status), what it printed."""
    sys.path.insert(0, kunit_dir)
    try:
        for name in ("kunit_printer", "kunit_parser"):
            sys.modules.pop(name, None)
        printer = importlib.import_module("kunit_printer")
        parser = importlib.import_module("kunit_parser")
    finally:
        sys.path.remove(kunit_dir)
    printed = io.StringIO()
    parser.stdout = printer.Printer(printed)
    return parser.parse_run_tests(text.splitlines()), parser, printed.getvalue()


class Ktap(unittest.TestCase):
    def matrix(self):
        """The fixture, with one cell skipped and one of two boots failed."""
        doc = fixture_json()
        smoke = next(r for r in doc["results"] if r["scenario"] == "smoke")
        smoke.update(verdict="skipped", details={"reason": "no scsi_debug # in this kernel"}, **{"pass": False})
        twice = [r for r in doc["results"] if r["scenario"] == "corruption-targeted" and r["stage"] == "6ce3dd6eec"]
        self.assertEqual(len(twice), 2)
        twice[1].update(verdict="clean", details={"reason": "not\nthis time"}, **{"pass": False})
        m = model.Matrix.from_json(doc, "test")
        cells = {}
        for r in m.results:
            cells.setdefault((r.tree, r.variant, r.stage), {}).setdefault(r.scenario, []).append(r)
        return m, cells

    @staticmethod
    def counts(cells):
        """(as expected, not as expected, of those all skipped) of CELLS."""
        flat = [rs for c in cells.values() for rs in c.values()]
        ok = sum(all(r.passed for r in rs) for rs in flat)
        skipped = sum(all(r.verdict == model.Verdict.SKIPPED for r in rs) for rs in flat)
        return ok, len(flat) - ok, skipped

    def test_one_test_line_per_cell(self):
        m, cells = self.matrix()
        tests = parse_ktap(ktap.render(m))
        self.assertEqual([t.name for t in tests], [f"{t}/{st}" for (t, v, st) in cells])
        for t, ((tree, variant, stage), scenarios) in zip(tests, cells.items()):
            self.assertEqual([s.name for s in t.subtests], list(scenarios))
            for s, rs in zip(t.subtests, scenarios.values()):
                with self.subTest(kernel=t.name, scenario=s.name):
                    self.assertEqual(s.ok, all(r.passed for r in rs))
                    skipped = all(r.verdict == model.Verdict.SKIPPED for r in rs)
                    self.assertEqual(s.directive is not None and s.directive.startswith("SKIP"), skipped)
                    said = " ".join(s.diagnostics)
                    self.assertIn(f"expected {'|'.join(rs[0].expected)}", said)
                    for r in rs:
                        self.assertIn(r.verdict, said)
            self.assertEqual(t.ok, all(s.ok for s in t.subtests))
        flat = [s for t in tests for s in t.subtests]
        ok, not_ok, skipped = self.counts(cells)
        self.assertEqual((ok, not_ok, skipped), (7, 4, 1), "the fixture changed: check what this tests")
        self.assertEqual(len(flat), ok + not_ok)
        self.assertEqual(sum(not s.ok for s in flat), not_ok)
        self.assertEqual(sum(s.directive is not None for s in flat), skipped)

    def test_an_empty_matrix(self):
        self.assertEqual(parse_ktap(ktap.render(model.Matrix(results=[], boots=[], timing={}, meta={}))), [])

    def test_the_strict_parser_refuses_what_is_not_ktap(self):
        good = "KTAP version 1\n1..1\n  KTAP version 1\n  1..1\n  ok 1 a\nok 1 k\n"
        self.assertEqual(parse_ktap(good)[0].subtests[0].name, "a")
        for bad in ("KTAP version 1\n1..2\nok 1 a\n", "KTAP version 1\n1..1\nok 2 a\n",
                    "TAP version 13\n1..1\nok 1 a\n", "KTAP version 1\n1..1\n ok 1 a\n",
                    "KTAP version 1\n1..1\nok 1 a\nok 2 b\n", good.replace("  ok 1 a", "    ok 1 a"),
                    "KTAP version 1\n1..1\nfine 1 a\n"):
            with self.subTest(bad=bad):
                with self.assertRaises(KtapError):
                    parse_ktap(bad)

    @unittest.skipUnless(kunit_parsers(), "no kernel source in the build cache: kunit_parser.py not tried")
    def test_the_kernels_kunit_parser_reads_it(self):
        m, cells = self.matrix()
        ok, not_ok, skipped = self.counts(cells)
        for kunit_dir in kunit_parsers():
            with self.subTest(kunit=kunit_dir):
                main, parser, printed = kunit_parse(kunit_dir, ktap.render(m))
                self.assertEqual(main.counts.errors, 0, printed)
                self.assertEqual(len(main.subtests), len(cells))
                self.assertEqual(main.counts.skipped, skipped, printed)
                self.assertEqual(main.counts.failed, not_ok - skipped, printed)
                self.assertEqual(main.counts.passed, ok, printed)
                self.assertEqual(main.status, parser.TestStatus.FAILURE)

    def test_run_and_report_write_it(self):
        with tempfile.TemporaryDirectory() as d:
            k1, k2 = os.path.join(d, "run.ktap"), os.path.join(d, "report.ktap")
            rc, out, err = cli("run", "--merge", FIXTURE, "--json", os.path.join(d, "m.json"), "--ktap", k1,
                               out_dir=d)
            self.assertIn(rc, (0, 1), err)
            self.assertIn("run.ktap", out)
            rc, out, err = cli("report", os.path.join(d, "m.json"), "--ktap", k2, out_dir=d)
            self.assertEqual(rc, 0, err)
            with open(k1) as a, open(k2) as b:
                self.assertEqual(a.read(), b.read())
            with open(k1) as f:
                tests = parse_ktap(f.read())
            cells = {(r.tree, r.variant, r.stage, r.scenario) for r in model.load_matrix(FIXTURE).results}
            self.assertEqual(sum(len(t.subtests) for t in tests), len(cells))
            rc, out, err = cli("run", "--merge", FIXTURE, "--ktap", "/no/such/dir/x.ktap", out_dir=d)
            self.assertEqual(rc, 2)
            self.assertIn("--ktap /no/such/dir/x.ktap: no such directory", err)


if __name__ == "__main__":
    unittest.main()
