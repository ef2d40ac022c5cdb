"""out/report.html: the matrix of a run as one self-contained page.

write_report(matrix_path, html_path) turns a matrix.json (tests/README.md,
"Running scenarios") into a page with no outside references: CSS and
JavaScript inline, plots inline as SVG drawn by matplotlib (Debian's
python3-matplotlib).  One block per tree and variant, scenarios down,
stages across, a coloured cell per (scenario, stage); clicking a cell opens
its results: reason, trigger counts against their minima, the oracle,
where the guest seconds went, a plot of what the scenario's family records,
the boot, and the raw details.

The harness calls it after every run, so it must be quick and must never
fail on a result.  The matrix comes checked by model.load_matrix: its
results have their keys, of their types.  What the guest recorded (a
result's details and timing), the boots' records and the run's facts are
free-form: any key of them may be missing or of the wrong type.  A part
that cannot be drawn says so on the page (class "render-error") instead of
breaking it.  Plots stop after a time budget (a note says which were left
out; tests/report draws them all).

time_profile() is also what tests/bench --only profile prints.
"""

import html
import json
import math
import os
import re
import sys
import time
import warnings

from . import model

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The harness calls write_report at the end of every run: beyond this many
# seconds of drawing, the remaining plots are left out (and say so).  A plot
# costs about 0.1 s of CPU; a full matrix has some 50 (the failover cycles,
# the bad blocks, the livelocks' samples), so on a busy machine the plots
# of results that are as expected and found no bug may be left out.
PLOT_BUDGET_S = 4.0
PHASES = ("setup", "workload", "verify", "evidence", "cleanup")
BAD_BLOCK_CLASSES = ("stale", "unwritten", "misplaced", "torn", "unfilled")


# ---- tolerant access to the free-form parts: any key may be missing or odd -------

def as_dict(x):
    return x if isinstance(x, dict) else {}


def as_list(x):
    return x if isinstance(x, list) else []


def number(x):
    """x as a float if it is a real number (not a bool, not NaN), else None."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return None if math.isnan(x) or math.isinf(x) else float(x)


def text(x, default="?"):
    return x if isinstance(x, str) and x else default


def esc(x):
    # NUL never belongs in a page, and marks the plots' placeholders here.
    return html.escape(str(x), quote=True).replace("\x00", "\ufffd")


def show(v):
    """A detail's value as page text: JSON's words for booleans and null,
    numbers trimmed, lists and objects as compact JSON."""
    if isinstance(v, bool) or v is None:
        return esc(json.dumps(v))
    if isinstance(v, (int, float)):
        return fmt_num(v, 3)
    if isinstance(v, (list, dict)):
        return esc(json.dumps(v))
    return esc(v)


def fmt_num(x, digits=2):
    n = number(x)
    if n is None:
        return "-"
    if n == int(n) and abs(n) < 1e15:
        return str(int(n))
    return f"{n:.{digits}f}"


# ---- the time profile: where the guest seconds went ----------------------------------

def result_phases(r):
    """Where one result's guest seconds went: {'phases': {phase: s},
    'waits': {'wait:X': s}, 'sleeps': {'sleep:Y': s}, 'outside': s,
    'seconds': s, 'total': s, 'wall': s}.

    `seconds` runs from the scenario's start to its verdict, and the phases
    before the verdict partition it; what none covers (the start, the
    verdict itself) is 'outside'.  `cleanup` is the harness's cleanup after
    the verdict (guest.py puts it in timing), so it comes on top: `total`
    is seconds + cleanup, what the scenario costs its boot.  Waits and
    sleeps happen inside the phases (tests/guest/lib.sh times them on
    their own): they are not added to anything."""
    timing = r.timing
    phases, waits, sleeps = {}, {}, {}
    for k, v in timing.items():
        s = number(v)
        if s is None or k == "wall":
            continue
        if k.startswith("wait:"):
            waits[k] = waits.get(k, 0.0) + s
        elif k.startswith("sleep:"):
            sleeps[k] = sleeps.get(k, 0.0) + s
        else:
            phases[k] = phases.get(k, 0.0) + s
    seconds = number(r.seconds) or 0.0
    cleanup = phases.get("cleanup", 0.0)
    before_verdict = sum(v for k, v in phases.items() if k != "cleanup")
    return {"phases": phases, "waits": waits, "sleeps": sleeps,
            "outside": max(0.0, seconds - before_verdict), "seconds": seconds,
            "total": seconds + cleanup, "wall": number(timing.get("wall"))}


def profile_entries(p):
    """[(name, seconds, kind)] of a result_phases() or time_profile(),
    largest first within each kind: the phases and what no phase covered
    (together the guest seconds), the cleanup after the verdict, then the
    waits and sleeps, which are inside the phases."""
    main = [(k, v, "phase") for k, v in p["phases"].items() if k != "cleanup"]
    if p["outside"] > 0.005:
        main.append(("outside any phase", p["outside"], "phase"))
    after = [("cleanup", p["phases"]["cleanup"], "after the verdict")] if "cleanup" in p["phases"] else []
    inside = [(k, v, "inside a phase") for k, v in list(p["waits"].items()) + list(p["sleeps"].items())]
    return (sorted(main, key=lambda e: -e[1]) + after + sorted(inside, key=lambda e: -e[1]))


def _add(into, d):
    for k, v in d.items():
        into[k] = into.get(k, 0.0) + v


def wait_kind(key):
    """'wait:pid 1839' and 'wait:pid 177' are one kind of wait: the numbers
    in a wait's or sleep's name (pids, devices, counts) are left out when
    a matrix's waits are summed."""
    return re.sub(r"\d+", "N", key)


