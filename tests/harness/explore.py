"""tests/explore's configuration space, trials and minimization.

A trial is a dict of dimension -> value drawn from tests/explore.toml; the
guest runs it from its one-line form (tests/guest/explore.sh).  Everything
here is pure (no guest, no clock), so that a trial is reproducible from
(seed, number) and the minimization's choices can be tested on the host.
"""

import hashlib
import os
import random
import subprocess
import tempfile
import tomllib

from . import model
from .kernels import cache_dir

SPACE = os.path.join(os.path.dirname(__file__), "..", "explore.toml")

# What a trial found, against what the suite's oracles say when nothing
# broke.  error (the trial could not do its job) and skipped (the device
# cannot do what was drawn) are counted, never findings.
FINDINGS = tuple(v.value for v in model.FINDINGS)

# QEMU hardware (tests/harness/guest.py, Hardware) each device needs.
HARDWARE = {"sdebug": [], "virtio": ["virtio-disk"], "ahci": ["ahci-disk"],
            "megasas": ["megasas-disk"], "lsi": ["lsi-disk"], "mptsas": ["mptsas-disk"],
            "pvscsi": ["pvscsi-disk"]}


class SpaceError(Exception):
    pass


class Space:
    def __init__(self, path=SPACE):
        try:
            with open(path, "rb") as f:
                doc = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise SpaceError(f"{path}: {e}")
        self.path = path
        self.trial_seconds = int(doc.get("trial_seconds", 12))
        self.dims = {}
        self.weights = {}
        self.groups = {}            # group -> [dimension]
        for name, d in doc.get("dimension", {}).items():
            values = d.get("values")
            if not values or not all(isinstance(v, str) and v for v in values):
                raise SpaceError(f"{path}: dimension {name} needs a list of non-empty string values")
            if any(c.isspace() or c == "=" for v in values for c in v):
                raise SpaceError(f"{path}: dimension {name}: a value may hold no space or '='")
            self.dims[name] = values
            weights = d.get("weights", [1] * len(values))
            if len(weights) != len(values) or not all(isinstance(w, int) and w >= 0 for w in weights) \
                    or not any(weights):
                raise SpaceError(f"{path}: dimension {name}: one whole weight per value, not all 0")
            self.weights[name] = weights
            group = d.get("group", name)
            if not isinstance(group, str) or not group:
                raise SpaceError(f"{path}: dimension {name}: group must be a name")
            self.groups.setdefault(group, []).append(name)
        self.known = {}             # name -> {"verdict", "kind", "doc"}
        for name, k in doc.get("known", {}).items():
            if not isinstance(k, dict) or set(k) != {"verdict", "kind", "doc"} \
                    or not all(isinstance(v, str) and v for v in k.values()):
                raise SpaceError(f"{path}: known {name} needs verdict, kind and doc, each a string")
            if k["verdict"] not in FINDINGS:
                raise SpaceError(f"{path}: known {name}: verdict {k['verdict']} is not a finding")
            self.known[name] = dict(k)
        self.constraints = []
        for i, c in enumerate(doc.get("constraint", [])):
            when = {k: v if isinstance(v, list) else [v] for k, v in c.get("when", {}).items()}
            allow = c.get("allow", {})
            for k, vs in list(when.items()) + list(allow.items()):
                if k not in self.dims or not all(v in self.dims[k] for v in vs):
                    raise SpaceError(f"{path}: constraint {i + 1} names {k}={vs}, not in the space")
            self.constraints.append((when, allow))

    def known_as(self, verdict, kind):
        """The name of the known finding a trial's VERDICT with the guest's
        KIND of it is, or None: a new finding (or none)."""
        for name, k in self.known.items():
            if verdict == k["verdict"] and kind == k["kind"]:
                return name
        return None

    def plain(self):
        return self.normalize({k: vs[0] for k, vs in self.dims.items()})

    def normalize(self, trial):
        """TRIAL made consistent by the constraints, in file order."""
        t = dict(trial)
        for when, allow in self.constraints:
            if all(t[k] in vs for k, vs in when.items()):
                for k, vs in allow.items():
                    if t[k] not in vs:
                        t[k] = vs[0]
        return t

    def draw(self, seed, number):
        """Trial NUMBER of a campaign of SEED: the same on every run."""
        rng = random.Random(f"rqpath-explore:{seed}:{number}")
        return self.normalize({k: rng.choices(vs, self.weights[k])[0] for k, vs in self.dims.items()})

    def encode(self, trial):
        return " ".join(f"{k}={trial[k]}" for k in self.dims)

    def decode(self, line):
        t = dict(w.split("=", 1) for w in line.split())
        if sorted(t) != sorted(self.dims):
            raise SpaceError(f"trial '{line}' does not name each dimension of the space once")
        for k, v in t.items():
            if v not in self.dims[k]:
                raise SpaceError(f"trial '{line}': {k}={v} is not in the space")
        return t

    def reductions(self, trial):
        """The one-step plainer trials of TRIAL: (dimension, trial) with
        that dimension put back to its plainest value, consistent again,
        for every dimension where that changes the trial."""
        for k, vs in self.dims.items():
            if trial[k] != vs[0]:
                t = self.normalize({**trial, k: vs[0]})
                if t != trial:
                    yield k, t

    def distance(self, trial):
        """How many dimensions of TRIAL are not at their plainest value."""
        return sum(trial[k] != vs[0] for k, vs in self.dims.items())


