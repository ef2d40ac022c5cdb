"""The matrix: progress while it runs, the terminal table, and the join of
several shards' matrices into one (model.py reads and writes them)."""

import os
import sys
import threading
import time

from . import model


def block_name(tree, variant):
    return f"tree {tree}" + (" (debug kernels)" if variant == "debug" else "")


def verdict_counts(verdicts):
    """'clean', 'corrupted 10/10', or 'clean 1/2 corrupted 1/2': the
    verdicts of one cell's boots."""
    if len(set(verdicts)) == 1:
        return verdicts[0] + (f" {len(verdicts)}/{len(verdicts)}" if len(verdicts) > 1 else "")
    return " ".join(f"{v} {verdicts.count(v)}/{len(verdicts)}" for v in sorted(set(verdicts)))


def cell(results, expected):
    """'clean' / 'corrupted 10/10' with a mark: ok, FAIL, or ~ for measured."""
    verdicts = [r.verdict for r in results]
    text = verdict_counts(verdicts)
    if not all(v in expected for v in verdicts):
        return f"FAIL {text} (want {'|'.join(expected)})"
    # Either way the bug was detected: an assertion, not a measurement.
    return f"{'~' if model.is_measured(expected) else 'ok'} {text}"


def print_matrix(results, order, out=sys.stdout):
    """One block per tree (and variant): scenarios down, stages across.
    RESULTS: model.Results; ORDER: scenario names in the order to print them."""
    blocks = {}
    for r in results:
        blocks.setdefault((r.tree, r.variant), []).append(r)
    for key in sorted(blocks):
        rs = blocks[key]
        stages = []
        for r in rs:
            if r.stage not in stages:
                stages.append(r.stage)
        by_cell = {}
        for r in rs:
            by_cell.setdefault((r.scenario, r.stage), []).append(r)
        names = [n for n in order if any((n, st) in by_cell for st in stages)]
        names += sorted({r.scenario for r in rs} - set(names))
        cells = {c: cell(v, v[0].expected) for c, v in by_cell.items()}
        title = block_name(*key) + ": scenario \\ stage"
        w0 = max([len(title)] + [len(n) for n in names])
        widths = [max([len(st)] + [len(cells.get((n, st), "")) for n in names]) for st in stages]
        print(file=out)
        line = "  ".join([title.ljust(w0)] + [st.ljust(w) for st, w in zip(stages, widths)])
        print(line, file=out)
        print("-" * len(line), file=out)
        for n in names:
            print("  ".join([n.ljust(w0)] + [cells.get((n, st), "-").ljust(w)
                                             for st, w in zip(stages, widths)]), file=out)
    print("ok: as expected   ~: measured, either verdict accepted   FAIL: not as expected",
          file=out)


def print_evidence(results, out=sys.stdout):
    """The trigger counts behind every verdict, one line per result."""
    rows = []
    for r in results:
        t = r.details.get("trigger")
        o = r.details.get("oracle")
        if not isinstance(t, dict) and not isinstance(o, dict):
            continue
        parts = []
        if isinstance(t, dict):
            short = [k for k, v in t.get("counts", {}).items() if v < t.get("minimum", {}).get(k, 0)]
            parts.append(" ".join(f"{k}={v}" + ("!" if k in short else "")
                                  for k, v in t.get("counts", {}).items()))
        if isinstance(o, dict):
            parts.append(f"oracle: {o.get('count', 0)} violations in "
                         f"{o.get('front_merges', 0)}+{o.get('back_merges', 0)} merges")
        rows.append((r.tree, r.stage, r.scenario, r.verdict, "; ".join(parts)))
    if not rows:
        return
    print("\ntrigger evidence (count! = below its minimum):", file=out)
    for row in sorted(rows):
        print(f"  {row[0]:5} {row[1]:14} {row[2]:38} {row[3]:10} {row[4]}", file=out)


def merge(paths):
    """Several runs' (shards') matrices as one model.Matrix: the facts of
    the first, every result and boot, timings added up.  ValueError names
    a file that is missing or is not a matrix of this schema."""
    parts = []
    for p in paths:
        try:
            parts.append(model.load_matrix(p))
        except model.MatrixError as e:
            raise ValueError(f"--merge {e}")
    timing = {}
    for m in parts:
        for k, v in m.timing.items():
            if isinstance(v, (int, float)):
                timing[k] = round(timing.get(k, 0) + v, 1)
    return model.Matrix(results=[r for m in parts for r in m.results], boots=[b for m in parts for b in m.boots],
                        timing=timing,
                        meta=dict(parts[0].meta, merged_from=[os.path.basename(p) for p in paths]))


class Progress:
    """One plain line per finished scenario (CI logs), and on a terminal a
    status line below them with the running count and the time left.

    CELLS: {(tree, stage, scenario): estimated seconds} of what is to run,
    RUNS the number of runs planned in all (several per cell with --boots).
    The time left is the estimated seconds still to run at the rate the
    finished ones took: scenarios differ twentyfold in length, so a count
    of results alone extrapolates from whichever finished first."""

    PRIOR = 300.0

    def __init__(self, cells, runs, jobs):
        self.total = runs
        self.cells = cells
        self.mean = sum(cells.values()) / len(cells) if cells else 0.0
        self.est_total = self.mean * runs
        self.est_done = 0.0
        self.jobs = jobs
        self.done = 0
        self.failed = 0
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.tty = sys.stdout.isatty()
        self.seen = set()

    def eta(self):
        """The estimated seconds left over the parallel guests, times how
        much slower than estimated the run has gone so far.  That ratio
        starts from the plan's (PRIOR estimated seconds taking as long as
        estimated): the first results also paid for boots and for work
        still running beside them, and alone they would say twice the run."""
        elapsed = time.monotonic() - self.t0
        prior = min(self.est_total, self.PRIOR)
        ratio = (elapsed * self.jobs + prior) / (self.est_done + prior) if prior > 0 else 1.0
        left = max(self.est_total - self.est_done, 0.0) / self.jobs * ratio
        return f"{int(left // 60)}m{int(left % 60):02d}s"

    def result(self, r, expected):
        ok = r["verdict"] in expected
        key = (r["tree"], r.get("variant"), r["stage"], r["scenario"], r["boot"])
        with self.lock:
            revised = key in self.seen
            self.seen.add(key)
            if not revised:
                self.done += 1
                self.failed += 0 if ok else 1
                self.est_done += self.cells.get((r["tree"], r["stage"], r["scenario"]), self.mean)
            secs = r.get("seconds")
            line = (f"[{self.done:3}/{self.total}] {r['tree']:5} {r['stage']:14}"
                    f"{'+debug' if r.get('variant') == 'debug' else ''} {r['scenario']:38} "
                    f"{r['verdict']:10} {'ok  ' if ok else 'FAIL'} "
                    f"{(f'{secs:.0f}s' if isinstance(secs, (int, float)) else '-'):>5}  eta {self.eta()}")
            if revised:
                line += "  (revised)"
            if not ok:
                line += f"  (want {'|'.join(expected)}: {(r.get('details') or {}).get('reason', '')[:120]})"
            if self.tty:
                sys.stdout.write("\r\033[K")
            print(line, flush=True)
            self.status()

    def status(self):
        if self.tty:
            sys.stdout.write(f"  {self.done}/{self.total} done, {self.failed} not as expected, "
                             f"{int(time.monotonic() - self.t0)}s, about {self.eta()} left")
            sys.stdout.flush()

    def finish(self):
        if self.tty:
            sys.stdout.write("\r\033[K")
            sys.stdout.flush()