def time_profile(matrix):
    """Guest seconds of a matrix (a model.Matrix) summed per scenario and per
    phase (every wait: and sleep: key too), and the boots' seconds to init."""
    results, boots = matrix.results, matrix.boots
    prof = {"results": len(results), "seconds": 0.0, "total": 0.0, "wall": 0.0, "phases": {}, "waits": {},
            "sleeps": {}, "outside": 0.0, "scenarios": {}, "boots": len(boots),
            "to_init": sum(number(b.get("to_init")) or 0.0 for b in boots),
            "boot_seconds": sum(number(b.get("seconds")) or 0.0 for b in boots)}
    for r in results:
        p = result_phases(r)
        prof["seconds"] += p["seconds"]
        prof["total"] += p["total"]
        prof["wall"] += p["wall"] or 0.0
        prof["outside"] += p["outside"]
        _add(prof["phases"], p["phases"])
        for key in ("waits", "sleeps"):
            for k, v in p[key].items():
                kind = wait_kind(k)
                prof[key][kind] = prof[key].get(kind, 0.0) + v
        sc = prof["scenarios"].setdefault(r.scenario, {
            "results": 0, "seconds": 0.0, "total": 0.0, "phases": {}, "outside": 0.0, "per_stage": {}})
        sc["results"] += 1
        sc["seconds"] += p["seconds"]
        sc["total"] += p["total"]
        sc["outside"] += p["outside"]
        _add(sc["phases"], p["phases"])
        sc["per_stage"].setdefault(r.stage, []).append(p)
    return prof


# ---- plots ------------------------------------------------------------------------

class Plots:
    """The page's plots, drawn by matplotlib (loaded on first use) as inline
    SVG once the page is assembled: draw() leaves a placeholder, render()
    draws in order of priority until the time budget is spent, so that the
    plots left out, if any, are those of the least interesting results.
    Without matplotlib the page has no plots and says why."""

    def __init__(self, budget_s):
        self.budget_s = budget_s
        self.wanted = []          # (priority, n, what, fn, args)
        self.skipped = 0
        # Of the result being rendered: results not as expected, and those
        # that found a bug, are drawn first.
        self.priority = 2

    def draw(self, what, fn, *args, priority=None):
        """A placeholder for the plot fn(Figure, *args), which returns a
        figure or None when there is nothing to draw.  Lower priorities are
        drawn first."""
        n = len(self.wanted)
        self.wanted.append((self.priority if priority is None else priority, n, what, fn, args))
        return f"\x00plot{n}\x00"

    def render(self, page):
        """PAGE with every placeholder replaced by its plot or a note."""
        out = {}
        try:
            Figure = _import_figure()
        except Exception as e:  # any import failure: a page without plots
            note = (f'<p class="note">no plot: matplotlib is missing ({esc(type(e).__name__)}: {esc(e)}); '
                    "tests/setup installs python3-matplotlib</p>")
            Figure, out = None, {w[1]: note for w in self.wanted}
        t0 = time.monotonic()
        for priority, n, what, fn, args in sorted(self.wanted, key=lambda w: w[:2]):
            if Figure is None:
                break
            if self.budget_s is not None and time.monotonic() - t0 >= self.budget_s:
                self.skipped += 1
                out[n] = (f'<p class="note">{esc(what)}: not drawn, the plot budget '
                          f"({self.budget_s:.0f} s) ran out; tests/report draws every plot</p>")
                continue
            out[n] = self._one(Figure, what, fn, args)
        return re.sub("\x00plot([0-9]+)\x00", lambda m: out.get(int(m.group(1)), ""), page)

    def _one(self, Figure, what, fn, args):
        try:
            fig = fn(Figure, *args)
            if fig is None:
                return ""
            svg = _svg_of(fig)
        except Exception as e:  # a bad value must cost one plot, not the page
            return f'<p class="render-error">{esc(what)}: plot failed: {esc(type(e).__name__)}: {esc(e)}</p>'
        return f'<figure class="plot" data-plot="{esc(what)}">{svg}</figure>'


MaxNLocator = None    # matplotlib.ticker's, once matplotlib is loaded


def _import_figure():
    with warnings.catch_warnings():
        # A newer pyparsing of the interpreter's own, beside Debian's
        # matplotlib, warns about names matplotlib still uses: not ours to fix.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import matplotlib
        except ImportError:
            # Debian's python3-matplotlib lives in /usr/lib/python3/dist-packages,
            # which a python3 of its own (pyenv, a venv) does not search.  Last
            # on the path, so that nothing the interpreter has is replaced.
            debian = "/usr/lib/python3/dist-packages"
            if os.path.isdir(debian) and debian not in sys.path:
                sys.path.append(debian)
            import matplotlib
        import matplotlib.mathtext  # noqa: F401  (the import that warns)
    # Figure without pyplot: no GUI backend, no global figure list; savefig
    # picks the SVG canvas from the format.  The settings are global, but
    # nothing else in the harness's process draws.
    from matplotlib.figure import Figure
    global MaxNLocator
    from matplotlib.ticker import MaxNLocator
    matplotlib.rcParams.update({
        "svg.fonttype": "none",        # text stays text: small and quick
        "svg.hashsalt": "rqpath",      # the same ids every run
        "font.size": 8,
        "axes.titlesize": 9,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "figure.dpi": 72,
    })
    return Figure


def few_ticks(*axes):
    """At most about five ticks an axis: quicker to draw (each tick is three
    artists), and enough to read a plot this size."""
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.yaxis.set_major_locator(MaxNLocator(5))


_SVG_HEAD = re.compile(r"^.*?(?=<svg)", re.S)
_svg_count = [0]


def _svg_of(fig):
    import io
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    svg = _SVG_HEAD.sub("", buf.getvalue(), count=1)
    # Several plots share one page, and matplotlib's ids (hashes of the
    # content) repeat between plots: give each plot's ids its own prefix.
    _svg_count[0] += 1
    uid = f"svg{_svg_count[0]}"
    svg = re.sub(r'id="([^"]+)"', lambda m: f'id="{uid}-{m.group(1)}"', svg)
    svg = re.sub(r'(url\(#|xlink:href="#|href="#)([^)"]+)', lambda m: f"{m.group(1)}{uid}-{m.group(2)}", svg)
    return svg


