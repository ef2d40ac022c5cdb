#!/usr/bin/env python3
"""Host tests of the KCIDB report (tests/harness/kcidb.py, tests/run
--kcidb): a report made from a recorded matrix (report_fixture.json)
validates against KernelCI's schema, with KernelCI's own validator
(../shared/kcidb-io, or $KCIDB_IO_DIR) and with its exported JSON schema;
a broken one does not.  Nothing is booted.

  python3 tests/host/kcidb_test.py [-v]
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import kcidb, model  # noqa: E402

FIXTURE = os.path.join(TOP, "tests/host/report_fixture.json")
KCIDB_IO = os.environ.get("KCIDB_IO_DIR") or os.path.join(TOP, "..", "shared", "kcidb-io")
SCHEMA = os.path.join(KCIDB_IO, "kcidb.schema.v5.3.json")


def import_jsonschema():
    """The interpreter's jsonschema, else Debian's python3-jsonschema."""
    try:
        import jsonschema
    except ImportError:
        debian = "/usr/lib/python3/dist-packages"
        if debian not in sys.path:
            sys.path.append(debian)
        import jsonschema
    return jsonschema


def fixture_report():
    return kcidb.report(model.load_matrix(FIXTURE), logs="/srv/rqpath/out/logs", compiler_name="gcc 12")


@unittest.skipUnless(os.path.isfile(SCHEMA), f"no kcidb-io at {KCIDB_IO} (set KCIDB_IO_DIR)")
class SchemaTest(unittest.TestCase):
    def validators(self):
        """Both validators: kcidb-io's own (the schema version LATEST), and
        the exported draft-07 JSON schema with its formats checked."""
        jsonschema = import_jsonschema()
        with open(SCHEMA) as f:
            schema = json.load(f)
        draft7 = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
        sys.path.insert(0, KCIDB_IO)
        try:
            import kcidb_io
        finally:
            sys.path.remove(KCIDB_IO)
        return jsonschema, [("kcidb_io", kcidb_io.schema.LATEST.validate_exactly), ("json schema", draft7.validate)]

    def test_the_fixture_report_validates(self):
        data = fixture_report()
        _, validators = self.validators()
        for name, validate in validators:
            with self.subTest(validator=name):
                validate(data)
        self.assertEqual((len(data["checkouts"]), len(data["builds"]), len(data["tests"])), (1, 5, 12))

    def test_a_broken_report_fails(self):
        jsonschema, validators = self.validators()
        good = fixture_report()
        for what, breaks in [
                ("a test without an origin", lambda d: d["tests"][0].pop("origin")),
                ("a status KCIDB does not know", lambda d: d["tests"][0].update(status="OK")),
                ("an id without its origin", lambda d: d["builds"][0].update(id="stock")),
                ("a path with a space", lambda d: d["tests"][0].update(path="rqpath.smoke test")),
                ("an unknown field", lambda d: d["checkouts"][0].update(stage="stock"))]:
            bad = copy.deepcopy(good)
            breaks(bad)
            for name, validate in validators:
                with self.subTest(broken=what, validator=name):
                    with self.assertRaises(jsonschema.exceptions.ValidationError):
                        validate(bad)

    def test_run_kcidb_writes_a_valid_report_of_a_merge(self):
        _, validators = self.validators()
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "kcidb.json")
            p = subprocess.run([os.path.join(TOP, "tests/run"), "--merge", FIXTURE, "--json",
                                os.path.join(d, "matrix.json"), "--kcidb", out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, RQPATH_OUT=d))
            self.assertIn(p.returncode, (0, 1), p.stderr)
            self.assertIn("kcidb.json", p.stdout)
            with open(out) as f:
                data = json.load(f)
        for name, validate in validators:
            with self.subTest(validator=name):
                validate(data)
        self.assertEqual(len(data["tests"]), 12)


class ReportTest(unittest.TestCase):
    def test_ids_are_stable_and_tests_unique(self):
        a, b = fixture_report(), fixture_report()
        self.assertEqual(a, b)
        ids = [t["id"] for t in a["tests"]]
        self.assertEqual(len(ids), len(set(ids)))
        builds = {b["id"] for b in a["builds"]}
        self.assertTrue(all(t["build_id"] in builds for t in a["tests"]))
        self.assertTrue(all(i.startswith("rqpath:") for i in ids + list(builds)))

    def test_paths_statuses_and_evidence(self):
        tests = {(t["misc"]["boot"], t["misc"]["scenario"]): t for t in fixture_report()["tests"]}
        t = tests[("6.1-6ce3dd6eec-1-b1", "corruption-targeted")]
        self.assertEqual((t["path"], t["status"]), ("rqpath.corruption.corruption-targeted", "PASS"))
        self.assertEqual((t["misc"]["verdict"], t["misc"]["expected"]), ("corrupted", "corrupted|violated"))
        self.assertIn("oracle", t["misc"])
        self.assertEqual(t["log_url"], "file:///srv/rqpath/out/logs/6.1-6ce3dd6eec-1-b1/console.log")
        # not as expected: a hang is the kernel's failure, an error the scenario's
        self.assertEqual(tests[("6.1-stock-1", "corruption-rqpath")]["status"], "FAIL")
        self.assertEqual(tests[("6.1-stock-8", "livelock-discard-rqpathctl")]["status"], "ERROR")
        skipped = model.load_matrix(FIXTURE).results[0]
        skipped.verdict, skipped.passed = model.Verdict.SKIPPED, False
        self.assertEqual(kcidb.status(skipped), "SKIP")
        self.assertEqual(kcidb.family("blktests:block/040"), ("blktests", "blktests_block_040"))

    def test_a_build_per_stage_with_its_patches(self):
        builds = {b["misc"]["stage"]: b for b in fixture_report()["builds"]}
        self.assertEqual(len(builds["stock"]["misc"]["patches"]), 0)
        self.assertEqual(len(builds["c616cbee97ae"]["misc"]["patches"]), 4)
        self.assertEqual(builds["base"]["input_files"][0]["name"],
                         "0001-blk-mq-rewind-direct-issue-to-its-state-before-6ce3d.patch")


if __name__ == "__main__":
    unittest.main()
