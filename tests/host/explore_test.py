#!/usr/bin/env python3
"""Host tests of tests/explore's space, trials and minimization choices
(tests/harness/explore.py).  Nothing is booted.

  python3 tests/host/explore_test.py [-v]
"""

import os
import random
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import explore, scenarios  # noqa: E402

SMALL = """
trial_seconds = 5
[dimension.dev]
values = ["sdebug", "virtio"]
[dimension.busy]
values = ["none", "host"]
weights = [0, 1]
[dimension.qd]
values = ["1", "8"]
[dimension.batch]
values = ["1", "4"]
[[constraint]]
when = { dev = "virtio" }
allow = { busy = ["none"] }
[[constraint]]
when = { qd = "1" }
allow = { batch = ["1"] }
"""


def space_of(text):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
    try:
        return explore.Space(f.name)
    finally:
        os.unlink(f.name)


class SpaceTest(unittest.TestCase):
    def test_the_projects_space_loads_and_its_trials_are_consistent(self):
        s = explore.Space()
        for n in range(200):
            t = s.draw(1, n)
            self.assertEqual(t, s.normalize(t), f"trial {n} is not consistent")
            self.assertEqual(s.decode(s.encode(t)), t)
            self.assertLessEqual(int(t["batch"]), int(t["qd"]))

    def test_a_trial_is_the_same_for_the_same_seed_and_number(self):
        s = explore.Space()
        self.assertEqual(s.draw(42, 7), s.draw(42, 7))
        self.assertNotEqual([s.draw(42, n) for n in range(20)], [s.draw(43, n) for n in range(20)])

    def test_constraints_and_weights(self):
        s = space_of(SMALL)
        for n in range(100):
            t = s.draw(3, n)
            if t["dev"] == "virtio":
                self.assertEqual(t["busy"], "none")
            else:
                self.assertEqual(t["busy"], "host", "weight 0 is never drawn")
            if t["qd"] == "1":
                self.assertEqual(t["batch"], "1")

    def test_a_bad_space_is_one_clear_error(self):
        for text, says in (("[dimension.a]\nvalues = []\n", "dimension a"),
                           ("[dimension.a]\nvalues = ['x y']\n", "no space"),
                           ("[dimension.a]\nvalues = ['x']\nweights = [1, 2]\n", "weight"),
                           ("[dimension.a]\nvalues = ['x']\n[[constraint]]\nwhen = { b = 'x' }\n", "constraint 1"),
                           ("[dimension.a\n", "")):
            with self.assertRaises(explore.SpaceError) as cm:
                space_of(text)
            self.assertIn(says, str(cm.exception))

    def test_decode_refuses_a_trial_outside_the_space(self):
        s = space_of(SMALL)
        with self.assertRaises(explore.SpaceError):
            s.decode("dev=sdebug busy=host qd=8")
        with self.assertRaises(explore.SpaceError):
            s.decode("dev=nvme busy=host qd=8 batch=4")


class MinimizeTest(unittest.TestCase):
    def test_reductions_put_one_dimension_back_and_stay_consistent(self):
        s = space_of(SMALL)
        t = {"dev": "sdebug", "busy": "host", "qd": "8", "batch": "4"}
        got = dict(s.reductions(t))
        self.assertEqual(sorted(got), ["batch", "busy", "qd"])
        self.assertEqual(got["qd"], {"dev": "sdebug", "busy": "host", "qd": "1", "batch": "1"})
        self.assertEqual(got["busy"]["busy"], "none")
        self.assertEqual(list(s.reductions(s.plain())), [])
        self.assertEqual(s.distance(t), 3)

    def test_a_step_is_kept_only_when_enough_repeats_reproduce(self):
        self.assertTrue(explore.reproduces(["corrupted", "clean"], "corrupted", 1))
        self.assertFalse(explore.reproduces(["corrupted", "clean"], "corrupted", 2))
        self.assertFalse(explore.reproduces(["violated", "error"], "corrupted", 1))