def parse_samples(raw):
    """details.watch_samples as [(t, in_flight, {op: (mapped, busy, completed)})]:
    a list of sample objects or of their JSON lines, or the JSON lines of
    rqpathctl watch --samples as one string; samples that are not such
    objects are left out."""
    if isinstance(raw, str):
        items = []
        for line in raw.splitlines():
            try:
                items.append(json.loads(line))
            except ValueError:
                continue
    elif isinstance(raw, dict):
        items = as_list(raw.get("samples"))
    else:
        # The guest records a file as a list of its lines: JSON, each.
        items = []
        for s in as_list(raw):
            try:
                items.append(json.loads(s) if isinstance(s, str) else s)
            except ValueError:
                continue
    out = []
    for s in items:
        s = as_dict(s)
        t = number(s.get("t"))
        if t is None:
            continue
        ops = {}
        for op, c in as_dict(s.get("ops")).items():
            c = as_list(c)
            if len(c) >= 3 and all(number(v) is not None for v in c[:3]):
                ops[op] = tuple(number(v) for v in c[:3])
        out.append((t, number(s.get("in_flight")), ops))
    out.sort(key=lambda x: x[0])
    return out


def plot_livelock(Figure, samples, watch):
    """Busy hand-backs and completions of each op over the watch: a
    livelock is a busy line that climbs while the completions stay flat."""
    ops = []
    for _, _, o in samples:
        ops += [op for op in o if op not in ops]
    if not ops:
        return None
    fig = Figure(figsize=(7.5, 3.6))
    ax_busy, ax_done = fig.subplots(2, 1, sharex=True)
    for op in ops:
        ts = [t for t, _, o in samples if op in o]
        ax_busy.plot(ts, [o[op][1] for _, _, o in samples if op in o], label=op, lw=1.2)
        ax_done.plot(ts, [o[op][2] for _, _, o in samples if op in o], label=op, lw=1.2)
    ax_busy.set_ylabel("busy hand-backs")
    ax_done.set_ylabel("completions")
    ax_done.set_xlabel("seconds since the watch's first sample")
    ax_busy.set_title("rqpathctl watch --samples: counters per op")
    few_ticks(ax_busy, ax_done)
    stall, decision = number(watch.get("stall_start_s")), number(watch.get("decision_s"))
    # Completions that never moved sit on the axis, not in mid-air.
    top = max((o[op][2] for _, _, o in samples for op in o), default=0)
    ax_done.set_ylim(0, top * 1.05 if top > 0 else 1)
    for ax in (ax_busy, ax_done):
        if stall is not None:
            ax.axvline(stall, color="0.5", ls=":", lw=1)
        if decision is not None:
            ax.axvline(decision, color="#c62828", ls="--", lw=1)
    ax_busy.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, fontsize=7)
    marks = []
    if stall is not None:
        marks.append("dotted:\nstall window\nstart")
    if decision is not None:
        marks.append("dashed:\nwatch verdict")
    if marks:
        ax_done.text(1.02, 1.0, "\n".join(marks), transform=ax_done.transAxes, ha="left",
                     va="top", fontsize=7, color="0.3")
    fig.subplots_adjust(left=0.1, right=0.8, top=0.92, bottom=0.13, hspace=0.12)
    return fig


def class_colour(cls):
    palette = {"stale": "#d62728", "unwritten": "#1f77b4", "misplaced": "#9467bd",
               "torn": "#ff7f0e", "unfilled": "#2ca02c"}
    return palette.get(cls, "#7f7f7f")


def plot_bad_blocks(Figure, blocks):
    """Where (LBA) and when (guest seconds of workload) rqcheck found each bad
    block, coloured by its class."""
    pts = []
    for b in blocks:
        b = as_dict(b)
        lba, t = number(b.get("lba")), number(b.get("found_seconds"))
        if lba is None:
            continue
        pts.append((t, lba, number(b.get("lba_last")), text(b.get("class"), "unknown")))
    if not pts:
        return None
    fig = Figure(figsize=(7.5, 2.8))
    ax_time, ax_lba = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    classes = [c for c in BAD_BLOCK_CLASSES if any(p[3] == c for p in pts)]
    classes += sorted({p[3] for p in pts} - set(classes))
    for c in classes:
        mine = [p for p in pts if p[3] == c]
        timed = [p for p in mine if p[0] is not None]
        ax_time.scatter([p[0] for p in timed], [p[1] for p in timed], s=14,
                        color=class_colour(c), label=f"{c} ({len(mine)})")
    few_ticks(ax_time, ax_lba)
    ax_time.set_xlabel("found after (s of workload)")
    ax_time.set_ylabel("LBA")
    ax_time.set_title("bad blocks: where and when")
    ax_time.legend(fontsize=7, loc="best")
    lbas = sorted(p[1] for p in pts)
    lo, hi = lbas[0], lbas[-1]
    bins = max(1, min(20, len(set(lbas))))
    ax_lba.hist([[p[1] for p in pts if p[3] == c] for c in classes], bins=bins,
                range=(lo, hi if hi > lo else lo + 1), stacked=True,
                color=[class_colour(c) for c in classes])
    ax_lba.set_xlabel("LBA")
    ax_lba.set_ylabel("bad blocks")
    ax_lba.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax_lba.set_title("by LBA")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.88, bottom=0.17, wspace=0.3)
    return fig


def cycle_times(c):
    """(seconds from the fault to the map dropping the path, seconds from the
    path's return to the map using it again) of one failover cycle."""
    c = as_dict(c)
    f, d, r, b = (number(c.get(k)) for k in ("fault_s", "dropped_s", "restored_s", "back_s"))
    drop = d - f if f is not None and d is not None else None
    back = b - r if r is not None and b is not None else None
    return drop, back