def hardware(trial):
    return HARDWARE[trial["dev"]]


def trial_id(trial_line):
    return hashlib.sha256(trial_line.encode()).hexdigest()[:10]


def reproduces(verdicts, found, need):
    """A minimization step keeps a change when at least NEED of its
    repeats came out with the verdict FOUND."""
    return sum(v == found for v in verdicts) >= need


def layer(trials, seconds):
    """The guest image layer with the trial list (NAME line per trial) and
    the settings, in the cache, named by its content."""
    text = "".join(f"{name} {line}\n" for name, line in trials)
    settings = f"seconds={seconds}\n"
    key = hashlib.sha256((text + settings).encode()).hexdigest()[:16]
    out = os.path.join(cache_dir(), "initramfs", f"explore-{key}.cpio")
    if os.path.exists(out):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with tempfile.TemporaryDirectory() as root:
        d = os.path.join(root, "rqpath", "explore")
        os.makedirs(d)
        with open(os.path.join(d, "trials"), "w") as f:
            f.write(text)
        with open(os.path.join(d, "settings"), "w") as f:
            f.write(settings)
        names = "./rqpath\n./rqpath/explore\n./rqpath/explore/trials\n./rqpath/explore/settings\n"
        with open(out + ".tmp", "wb") as f:
            subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=root,
                           input=names.encode(), stdout=f, check=True)
    os.rename(out + ".tmp", out)
    return out


def scenario_text(name, space, trial, tree, stage, verdict, how):
    """A minimized finding as a scenario file: VERDICT expected on STAGE of
    TREE, clean elsewhere.  HOW says how it was found (seed, trial)."""
    line = space.encode(trial)
    return (f"# shellcheck shell=sh\n"
            f"# rqpath scenario: {name}\n"
            f"# summary: found by tests/explore ({how}), minimized: {verdict} on {tree}:{stage}\n"
            f"# expect: clean; {tree}:{stage}={verdict}\n"
            f"# boot: {'own' if verdict == 'livelocked' else 'shared'}\n"
            f"# timeout: {scenario_timeout(space)}\n"
            + (f"# qemu: {' '.join(hardware(trial))}\n" if hardware(trial) else "")
            + "\n"
            f"# shellcheck source=tests/guest/explore.sh\n"
            f". /rqpath/explore.sh\n\n"
            f"scenario_run() {{\n"
            f"\tEX_SECONDS={space.trial_seconds} ex_trial '{line}'\n"
            f"}}\n")


def scenario_timeout(space):
    """Guest seconds a trial may take: setup, its workload, an operation's
    deadline and the livelock window (tests/guest/explore.sh), cleanup."""
    return 60 + space.trial_seconds + 20 + 3 + 30


# --- guidance -------------------------------------------------------------

# The merge oracle's evidence of how far a trial got along what this bug
# class needs, and what each step is worth (guest-modules/rqpath-oracle.c):
# a request handed back by its driver, handed back after the driver
# prepared it, handed back from a direct issue (the path both 2018 bugs
# went through: no scheduler, a plug issued directly, a dm clone), the
# same after preparation, a bio submitted right in front of a handed-back
# request and of a prepared one, and the same two while that request sat
# in a queue the bio could merge into.
EVIDENCE = {"requeues": 1, "prepared_requeues": 1, "direct_requeues": 2, "prepared_direct_requeues": 2,
            "merge_candidates": 1, "prepared_candidates": 1,
            "queued_candidates": 2, "prepared_queued_candidates": 4}

# How a guided campaign draws its trials: fresh from the space's own
# weights (the space stays explored whatever the evidence says), from the
# space's weights learned from the evidence so far, or bred from one trial
# that showed evidence; shares of the trials.
FRESH_SHARE = 0.2
LEARNED_SHARE = 0.5

# A finding's score: above any evidence.
FINDING_SCORE = sum(EVIDENCE.values()) + 2

