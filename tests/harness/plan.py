"""Which scenarios run in which boot, in which order, on which shard.

A boot runs several scenarios of one kernel, one after another.  Boots are
filled up to BOOT_SECONDS of estimated guest time (scenarios that declare
"boot: own" get one to themselves), so that the work splits into pieces
small enough to balance over the parallel guests, and large enough that
the boot itself (seconds to reach init) stays a small part.

Estimates come from tests/harness/seconds.json (measured guest seconds per
scenario, committed so that every machine plans alike; tests/bench --only
profile --update-estimates rewrites it), else half the scenario's timeout.
Boots are scheduled longest first.  A shard is a deterministic part of the
boots, balanced by their estimates: --shard K/N on N machines runs every
boot exactly once.
"""

import heapq
import json
import os
import queue
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ESTIMATES_FILE = os.path.join(HERE, "seconds.json")
# Guest seconds a boot may be planned to take; and what a boot costs by
# itself (reaching init, the image), which a scenario added to a running
# boot saves.
BOOT_SECONDS = 240
BOOT_OVERHEAD = 12


def load_estimates():
    try:
        with open(ESTIMATES_FILE) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


class Estimates:
    def __init__(self):
        self.table = load_estimates()

    def seconds(self, scenario, kernel=None):
        """Estimated guest seconds of one scenario (on this kernel's stage
        when measured there, else its median over stages)."""
        entry = self.table.get(scenario.name)
        if isinstance(entry, dict):
            if kernel is not None and kernel.stage in entry:
                return entry[kernel.stage]
            return entry.get("*", scenario.timeout / 2)
        if isinstance(entry, (int, float)):
            return entry
        return scenario.timeout / 2


class PlannedBoot:
    def __init__(self, kernel, scenarios, tag, estimate):
        self.kernel = kernel
        self.scenarios = scenarios
        self.tag = tag
        self.estimate = estimate

    def key(self):
        return (self.kernel.label, self.tag)


def runs_on(stages_of, scenario, stage):
    """Whether SCENARIO (a name) runs on STAGE, given tests/run's
    --scenario PATTERN@STAGES restrictions (STAGES_OF: name -> stages;
    a name absent from it runs everywhere)."""
    return scenario not in stages_of or stage in stages_of[scenario]


def plan_boots(kernels, scenarios, nboots, estimates, stages_of=None):
    """[PlannedBoot]: every (kernel, repetition) with its scenarios packed
    into boots of at most BOOT_SECONDS estimated seconds, first fit in
    decreasing order of estimate (deterministic: ties by name).
    STAGES_OF: scenario name -> the stages it runs on (absent: all)."""
    boots = []
    for k in kernels:
        mine = [s for s in scenarios if runs_on(stages_of or {}, s.name, k.stage)]
        for rep in range(nboots):
            suffix = f"-b{rep + 1}" if nboots > 1 else ""
            own = [s for s in mine if s.boot == "own"]
            shared = sorted((s for s in mine if s.boot != "own"),
                            key=lambda s: (-estimates.seconds(s, k), s.name))
            bins = []
            for s in shared:
                est = estimates.seconds(s, k)
                for b in bins:
                    if b[0] + est <= BOOT_SECONDS:
                        b[0] += est
                        b[1].append(s)
                        break
                else:
                    bins.append([est, [s]])
            groups = [b[1] for b in bins] + [[s] for s in own]
            base = f"{k.tree}-{k.stage}" + ("-debug" if k.variant == "debug" else "")
            for i, group in enumerate(groups):
                # Within a boot, scenarios run in name order: the order
                # is part of what a boot is, the same on every machine.
                group = sorted(group, key=lambda s: s.name)
                est = BOOT_OVERHEAD + sum(estimates.seconds(s, k) for s in group)
                boots.append(PlannedBoot(k, group, f"{base}-{i + 1}{suffix}".replace(":", "_"), est))
    return boots


def shard(boots, k, n):
    """The boots of shard K of N (1-based): longest processing time first,
    each boot to the shard with the least estimated work so far."""
    loads = [(0.0, i) for i in range(n)]
    heapq.heapify(loads)
    mine = []
    for b in sorted(boots, key=lambda b: (-b.estimate, b.tag)):
        load, i = heapq.heappop(loads)
        if i == k - 1:
            mine.append(b)
        heapq.heappush(loads, (load + b.estimate, i))
    return mine


class Scheduler:
    """Runs planned boots on `jobs` parallel guests, longest first; a boot
    that ends early (a scenario made the guest unusable) hands back the
    scenarios it did not start, which become a new boot of the same kernel
    at the head of the queue."""

    def __init__(self, jobs, run_boot):
        self.jobs = jobs
        self.run_boot = run_boot      # PlannedBoot -> (results, pending scenarios)
        self.queue = queue.PriorityQueue()
        self.seq = 0
        self.results = []
        self.boots = []
        self.lock = threading.Lock()
        self.outstanding = 0
        self.idle = threading.Condition(self.lock)
        self.error = None

    def put(self, boot, first=False):
        with self.lock:
            self.seq += 1
            prio = (-1e9 if first else -boot.estimate, self.seq)
            self.outstanding += 1
        self.queue.put((prio, boot))

    def _worker(self):
        while True:
            _, boot = self.queue.get()
            if boot is None:
                return
            try:
                results, pending, info = self.run_boot(boot)
            except Exception as e:  # a harness bug must not hang the run
                with self.lock:
                    self.error = self.error or e
                results, pending, info = [], [], None
            with self.lock:
                self.results.extend(results)
                if info:
                    self.boots.append(info)
            if pending:
                n = boot.tag.rsplit("-r", 1)
                again = int(n[1]) + 1 if len(n) == 2 and n[1].isdigit() else 2
                tag = f"{n[0] if len(n) == 2 and n[1].isdigit() else boot.tag}-r{again}"
                est = BOOT_OVERHEAD + sum(s.timeout / 2 for s in pending)
                self.put(PlannedBoot(boot.kernel, pending, tag, est), first=True)
            with self.lock:
                self.outstanding -= 1
                self.idle.notify_all()

    def run(self, boots):
        for b in boots:
            self.put(b)
        workers = [threading.Thread(target=self._worker, daemon=True) for _ in range(self.jobs)]
        for w in workers:
            w.start()
        with self.lock:
            while self.outstanding:
                self.idle.wait()
        for _ in workers:
            self.queue.put(((1e18, 0), None))
        for w in workers:
            w.join()
        if self.error:
            raise self.error
        return self.results, self.boots