class GuideTest(unittest.TestCase):
    EVIDENCED = {"requeues": 40, "merge_candidates": 3, "prepared_requeues": 9, "prepared_candidates": 1}

    def test_evidence_is_worth_more_the_further_it_got(self):
        self.assertEqual(explore.evidence_score({}), 0)
        self.assertEqual(explore.evidence_score({"requeues": 0, "merge_candidates": 0}), 0)
        self.assertEqual(explore.evidence_score({"requeues": 5}), 1)
        self.assertLess(explore.evidence_score({"requeues": 5, "merge_candidates": 1}),
                        explore.evidence_score(self.EVIDENCED))

    def test_without_evidence_a_guided_campaign_draws_as_a_blind_one(self):
        s = explore.Space()
        g = explore.Guide(s, 5)
        for n in range(12):
            t, how = g.propose(n)
            self.assertEqual((t, how), (s.draw(5, n), {"kind": "fresh"}))
            g.record(n, t, {"requeues": 0, "merge_candidates": 0}, "clean")

    def test_trials_are_bred_from_or_learned_from_the_ones_with_evidence(self):
        s = explore.Space()
        g = explore.Guide(s, 5)
        lines = set()
        for n in range(4):
            t, _ = g.propose(n)
            lines.add(s.encode(t))
            g.record(n, t, self.EVIDENCED if n == 2 else {"requeues": 0}, "clean")
        parent = s.draw(5, 2)
        kinds = {"fresh": 0, "learned": 0, "bred": 0}
        for n in range(4, 204):
            t, how = g.propose(n)
            self.assertEqual(t, s.normalize(t))
            self.assertNotIn(s.encode(t), lines, f"trial {n} repeats an earlier one")
            lines.add(s.encode(t))
            kinds[how["kind"]] += 1
            if how["kind"] == "fresh":
                self.assertEqual(t, s.draw(5, n))
            elif how["kind"] == "bred":
                self.assertEqual(how["parent"], 2)
                self.assertEqual(how["dims"], [k for k in s.dims if t[k] != parent[k]])
                self.assertTrue(how["dims"])
            g.record(n, t, {}, "clean")
        # The shares, give or take chance.
        self.assertTrue(20 < kinds["fresh"] < 65, kinds)
        self.assertTrue(70 < kinds["learned"] < 130, kinds)
        self.assertTrue(30 < kinds["bred"] < 90, kinds)

    def test_values_of_trials_with_evidence_are_learned(self):
        s = space_of(SMALL)
        g = explore.Guide(s, 1)
        # Only dev=virtio trials show evidence: its weight grows, while
        # a value the space never draws stays never drawn.
        for n in range(10):
            t = s.normalize({"dev": "virtio" if n % 2 else "sdebug", "busy": "host", "qd": "8", "batch": "4"})
            g.record(n, t, self.EVIDENCED if n % 2 else {}, "clean")
        w = dict(zip(s.dims["dev"], g.learned_weights("dev")))
        self.assertGreater(w["virtio"], 20 * w["sdebug"])
        self.assertEqual(g.learned_weights("busy")[0], 0)
        # A finding outweighs any evidence.
        self.assertGreater(explore.FINDING_SCORE, explore.evidence_score(self.EVIDENCED))

    def test_a_part_of_a_trial_is_bred_whole(self):
        s = explore.Space()
        self.assertEqual(sorted(s.groups), ["device", "stack", "workload"])
        self.assertIn("batch", s.groups["workload"])
        g = explore.Guide(s, 3)
        g.record(0, s.draw(3, 0), self.EVIDENCED, "clean")
        parts = 0
        for n in range(200):
            t, dims = g.mutate(random.Random(n), s.draw(3, 0))
            self.assertEqual(t, s.normalize(t))
            parts += len(dims) >= 3 and set(dims) <= set(s.groups["workload"])
        self.assertGreater(parts, 10, "the workload is never drawn again as a whole")

    def test_a_guided_campaign_replays_from_its_seed_and_evidence(self):
        s = explore.Space()

        def campaign():
            g = explore.Guide(s, 9)
            out = []
            for n in range(30):
                t, how = g.propose(n)
                out.append((s.encode(t), how))
                g.record(n, t, self.EVIDENCED if n % 7 == 3 else {}, "clean")
            return out
        self.assertEqual(campaign(), campaign())


class ScenarioFileTest(unittest.TestCase):
    def test_a_minimized_finding_is_a_scenario_the_suite_loads(self):
        s = explore.Space()
        t = s.normalize({**s.plain(), "dev": "virtio", "op": "rw+flush"})
        name = "explore-livelocked-" + explore.trial_id(s.encode(t))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, name + ".sh")
            with open(path, "w") as f:
                f.write(explore.scenario_text(name, s, t, "6.1", "ffe81d45322c", "livelocked", "seed 1, trial 2"))
            sc = scenarios.Scenario(path)
        self.assertEqual(sc.expected("ffe81d45322c", "6.1"), ("livelocked",))
        self.assertEqual(sc.expected("ffe81d45322c", "6.12"), ("clean",))
        self.assertEqual(sc.expected("stock", "6.1"), ("clean",))
        self.assertEqual(sc.hardware, ["virtio-disk"])
        self.assertEqual(sc.boot, "own")


def load_explore_command():
    """tests/explore (a script, no .py) as a module."""
    from importlib.machinery import SourceFileLoader
    from importlib.util import module_from_spec, spec_from_loader
    path = os.path.join(TOP, "tests", "explore")
    spec = spec_from_loader("explore_command", SourceFileLoader("explore_command", path))
    mod = module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


KNOWN = """
[known.blocked]
verdict = "livelocked"
kind = "blocked_path_released"
doc = "Documentation/stock-mpath-ata-blocked.md"
"""


class FakeCampaign:
    """Campaign.run with each trial's result given by its number."""

    def __init__(self, results):
        self.results, self.boots = results, 0

    def run(self, named, on_result=None):
        self.boots += 1
        out = {}
        for name, _ in named:
            n = int(name.rsplit(":", 1)[1])
            verdict, kind = self.results.get(n, ("clean", None))
            r = {"scenario": name, "verdict": verdict, "seconds": 1.0,
                 "details": {"trigger": {"counts": {"requeues": 1}}, "livelock_kind": kind}}
            out[name] = r
            if on_result:
                on_result(r)
        return out