# What a value's mean score adds to its weight's square root: values with
# no evidence keep their chance (LEARNING_FLOOR squared, against the
# square of the mean score plus it for the others).
LEARNING_FLOOR = 0.5


def evidence_score(counts):
    """What the trial's trigger COUNTS are worth (EVIDENCE): 0 when no
    request was ever handed back."""
    return sum(w for k, w in EVIDENCE.items() if (counts.get(k) or 0) > 0)


class Guide:
    """A campaign guided by the oracles' evidence, the way a fuzzer is by
    coverage.  Each trial is one of:
      fresh    drawn from the space (FRESH_SHARE of them, and every trial
               until the first evidence);
      learned  drawn from the space with each value's weight scaled by
               the evidence of the trials that had it (LEARNED_SHARE):
               what this bug class needs is a conjunction of values
               (busy injection, a disk a bio can merge on, no scheduler, a
               plug), and learning each value's worth raises the chance of
               all of them at once;
      bred     one of the trials with evidence, with one to three of its
               dimensions drawn again, or one part of it (the device, the
               stack or the workload: a group of the space) drawn again
               with the learned weights (the rest).  What this bug class
               needs of a part is itself a conjunction (a plug needs a
               depth, a batch and an order) that shows no evidence until
               it is whole.
    Trial NUMBER depends on SEED and on the evidence recorded before it, so
    a campaign replays from its seed and its trials' counts (each trial's
    line is in its JSON).  Pure: the caller records what each trial
    showed."""

    def __init__(self, space, seed):
        self.space, self.seed = space, seed
        self.history = []           # (score, number, trial)
        self.tried = set()

    def record(self, number, trial, counts, verdict=None):
        score = FINDING_SCORE if verdict in FINDINGS else evidence_score(counts)
        self.history.append((score, number, trial))

    def propose(self, number):
        """Trial NUMBER: (trial, how) with how {"kind": fresh, learned or
        bred, "parent": the number bred from, "dims": the dimensions drawn
        again}."""
        rng = random.Random(f"rqpath-explore:guided:{self.seed}:{number}")
        corpus = [h for h in self.history if h[0] > 0]
        r = rng.random()
        for _ in range(20 if corpus and r >= FRESH_SHARE else 0):
            if r < FRESH_SHARE + LEARNED_SHARE:
                t, how = self.learned_draw(rng), {"kind": "learned"}
            else:
                _, parent, base = rng.choices(corpus, [sc * sc for sc, _, _ in corpus])[0]
                t, dims = self.mutate(rng, base)
                how = {"kind": "bred", "parent": parent, "dims": dims}
            if self.space.encode(t) not in self.tried:
                self.tried.add(self.space.encode(t))
                return t, how
        t = self.space.draw(self.seed, number)
        self.tried.add(self.space.encode(t))
        return t, {"kind": "fresh"}

    def learned_weights(self, dim):
        """DIM's weights: the space's, each scaled by the square of the
        mean score of the trials that had the value (LEARNING_FLOOR added;
        a value never tried counts as scoring the campaign's mean)."""
        mean = sum(sc for sc, _, _ in self.history) / len(self.history)
        out = []
        for v, w in zip(self.space.dims[dim], self.space.weights[dim]):
            scores = [sc for sc, _, t in self.history if t[dim] == v]
            m = (sum(scores) + mean) / (len(scores) + 1)
            out.append(w * (LEARNING_FLOOR + m) ** 2)
        return out

    def learned_draw(self, rng):
        return self.space.normalize({k: rng.choices(vs, self.learned_weights(k))[0]
                                     for k, vs in self.space.dims.items()})

    def mutate(self, rng, trial):
        """TRIAL with, half the time, one group of dimensions drawn again
        with the learned weights, else one to three of its dimensions drawn
        again (each to another value it may take); made consistent; and the
        dimensions that differ from TRIAL."""
        t = dict(trial)
        if rng.random() < 0.5:
            group = rng.choice(sorted(self.space.groups))
            for k in self.space.groups[group]:
                t[k] = rng.choices(self.space.dims[k], self.learned_weights(k))[0]
            t = self.space.normalize(t)
            return t, [k for k in self.space.dims if t[k] != trial[k]]
        free = [k for k, vs in self.space.dims.items() if sum(w > 0 for w in self.space.weights[k]) > 1]
        dims = rng.sample(free, min(len(free), rng.choice((1, 1, 2, 3))))
        for k in dims:
            others = [(v, w) for v, w in zip(self.space.dims[k], self.space.weights[k]) if v != t[k] and w > 0]
            if others:
                t[k] = rng.choices([v for v, _ in others], [w for _, w in others])[0]
        t = self.space.normalize(t)
        return t, [k for k in self.space.dims if t[k] != trial[k]]