def plot_failover(Figure, cycles):
    """Per cycle: seconds to drop the failed path and to take it back, and a
    mark where no I/O reached the returned path."""
    rows = []
    for i, c in enumerate(cycles):
        drop, back = cycle_times(c)
        if drop is None and back is None:
            continue
        n = number(as_dict(c).get("cycle"))
        rows.append((int(n) if n is not None else i + 1, drop or 0.0, back or 0.0,
                     as_dict(c).get("io_after_return"), as_dict(c).get("down_seen")))
    if not rows:
        return None
    fig = Figure(figsize=(7.5, 2.6))
    ax = fig.subplots()
    xs = [r[0] for r in rows]
    w = 0.4
    ax.bar([x - w / 2 for x in xs], [r[1] for r in rows], w, color="#ef6c00", label="fault to path dropped")
    ax.bar([x + w / 2 for x in xs], [r[2] for r in rows], w, color="#1565c0", label="return to path used again")
    top = max(max(r[1], r[2]) for r in rows) or 1.0
    no_io = [r for r in rows if r[3] in (0, False)]
    unseen = [r for r in rows if r[4] in (0, False)]
    if no_io:
        ax.scatter([r[0] for r in no_io], [top * 1.08] * len(no_io), marker="x", color="#c62828",
                   label="no I/O on the returned path")
    if unseen:
        ax.scatter([r[0] for r in unseen], [top * 1.16] * len(unseen), marker="v", color="#6a1b9a",
                   label="path loss not seen")
    few_ticks(ax)
    ax.set_xlabel("cycle")
    ax.set_ylabel("seconds")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"failover cycles: {len(rows)}, I/O reached the returned path in "
                 f"{sum(1 for r in rows if r[3] in (1, True))}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_ylim(0, top * 1.22)
    fig.subplots_adjust(left=0.07, right=0.7, top=0.88, bottom=0.17)
    return fig


def plot_profile(Figure, prof, limit=25):
    """Guest seconds per scenario (summed over its results), split by phase."""
    scen = sorted(prof["scenarios"].items(), key=lambda kv: -kv[1]["total"])[:limit]
    if not scen:
        return None
    names = [n for n, _ in scen][::-1]
    # In the order they happen, the cleanup after the verdict last.
    phases = [p for p in PHASES if p != "cleanup" and any(s["phases"].get(p) for _, s in scen)]
    phases += sorted({p for _, s in scen for p in s["phases"]} - set(phases) - {"cleanup"})
    colours = ["#90caf9", "#ef6c00", "#66bb6a", "#ab47bc", "#bdbdbd", "#8d6e63", "#26a69a", "#ec407a"]
    fig = Figure(figsize=(7.5, 1.2 + 0.2 * len(names)))
    ax = fig.subplots()
    left = [0.0] * len(names)
    segments = [(p, [prof["scenarios"][n]["phases"].get(p, 0.0) for n in names]) for p in phases]
    segments.append(("outside any phase", [prof["scenarios"][n]["outside"] for n in names]))
    segments.append(("cleanup after the verdict", [prof["scenarios"][n]["phases"].get("cleanup", 0.0) for n in names]))
    for i, (p, vals) in enumerate(segments):
        colour = {"outside any phase": "#eeeeee", "cleanup after the verdict": "#9e9e9e"}.get(
            p, colours[i % len(colours)])
        ax.barh(names, vals, left=left, color=colour, edgecolor="0.6", lw=0.3, label=p)
        left = [a + b for a, b in zip(left, vals)]
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.set_xlabel("guest seconds (summed over the scenario's results)")
    ax.set_title("where the guest seconds went" + (f" (the {limit} largest scenarios)" if len(prof["scenarios"]) > limit else ""))
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.tick_params(axis="y", labelsize=7)
    fig.subplots_adjust(left=0.3, right=0.74, top=1 - 0.35 / fig.get_figheight(),
                        bottom=0.45 / fig.get_figheight())
    return fig


# ---- page parts ---------------------------------------------------------------------

def table(headers, rows, cls=""):
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def verdict_badge(v):
    v = text(v, "none")
    return f'<span class="verdict v-{esc(re.sub(r"[^a-z]", "", v) or "none")}">{esc(v)}</span>'


def section_trigger(details):
    t = as_dict(details.get("trigger"))
    if not t:
        return ""
    counts, minimum = as_dict(t.get("counts")), as_dict(t.get("minimum"))
    rows = []
    for name in list(counts) + [k for k in minimum if k not in counts]:
        c, m = number(counts.get(name)), number(minimum.get(name))
        short = c is None or (m is not None and c < m)
        margin = f"{c / m:.1f}x" if c is not None and m else "-"
        rows.append([esc(name), fmt_num(c), fmt_num(m), margin,
                     '<span class="bad">below</span>' if short else "ok"])
    met = t.get("met")
    head = (f'<h4>trigger evidence: family {esc(text(t.get("family")))}, '
            f'{"met" if met is True else "NOT met" if met is False else "met: ?"}</h4>')
    return head + table(["count", "value", "minimum", "value / minimum", ""], rows, "data")


def section_oracle(details):
    """The merge oracle: `oracle`, and the `oracle_<run>` snapshots of a
    scenario that resets it between its runs."""
    keys = ["oracle"] + sorted(k for k in details if k.startswith("oracle_"))
    return "".join(oracle_block(k, details[k]) for k in keys if isinstance(details.get(k), dict))


def oracle_block(key, o):
    names = ("count", "front_merges", "back_merges", "unattributed_merges", "missed_probes")
    summary = ", ".join(f"{k.replace('_', ' ')} {fmt_num(o.get(k))}" for k in names if k in o)
    label = "merge oracle" + (f" ({key[len('oracle_'):]})" if key != "oracle" else "")
    out = f"<h4>{esc(label)}: {esc(summary or 'no counts')}</h4>"
    first = [f for f in as_list(o.get("first")) if isinstance(f, dict)]
    if first:
        out += "<p>first violations:</p>" + dict_table(first)
    return out


def dict_table(rows):
    """A table of flat dicts, one column per key seen."""
    cols = []
    for row in rows:
        cols += [k for k in row if k not in cols]
    return table(cols, [[show(row[k]) if k in row else "" for k in cols] for row in rows], "data")


def section_timing(r):
    p = result_phases(r)
    if not (p["phases"] or p["waits"] or p["sleeps"]):
        return "<h4>timing</h4><p class=note>no timing recorded</p>"
    total = p["total"] or 1.0
    rows = []
    for k, v, kind in profile_entries(p):
        pct = max(0.0, min(100.0, 100.0 * v / total))
        rows.append([esc(k), fmt_num(v), esc(kind),
                     f'<span class="bar" style="width:{pct:.1f}%"></span>'])
    wall = f"; host wall {fmt_num(p['wall'], 1)} s" if p["wall"] is not None else ""
    return (f"<h4>timing: {fmt_num(p['seconds'])} guest seconds to the verdict, "
            f"{fmt_num(p['total'])} with the cleanup{wall}</h4>"
            + table(["phase", "seconds", "", "share of the guest seconds"], rows, "kv timing"))


