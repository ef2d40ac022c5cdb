#!/usr/bin/env python3
"""Host tests of tests/bench's judgements: what it says of a trigger
minimum over several boots.  Nothing is booted; the runs are made up.

  python3 tests/host/bench_test.py [-v]
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import model  # noqa: E402


def load_bench():
    path = os.path.join(TOP, "tests", "bench")
    loader = importlib.machinery.SourceFileLoader("rqpath_bench", path)
    spec = importlib.util.spec_from_loader("rqpath_bench", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


bench = load_bench()


def result(stage, verdict, verified, busy=400):
    return model.Result.from_json(
        {"tree": "6.1", "variant": "normal", "stage": stage, "kernel": "6.1.0", "scenario": "corruption-targeted",
         "verdict": verdict, "seconds": 30.0, "timing": {}, "boot": "b", "expected": verdict, "pass": True,
         "details": {"trigger": {"family": "corruption",
                                 "counts": {"busy_requeues": busy, "blocks_verified": verified},
                                 "minimum": {"busy_requeues": 20, "blocks_verified": 30000}}}}, "test")


class FakeRunner:
    def __init__(self, results):
        self.results = results

    def run(self, name, args, env=None):
        return model.Matrix(results=self.results, boots=[], timing={}, meta={}), 1.0


class Args:
    boots = 5
    scenario = None
    stage = None


def holds(results):
    with contextlib.redirect_stdout(io.StringIO()):
        figures = bench.bench_evidence(Args(), FakeRunner(results))
    return {(c["stage"], k): v["holds"] for c in figures["cells"] for k, v in c["counts"].items()}


class Evidence(unittest.TestCase):
    def test_corrupted_runs_are_not_held_to_the_minima(self):
        # rqcheck stops at the first bad block: a corrupted run verifies
        # few blocks, and its verdict does not stand on that count.
        h = holds([result("6ce3dd6eec", "corrupted", 2048) for _ in range(5)])
        self.assertEqual(h[("6ce3dd6eec", "blocks_verified")], "not needed: corrupted")
        self.assertEqual(h[("6ce3dd6eec", "busy_requeues")], "not needed: corrupted")

    def test_a_clean_run_below_the_minimum_fails(self):
        h = holds([result("c616cbee97ae", "clean", 32768)] * 4 + [result("c616cbee97ae", "clean", 2048)])
        self.assertEqual(h[("c616cbee97ae", "blocks_verified")], "FAILS")

    def test_only_the_runs_that_need_it_are_judged(self):
        h = holds([result("6ce3dd6eec", "violated", 32768)] * 3 + [result("6ce3dd6eec", "corrupted", 2048)] * 2)
        self.assertEqual(h[("6ce3dd6eec", "blocks_verified")], "fixed")

    def test_the_workloads_own_size_is_fixed_not_tight(self):
        h = holds([result("base", "clean", 32768) for _ in range(5)])
        self.assertEqual(h[("base", "blocks_verified")], "fixed")
        self.assertEqual(h[("base", "busy_requeues")], "ok")

    def test_a_varying_count_near_the_minimum_is_tight(self):
        h = holds([result("base", "clean", 32768, busy=b) for b in (21, 25, 30, 22, 24)])
        self.assertEqual(h[("base", "busy_requeues")], "tight")



def live_result(scenario, verdict, watch):
    return model.Result(tree="6.1", variant="normal", stage="ffe81d45322c", kernel=None, scenario=scenario,
                        verdict=model.Verdict(verdict), seconds=1.0, timing={},
                        details={"watch_requests": watch}, boot="b", expected=(model.Verdict.LIVELOCKED,),
                        passed=verdict == "livelocked")


class RequestWatch(unittest.TestCase):
    def test_latency_counts_only_the_watchs_livelock_verdicts(self):
        rs = [live_result("livelock-flush-multipath", "livelocked",
                          {"verdict": "livelock", "latency_from_first_refusal_s": 0.26, "meets_goal": True,
                           "evidence": "paths_idle"}),
              live_result("livelock-flush-multipath", "livelocked",
                          {"verdict": "livelock", "latency_from_first_refusal_s": 1.4, "meets_goal": False,
                           "evidence": "alone"}),
              live_result("livelock-flush-multipath", "livelocked", {"verdict": "quiet"}),
              live_result("livelock-flush-multipath", "error", "not an object")]
        row = bench.request_watch_row(rs)
        self.assertEqual((row["runs"], row["livelocked"], row["watch_livelock"], row["meets_goal"]), (4, 3, 2, 1))
        self.assertEqual((row["latency_s"]["median"], row["latency_s"]["max"]), (0.83, 1.4))
        self.assertEqual(row["evidence"], ["alone", "paths_idle"])
        self.assertEqual(bench.target_of("livelock-write_zeroes-rqpathctl"), "rqpathctl")

    def test_false_alarms_are_the_sessions_that_said_livelock(self):
        quiet = {"load": {"requeues_per_refused_request": 4.1, "max_streak": 24, "max_no_completion_s": 0.03}}
        alarm = {"verdict": "livelock", "load": {"requeues_per_refused_request": 88, "max_streak": 114,
                                                 "max_no_completion_s": 0.9}}
        rs = [live_result("watchdog-no-false-alarm", "clean", {"sessions": [dict(quiet, verdict="quiet"), alarm]}),
              live_result("watchdog-no-false-alarm", "clean", {"sessions": [dict(quiet, verdict="quiet")]})]
        row = bench.quiet_sessions(rs)
        self.assertEqual((row["runs"], row["sessions"], row["false_alarms"]), (2, 3, 1))
        self.assertEqual((row["max_streak"], row["max_no_completion_s"]), (114, 0.9))
        self.assertEqual(row["requeues_per_refused_request"]["max"], 88)


def campaign(stage, seed, found_at=None, verdict="corrupted", minutes=20.0):
    findings = [{"verdict": verdict, "at_seconds": found_at, "trial": "dev=sdebug"}] if found_at else []
    return {"kernel": f"6.1/{stage}", "seed": seed, "guide": "evidence", "findings": findings,
            "figures": {"minutes": found_at / 60 if found_at else minutes, "trials": 30,
                        "trials_per_minute": 3.0, "share_requeued": 0.5, "share_queued_candidates": 0.1,
                        "findings": len(findings)}}


class Explore(unittest.TestCase):
    def test_a_campaign_without_a_finding_counts_as_at_least_its_length(self):
        rows = [bench.campaign_row(c) for c in (campaign("6ce3dd6eec", 1, 120), campaign("6ce3dd6eec", 2, 600),
                                                 campaign("6ce3dd6eec", 3))]
        e = bench.explore_summary(rows)["6.1/6ce3dd6eec"]
        self.assertEqual((e["campaigns"], e["found"], e["verdicts"]), (3, 2, ["corrupted"]))
        self.assertEqual(e["first_minutes"]["median"], 10)
        self.assertEqual(e["first_minutes"]["max"], 20)
        self.assertTrue(e["lower_bound"])
        self.assertIn("≥ 20", bench.explore_table({"6.1/6ce3dd6eec": e})[0][2])

    def test_known_findings_are_counted_apart_from_findings(self):
        c = campaign("stock", 1, minutes=60.0)
        c["figures"]["known_findings"] = {"stock-mpath-ata-blocked": 3}
        older = campaign("stock", 2, minutes=60.0)     # before [known]: no such figure
        e = bench.explore_summary([bench.campaign_row(c), bench.campaign_row(older)])["6.1/stock"]
        self.assertEqual((e["found"], e["findings"], e["known_findings"]), (0, 0, 3))
        row = bench.explore_table({"6.1/stock": e})[0]
        self.assertEqual(row[bench.EXPLORE_HEADERS.index("known findings")], "3")

    def test_earlier_figures_join_new_campaigns_and_a_rerun_replaces_its_row(self):
        earlier = {"explore": {"campaigns": [bench.campaign_row(campaign("6ce3dd6eec", 1, 120)),
                                             bench.campaign_row(campaign("ffe81d45322c", 1, 300))]}}
        rows = bench.campaign_rows([earlier, campaign("ffe81d45322c", 1, 60), campaign("ffe81d45322c", 2, 90)])
        got = sorted((r["stage"], r["seed"], r["first_minutes"]) for r in rows)
        self.assertEqual(got, [("6ce3dd6eec", 1, 2.0), ("ffe81d45322c", 1, 1.0), ("ffe81d45322c", 2, 1.5)])

    def test_the_readme_table_is_written_between_its_markers_only(self):
        import tempfile
        rows = [bench.campaign_row(campaign("stock", 1, minutes=60.0))]
        figures = {"explore": {"summary": bench.explore_summary(rows)}}
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write("before\n<!-- bench:explore -->\nold table\n<!-- /bench:explore -->\nafter\n")
        self.addCleanup(os.unlink, f.name)
        self.assertEqual(bench.write_readme(f.name, figures), ["explore"])
        with open(f.name) as f2:
            text = f2.read()
        self.assertNotIn("old table", text)
        self.assertIn("| 6.1/stock | 0/1 | none |", text)
        self.assertTrue(text.startswith("before\n<!-- bench:explore -->\n| tree/stage"))
        self.assertTrue(text.endswith("<!-- /bench:explore -->\nafter\n"))
        self.assertEqual(bench.write_readme(f.name, {}), [])


if __name__ == "__main__":
    unittest.main()