class KnownFindingTest(unittest.TestCase):
    def test_the_space_reads_known_findings_and_refuses_bad_ones(self):
        s = space_of(SMALL + KNOWN)
        self.assertEqual(s.known_as("livelocked", "blocked_path_released"), "blocked")
        self.assertIsNone(s.known_as("livelocked", "paths_take_requests"))
        self.assertIsNone(s.known_as("corrupted", "blocked_path_released"))
        self.assertIsNone(s.known_as("livelocked", None))
        for bad in ('[known.x]\nverdict = "livelocked"\nkind = "k"\n',
                    '[known.x]\nverdict = "clean"\nkind = "k"\ndoc = "d"\n',
                    '[known.x]\nverdict = "livelocked"\nkind = ""\ndoc = "d"\n',
                    '[known.x]\nverdict = "livelocked"\nkind = "k"\ndoc = "d"\nwhen = "x"\n'):
            with self.subTest(bad=bad), self.assertRaises(explore.SpaceError):
                space_of(SMALL + bad)

    def test_the_projects_known_findings_name_a_write_up(self):
        for name, k in explore.Space().known.items():
            self.assertTrue(os.path.exists(os.path.join(TOP, k["doc"])), f"{name}: no {k['doc']}")

    def campaign(self, results, stop_at_first=True, trials=12):
        cmd = load_explore_command()
        args = cmd.parse_args(["--stage", "stock", "--trials", str(trials), "--per-boot", "3", "--seed", "5"]
                              + (["--stop-at-first"] if stop_at_first else []))

        class Kernel:
            label, release = "6.1 stock (fake)", "6.1.0-fake"
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "explore.json")
            with open(os.devnull, "w") as null:
                old, sys.stdout = sys.stdout, null
                try:
                    rc = cmd.run_campaign(FakeCampaign(results), space_of(SMALL + KNOWN), args, 5, Kernel(),
                                          "6.1", path, d)
                finally:
                    sys.stdout = old
            with open(path) as f:
                import json
                return rc, json.load(f)

    def test_a_known_finding_is_counted_apart_and_the_campaign_goes_on(self):
        rc, j = self.campaign({1: ("livelocked", "blocked_path_released"), 7: ("corrupted", None)})
        self.assertEqual(rc, 1)
        self.assertEqual([f["number"] for f in j["findings"]], [7])
        self.assertEqual([(f["number"], f["known"]) for f in j["known_findings"]], [(1, "blocked")])
        self.assertEqual(j["figures"]["known_findings"], {"blocked": 1})
        self.assertEqual(j["figures"]["findings"], 1)
        # It stopped at the boot of the new finding, not at the known one.
        self.assertEqual(len(j["trials"]), 9)

    def test_a_livelock_of_another_kind_is_a_finding(self):
        rc, j = self.campaign({1: ("livelocked", "paths_take_requests"),
                               2: ("livelocked", "blocked_path_not_released")})
        self.assertEqual(rc, 1)
        self.assertEqual([f["number"] for f in j["findings"]], [1, 2])
        self.assertEqual(j["known_findings"], [])
        self.assertEqual(len(j["trials"]), 3)

    def test_a_campaign_of_known_findings_only_found_nothing_new(self):
        rc, j = self.campaign({0: ("livelocked", "blocked_path_released")}, trials=6)
        self.assertEqual(rc, 0)
        self.assertEqual(j["findings"], [])
        self.assertEqual(j["figures"]["first_finding_seconds"], None)
        self.assertEqual(len(j["trials"]), 6)


class CommandLineTest(unittest.TestCase):
    def explore(self, *args):
        return subprocess.run([os.path.join(TOP, "tests", "explore"), *args],
                              capture_output=True, text=True, timeout=60)

    def test_bad_command_lines_are_one_clear_error(self):
        for args, says in (((), "--stage is required"),
                           (("--stage", "stock"), "one of --trials and --minutes"),
                           (("--stage", "stock", "--trials", "2", "--minutes", "1"), "one of --trials"),
                           (("--stage", "stock", "--minimize-trial", "dev=sdebug"), "needs --verdict"),
                           (("--stage", "stock", "--minimize-trial", "dev=sdebug", "--verdict", "livelocked"),
                            "does not name each dimension"),
                           (("--stage", "stock", "--run-trial", "dev=sdebug"), "does not name each dimension"),
                           (("--stage", "stock", "--run-trial", "x", "--trials", "2"), "--run-trial takes no"),
                           (("--stage", "stock", "--run-trial", "x", "--minimize-trial", "x"), "not both"),
                           (("--stage", "nosuch", "--trials", "1"), "no stage nosuch")):
            with self.subTest(args=args):
                p = self.explore(*args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(says, p.stderr)
                self.assertEqual(p.stdout, "")

    def test_show_prints_the_trial_of_a_seed(self):
        p = self.explore("--show", "--seed", "7", "--trial", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        s = explore.Space()
        self.assertEqual(p.stdout.strip(), s.encode(s.draw(7, 3)))


if __name__ == "__main__":
    unittest.main()