def section_livelock(details, plots):
    w = details.get("watch")
    out = []
    if isinstance(w, dict):
        facts = [("watch verdict", w.get("verdict")), ("exit", w.get("exit")),
                 ("detection latency s", w.get("detection_latency_s")),
                 ("submission to verdict s", w.get("verdict_after_op_start_s")),
                 ("stuck ops", ", ".join(map(str, as_list(w.get("stuck_ops")))) or None),
                 ("samples", w.get("samples"))]
        out.append("<h4>livelock watchdog</h4>" + kv_table(facts))
    elif isinstance(w, str):
        out.append(f"<h4>livelock watchdog</h4><p>{esc(w)}</p>")
    ht = as_dict(details.get("hung_task"))
    op = as_dict(details.get("op"))
    tr = as_dict(details.get("trace_dm"))
    facts = []
    if op:
        facts += [("operation", op.get("command")), ("completed", op.get("completed")),
                  ("observed s", op.get("observed_s"))]
    if ht:
        facts += [("hung-task report", ht.get("reported")), ("reported after s", ht.get("reported_at_s"))]
    if tr:
        facts += [("dm trace: issues / requeues / completions",
                   f"{fmt_num(tr.get('issue'))} / {fmt_num(tr.get('requeue'))} / {fmt_num(tr.get('complete'))}")]
    if facts:
        out.append(kv_table(facts))
    if "watch_samples" in details:
        samples = parse_samples(details.get("watch_samples"))
        if samples:
            out.append(plots.draw("livelock samples", plot_livelock, samples, as_dict(w)))
        else:
            out.append('<p class="note">watch_samples holds no usable sample</p>')
    return "".join(out)


def section_corruption(details, plots):
    out = []
    rq = details.get("rqcheck")
    if isinstance(rq, dict):
        totals = as_dict(rq.get("totals"))
        facts = [("rqcheck result", rq.get("result")), ("bad blocks", totals.get("bad")),
                 ("blocks verified", totals.get("blocks_verified")),
                 ("first bad after s", rq.get("first_bad_seconds")),
                 ("classes", ", ".join(f"{k} {v}" for k, v in as_dict(totals.get("classes")).items() if v) or None)]
        out.append("<h4>data check (rqcheck)</h4>" + kv_table(facts))
        blocks = as_list(rq.get("bad_blocks"))
        if blocks:
            out.append(plots.draw("bad blocks", plot_bad_blocks, blocks))
    runs = [x for x in as_list(details.get("runs")) if isinstance(x, dict)]
    if runs:
        out.append("<h4>runs</h4>" + dict_table(runs))
    if "fio_verify_failures" in details:
        out.append(f"<h4>fio verify: {esc(fmt_num(details.get('fio_verify_failures')))} failures</h4>")
        msgs = details.get("fio_verify_messages")
        if msgs:
            out.append(f"<pre class=small>{esc(msgs if isinstance(msgs, str) else json.dumps(msgs, indent=1))}</pre>")
    return "".join(out)


def section_watchdog(details):
    """watchdog-no-false-alarm: the followed watches over a progressing load."""
    if "false_alarms" not in details and "watch_sessions" not in details:
        return ""
    facts = [("false alarms", details.get("false_alarms")), ("watch sessions", details.get("watch_sessions")),
             ("watch exits", details.get("watch_exits")),
             ("busy hand-backs per completion", details.get("busy_per_completion")),
             ("longest flat s (max_flat_s)", details.get("max_flat_s")), ("load s", details.get("load_s"))]
    phases = [{k: v for k, v in p.items() if not isinstance(v, (dict, list))}
              for p in as_list(details.get("phases")) if isinstance(p, dict)]
    return ("<h4>watchdog over a progressing load</h4>" + kv_table(facts)
            + (dict_table(phases) if phases else ""))


def section_failover(details, plots):
    cycles = as_list(details.get("cycles"))
    if not cycles:
        return ""
    rows = []
    for c in cycles:
        c = as_dict(c)
        drop, back = cycle_times(c)
        rows.append([esc(c.get("cycle", "")), esc(c.get("method", "")), esc(c.get("old", "")),
                     esc(c.get("new", "")), fmt_num(drop), fmt_num(back),
                     esc(c.get("down_seen", "")), esc(c.get("io_after_return", ""))])
    counts = as_dict(details.get("counts"))
    head = "<h4>failover cycles" + (
        f": {esc(', '.join(f'{k} {v}' for k, v in counts.items()))}" if counts else "") + "</h4>"
    return (head + plots.draw("failover cycles", plot_failover, cycles)
            + "<details><summary>per cycle</summary>"
            + table(["cycle", "method", "old", "new", "drop s", "back s", "down seen", "I/O after return"],
                    rows, "data") + "</details>")


def kv_table(facts):
    rows = [[esc(k), show(v)] for k, v in facts if v is not None and v != ""]
    return table(["", ""], rows, "kv") if rows else ""


def section_boot(r, boots):
    b = boots.get(r.boot, {})
    parts = [f"boot <code>{esc(text(r.boot, 'unknown'))}</code>"]
    if b:
        parts.append(f"{fmt_num(b.get('seconds'), 1)} s host wall, init after {fmt_num(b.get('to_init'), 1)} s")
        names = [str(s) for s in as_list(b.get("scenarios"))]
        if names:
            parts.append(f"ran {esc(', '.join(names))}")
        for k in ("stopped", "killed"):
            if b.get(k):
                parts.append(f"{k}: {esc(b.get(k))}")
    if b.get("_logs"):
        parts.append(f'logs: <a href="{esc(b["_logs"])}">{esc(b["_logs"])}</a>')
    return "<p class=boot>" + "; ".join(parts) + "</p>"


def result_block(r, boots, plots, n, of):
    d = r.details
    ok = r.passed
    plots.priority = 1 if not ok or r.verdict in model.BUG_FOUND else 2
    head = (f'<h3>{"boot " + str(n) + " of " + str(of) + ": " if of > 1 else ""}'
            f'{verdict_badge(r.verdict)} '
            f'<span class="{"ok" if ok else "bad"}">{"as expected" if ok else "NOT as expected"}</span> '
            f'(expected {esc("|".join(r.expected))}), kernel {esc(text(r.kernel))}, '
            f'{fmt_num(r.seconds)} guest s</h3>')
    parts = [head]
    reason = d.get("reason")
    if reason:
        parts.append(f'<p class="reason">{esc(reason)}</p>')
    parts.append(section_boot(r, boots))
    for fn in (section_trigger, section_oracle):
        parts.append(guarded(fn.__name__, fn, d))
    parts.append(guarded("livelock", section_livelock, d, plots))
    parts.append(guarded("corruption", section_corruption, d, plots))
    parts.append(guarded("failover", section_failover, d, plots))
    parts.append(guarded("watchdog", section_watchdog, d))
    parts.append(guarded("timing", section_timing, r))
    raw = json.dumps(d, indent=1, default=str)
    parts.append(f'<details class="raw"><summary>raw details JSON ({len(raw) // 1024 + 1} KiB)</summary>'
                 f"<pre>{esc(raw)}</pre></details>")
    return '<div class="result">' + "".join(parts) + "</div>"


def guarded(what, fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # one odd value costs one section, never the page
        return f'<p class="render-error">{esc(what)}: {esc(type(e).__name__)}: {esc(e)}</p>'


# ---- the matrix -----------------------------------------------------------------------

def cell_text(rs):
    verdicts = [r.verdict for r in rs]
    if len(set(verdicts)) == 1:
        return verdicts[0] + (f" {len(rs)}/{len(rs)}" if len(rs) > 1 else "")
    counts = {v: verdicts.count(v) for v in verdicts}
    return " ".join(f"{v} {n}/{len(rs)}" for v, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def cell_class(rs):
    if not all(r.passed for r in rs):
        return "fail"
    return "measured" if model.is_measured(rs[0].expected) else "ok"


def stage_order(matrix, results):
    order = []
    for k in as_list(matrix.meta.get("kernels")):
        st = as_dict(k).get("stage")
        if isinstance(st, str) and st not in order:
            order.append(st)
    for r in results:
        if r.stage not in order:
            order.append(r.stage)
    return order


def scenario_summaries():
    """'# summary:' of every scenario file, for the cells' titles."""
    out = {}
    d = os.path.join(TOP, "tests", "scenarios")
    try:
        names = os.listdir(d)
    except OSError:
        return out
    for n in names:
        if not n.endswith(".sh"):
            continue
        try:
            with open(os.path.join(d, n), errors="replace") as f:
                for line in f:
                    if line.startswith("# summary:"):
                        out[n[:-3]] = line.split(":", 1)[1].strip()
                        break
                    if line.strip() and not line.startswith("#"):
                        break
        except OSError:
            pass
    return out


def render_blocks(matrix, results, boots, plots, summaries):
    """The blocks of the matrix, the cells' panels, and {(tree, variant,
    scenario, stage): the id of the cell}."""
    stages_all = stage_order(matrix, results)
    blocks = {}
    for r in results:
        blocks.setdefault((r.tree, r.variant), []).append(r)
    html_blocks, panels, cell_ids = [], [], {}
    ncell = 0
    for (tree, variant) in sorted(blocks):
        rs = blocks[(tree, variant)]
        stages = [s for s in stages_all if any(r.stage == s for r in rs)]
        cells = {}
        for r in rs:
            cells.setdefault((r.scenario, r.stage), []).append(r)
        scenarios = sorted({r.scenario for r in rs})
        title = f"tree {tree}" + (" (debug kernels)" if variant == "debug" else "")
        rows = []
        for sc in scenarios:
            tds = []
            for st in stages:
                cr = cells.get((sc, st))
                if not cr:
                    tds.append('<td class="empty">-</td>')
                    continue
                ncell += 1
                cid = f"cell-{ncell}"
                cr.sort(key=lambda r: r.boot)
                cell_ids[(tree, variant, sc, st)] = cid
                cls = cell_class(cr)
                label = cell_text(cr)
                tip = f"{sc} on {st}: {label} (expected {'|'.join(cr[0].expected)})"
                tds.append(f'<td><button type="button" class="cell {cls}" data-cell="{cid}" '
                           f'aria-controls="panel" title="{esc(tip)}">'
                           f'{"" if cls == "ok" else "~ " if cls == "measured" else "FAIL "}{esc(label)}</button></td>')
                panels.append(cell_panel(cid, title, sc, st, cr, boots, plots, summaries.get(sc)))
            rows.append(f'<tr><th class="scn" title="{esc(summaries.get(sc, ""))}">{esc(sc)}</th>{"".join(tds)}</tr>')
        head = "".join(f"<th>{esc(s)}</th>" for s in stages)
        html_blocks.append(f'<section class="block"><h2>{esc(title)}</h2><table class="matrix">'
                           f'<thead><tr><th>scenario \\ stage</th>{head}</tr></thead>'
                           f'<tbody>{"".join(rows)}</tbody></table></section>')
    return "".join(html_blocks), "".join(panels), cell_ids


def cell_panel(cid, title, sc, st, rs, boots, plots, summary):
    body = "".join(guarded("result", result_block, r, boots, plots, i + 1, len(rs)) for i, r in enumerate(rs))
    return (f'<section class="cell-details" id="{cid}" data-scenario="{esc(sc)}" data-stage="{esc(st)}" hidden>'
            f'<h2>{esc(sc)} on {esc(st)} <small>({esc(title)}; {len(rs)} result{"s" if len(rs) != 1 else ""})</small></h2>'
            + (f'<p class="summary">{esc(summary)}</p>' if summary else "")
            + (guarded("boots", boots_overview, rs) if len(rs) > 1 else "") + body + "</section>")


def boots_overview(rs):
    """Several boots of one cell at a glance, before each in full."""
    rows = [[str(i + 1), f"<code>{esc(text(r.boot, '?'))}</code>", verdict_badge(r.verdict),
             fmt_num(r.seconds), esc(str(r.details.get("reason", ""))[:160])]
            for i, r in enumerate(rs)]
    return table(["", "boot", "verdict", "guest s", "reason"], rows, "data")


def render_header(matrix, results, source, cell_ids):
    npass = sum(1 for r in results if r.passed)
    meta = matrix.meta
    kernels = ", ".join(f"{esc(as_dict(k).get('tree', '?'))}/{esc(as_dict(k).get('stage', '?'))}"
                        + (" debug" if as_dict(k).get("variant") == "debug" else "")
                        for k in as_list(meta.get("kernels")))
    timing = matrix.timing
    facts = [("results", f"{len(results)}: {npass} as expected, {len(results) - npass} not"),
             ("kernels", kernels or "-"),
             ("accel", esc(meta.get("accel", "?"))),
             ("parallel guests x vCPUs", f"{esc(meta.get('jobs', '?'))} x {esc(meta.get('guest_cpus', '?'))}"),
             ("shard", esc(meta.get("shard")) if meta.get("shard") else "-"),
             ("build / boot seconds", f"{fmt_num(timing.get('build_seconds'), 1)} / "
              f"{fmt_num(timing.get('boot_seconds'), 1)} in {fmt_num(timing.get('boots'))} boots")]
    rows = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts)
    failed = [(r, cell_ids.get((r.tree, r.variant, r.scenario, r.stage), "")) for r in results if not r.passed]
    fail_list = ""
    if failed:
        items = "".join(
            f'<li><a href="#{esc(cid)}" data-open="{esc(cid)}">'
            f'{esc(r.tree)} {esc(r.stage)} <b>{esc(r.scenario)}</b></a>: '
            f'{verdict_badge(r.verdict)} (expected {esc("|".join(r.expected))}) '
            f'{esc(str(r.details.get("reason", ""))[:200])}</li>' for r, cid in failed)
        fail_list = f'<h3>not as expected</h3><ul class="failed">{items}</ul>'
    return (f'<header><h1>rqpath matrix</h1><p class="source">from <code>{esc(source)}</code>, '
            f'report written {esc(time.strftime("%Y-%m-%d %H:%M:%S"))}</p>'
            f'<table class="facts">{rows}</table>{fail_list}'
            '<p class="legend"><span class="cell ok">as expected</span> '
            '<span class="cell measured">~ measured (either verdict accepted)</span> '
            '<span class="cell fail">FAIL not as expected</span> '
            '&nbsp;click a cell for its results and evidence</p></header>')


def render_mutants(matrix):
    """The kill matrix of a --mutants run (tests/run, kill_matrix): a row
    per mutant, the cells that killed it and those that could not decide."""
    trees = as_dict(matrix.meta.get("mutants"))
    rows = []
    for tree in sorted(trees):
        for name, e in sorted(as_dict(trees[tree]).items()):
            e = as_dict(e)
            killers = ", ".join(f"{text(k.get('scenario'))} ({text(k.get('verdict'))})"
                                for k in map(as_dict, as_list(e.get("killed_by"))))
            undecided = ", ".join(f"{text(u.get('scenario'))} ({text(u.get('verdict'))})"
                                  for u in map(as_dict, as_list(e.get("undecided"))))
            state = f"killed by {len(as_list(e.get('killed_by')))}" if e.get("killed") else "SURVIVED"
            rows.append([esc(tree), f"<code>{esc(name)}</code>", esc(state), esc(killers or "-"),
                         esc(undecided or "-"), esc(text(e.get("cells")))])
    if not rows:
        return ""
    return ('<section class="mutants"><h2>mutants: the kill matrix</h2>'
            "<p>Each mutant (patches/mutants) is stock with one deliberate bug; a cell kills it "
            "when its verdict is not stock's.  A cell that could not judge (error, skipped) "
            "kills nothing.</p>"
            + table(["tree", "mutant", "state", "killed by", "undecided", "cells"], rows) + "</section>")


def render_profile(matrix, plots):
    prof = time_profile(matrix)
    if not prof["results"]:
        return ""
    rows = []
    total = prof["total"] or 1.0
    for k, v, kind in profile_entries(prof):
        rows.append([esc(k), fmt_num(v, 1), esc(kind), f"{100 * v / total:.1f}%"])
    boots = (f"{prof['boots']} boots: {fmt_num(prof['boot_seconds'], 1)} host seconds, of which "
             f"{fmt_num(prof['to_init'], 1)} until init")
    return ('<section class="profile"><h2>time profile</h2>'
            f"<p>{fmt_num(prof['total'], 1)} guest seconds in {prof['results']} results, "
            f"{fmt_num(prof['phases'].get('cleanup', 0.0), 1)} of them cleaning up after the verdict "
            f"(host wall {fmt_num(prof['wall'], 1)} s); {esc(boots)}.  Waits and sleeps happen inside "
            "the phases: their share is part of the phase they were in.</p>"
            + plots.draw("time profile", plot_profile, prof, priority=0)
            + "<details><summary>every phase, wait and sleep, summed over the results</summary>"
            + table(["phase", "guest seconds", "", "share"], rows, "kv") + "</details></section>")


CSS = """
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
main{padding:12px 20px}
body.panel-open main{margin-right:min(52vw,920px)}
h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:14px 0 6px}h3{font-size:14px;margin:8px 0}
h4{font-size:13px;margin:10px 0 4px}
table{border-collapse:collapse}
table.facts th{text-align:left;padding:1px 10px 1px 0;font-weight:600}
section.block{overflow-x:auto}
table.matrix th,table.matrix td{border:1px solid #ddd;padding:2px}
table.matrix thead th{background:#eee;padding:4px 8px}
table.matrix th.scn{text-align:left;font-weight:500;padding:2px 8px;white-space:nowrap}
td.empty{color:#aaa;text-align:center}
.cell{display:inline-block;border:1px solid #aaa;border-radius:3px;padding:3px 8px;font:inherit;
 cursor:pointer;width:100%;text-align:left;white-space:nowrap;box-sizing:border-box}
.cell.ok{background:#d9f2dc;border-color:#81c784}.cell.measured{background:#dde8f5;border-color:#90a4c8}
.cell.fail{background:#f9d2d2;border-color:#e57373;font-weight:600}
.cell[aria-expanded=true]{outline:2px solid #1565c0}
p.legend .cell{width:auto;cursor:default}
.verdict{padding:0 5px;border-radius:3px;color:#fff;background:#757575}
.v-clean{background:#2e7d32}.v-corrupted,.v-violated{background:#6a1b9a}.v-livelocked{background:#e65100}
.v-warned,.v-hung,.v-crashed,.v-error{background:#c62828}.v-skipped{background:#9e9e9e}
.ok{color:#2e7d32}.bad{color:#c62828;font-weight:600}
#panel{position:fixed;top:0;right:0;width:min(52vw,920px);height:100vh;overflow:auto;background:#fff;
 border-left:1px solid #bbb;box-shadow:-2px 0 8px rgba(0,0,0,.15);padding:0 16px 40px;box-sizing:border-box}
#panel-bar{position:sticky;top:0;background:#fff;padding:8px 0;border-bottom:1px solid #eee;z-index:1}
.cell-details{scroll-margin-top:48px}
.result{border-top:2px solid #ddd;margin-top:10px}
table.kv td,table.kv th,table.data td,table.data th{border:1px solid #e3e3e3;padding:1px 6px;text-align:left;vertical-align:top}
table.kv thead{display:none}table.timing thead{display:table-header-group}
table.data{font-size:12px}
.bar{display:inline-block;height:9px;background:#64b5f6;min-width:1px}
table.timing td:last-child{width:40%}table.timing td:nth-child(3){white-space:nowrap}
pre{background:#f4f4f4;padding:6px;overflow:auto;max-height:60vh;font-size:11px}
pre.small{max-height:12em}
.note{color:#666;font-style:italic}.render-error{color:#c62828;font-weight:600}
figure.plot{margin:6px 0}figure.plot svg{max-width:100%;height:auto}
ul.failed li{margin:2px 0}
"""

JS = """
(function () {
  var panel = document.getElementById('panel');
  var shown = null;
  function mark(id) {
    var cells = document.querySelectorAll('.cell[data-cell]');
    for (var i = 0; i < cells.length; i++)
      cells[i].setAttribute('aria-expanded', cells[i].getAttribute('data-cell') === id ? 'true' : 'false');
  }
  function show(id) {
    var s = document.getElementById(id);
    if (!s || !s.classList.contains('cell-details')) return false;
    if (shown) shown.hidden = true;
    s.hidden = false;
    shown = s;
    panel.hidden = false;
    panel.setAttribute('data-showing', id);
    document.body.classList.add('panel-open');
    panel.scrollTop = 0;
    mark(id);
    try { history.replaceState(null, '', '#' + id); } catch (e) { /* file: URLs may refuse */ }
    return true;
  }
  function hide() {
    if (shown) shown.hidden = true;
    shown = null;
    panel.hidden = true;
    panel.removeAttribute('data-showing');
    document.body.classList.remove('panel-open');
    mark(null);
  }
  document.addEventListener('click', function (e) {
    var t = e.target.closest('[data-cell],[data-open]');
    if (t) { e.preventDefault(); show(t.getAttribute('data-cell') || t.getAttribute('data-open')); }
  });
  document.getElementById('panel-close').addEventListener('click', hide);
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') hide(); });
  // A link to a cell (report.html#cell-3) opens it, on load and later.
  function follow() { if (location.hash.length > 1) show(location.hash.slice(1)); }
  window.addEventListener('hashchange', follow);
  follow();
})();
"""


def boots_of(matrix, logs_dir, page_dir):
    """{tag: boot}, each with `_logs`, the link from the page to the boot's
    directory of logs when that exists (out/logs/TAG/, next to matrix.json)."""
    boots = {}
    for b in matrix.boots:
        if not isinstance(b.get("boot"), str):
            continue
        b = dict(b)
        d = os.path.join(logs_dir, b["boot"]) if logs_dir else None
        if d and page_dir and os.path.isdir(d):
            b["_logs"] = os.path.relpath(d, page_dir) + "/"
        boots[b["boot"]] = b
    return boots


def render_page(matrix, source, plot_budget_s=PLOT_BUDGET_S, logs_dir=None, page_dir=None):
    """The whole page of MATRIX (a model.Matrix) as a string (see
    write_report); logs_dir: where the boots' logs are, page_dir: where
    the page goes (for links to them)."""
    results = matrix.results
    boots = boots_of(matrix, logs_dir, page_dir)
    plots = Plots(plot_budget_s)
    profile = guarded("time profile", render_profile, matrix, plots)
    blocks, panels, cell_ids = render_blocks(matrix, results, boots, plots, scenario_summaries())
    blocks += guarded("kill matrix", render_mutants, matrix)
    header = render_header(matrix, results, source, cell_ids) + "\x00skipped\x00"
    if not results:
        blocks = '<p class="note">no results in this matrix</p>'
    page = plots.render(page_text(results, header, blocks, profile, panels))
    skipped = ""
    if plots.skipped:
        skipped = (f'<p class="note">{plots.skipped} plots were left out to keep this report quick '
                   f"(budget {plots.budget_s:.0f} s); <code>tests/report</code> draws them all.</p>")
    return page.replace("\x00skipped\x00", skipped, 1)


def page_text(results, header, blocks, profile, panels):
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            "<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>rqpath matrix: {len(results)} results</title><style>{CSS}</style></head><body>"
            f"<main>{header}{blocks}{profile}</main>"
            '<aside id="panel" role="dialog" aria-label="results of a cell" hidden tabindex="-1">'
            '<div id="panel-bar"><button type="button" id="panel-close">close (Esc)</button></div>'
            f"{panels}</aside><script>{JS}</script></body></html>\n")


def write_report(matrix_path, html_path, plot_budget_s=PLOT_BUDGET_S):
    """Read MATRIX_PATH (a matrix.json) and write the page to HTML_PATH
    (atomically: a reader never sees half a page).  Raises OSError or
    ValueError only when the matrix cannot be read (model.MatrixError: a
    file that is not a matrix of this schema) or the page not written;
    whatever the details hold, the page is made.  plot_budget_s=None draws
    every plot."""
    d = os.path.dirname(os.path.abspath(html_path))
    logs = os.path.join(os.path.dirname(os.path.abspath(matrix_path)), "logs")
    page = render_page(model.load_matrix(matrix_path), matrix_path, plot_budget_s, logs, d)
    os.makedirs(d, exist_ok=True)
    tmp = html_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, html_path)
    return html_path
