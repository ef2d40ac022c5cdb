"""A matrix as KTAP version 1 (the kernel's Documentation/dev-tools/ktap.rst):
the format kernel CI tools read (kunit.py parse, LAVA, KernelCI's parsers).

One test per kernel (tree/stage, +debug for the debug kernels), whose
subtests are its cells: a scenario's results on that kernel, one per boot.
A cell is `ok` when every result is as expected, as in the matrix; its
verdicts and expectation go in a diagnostic line before it, with the
reason of each result that was not as expected.  A cell whose results are
all `skipped` carries the SKIP directive, and stays `not ok`: skipped
never passes.  A kernel is `ok` when every cell is.
"""

import os

from .model import Verdict
from .report import verdict_counts

INDENT = "  "         # one level of nesting, as ktap.rst says
REASON_CHARS = 200    # of a result's reason, on one diagnostic line


def one_line(text, limit=REASON_CHARS):
    return " ".join(str(text).split())[:limit]


def description(text):
    """TEXT as a test's description, which may hold any character but '#'
    and a newline."""
    return one_line(text, 1000).replace("#", "_") or "-"


def reason(r):
    why = r.details.get("reason")
    return one_line(why) if isinstance(why, str) and why.strip() else "no reason given"


def kernels_and_cells(results):
    """{kernel label: {scenario: [results]}}, in the order the results come."""
    out = {}
    for r in results:
        out.setdefault(r.kernel_label, {}).setdefault(r.scenario, []).append(r)
    return out


def cell_lines(n, scenario, results):
    """A cell's diagnostic lines and its test line, test N of its kernel."""
    passed = all(r.passed for r in results)
    expected = "|".join(results[0].expected)
    lines = [f"# {scenario}: {verdict_counts([r.verdict for r in results])} (expected {expected})"]
    lines += [f"# {scenario}: boot {r.boot}: {r.verdict}: {reason(r)}" for r in results if not r.passed]
    line = f"{'ok' if passed else 'not ok'} {n} {description(scenario)}"
    if all(r.verdict == Verdict.SKIPPED for r in results):
        line += f" # SKIP {description(reason(results[0]))}"
    return lines + [line]


def render(matrix):
    """MATRIX (a model.Matrix) as KTAP text."""
    kernels = kernels_and_cells(matrix.results)
    cells = sum(len(c) for c in kernels.values())
    failed = sum(not all(r.passed for r in rs) for c in kernels.values() for rs in c.values())
    out = ["KTAP version 1", f"1..{len(kernels)}",
           f"# rqpath matrix: {len(matrix.results)} results in {cells} cells, {cells - failed} as expected"]
    for k, (label, scenarios) in enumerate(kernels.items(), 1):
        out += [INDENT + "KTAP version 1", f"{INDENT}# Subtest: {description(label)}", f"{INDENT}1..{len(scenarios)}"]
        for n, (scenario, results) in enumerate(scenarios.items(), 1):
            out += [INDENT + line for line in cell_lines(n, scenario, results)]
        ok = all(r.passed for rs in scenarios.values() for r in rs)
        out.append(f"{'ok' if ok else 'not ok'} {k} {description(label)}")
    return "\n".join(out) + "\n"


def write(path, matrix):
    """MATRIX as KTAP into the file PATH, atomically."""
    with open(path + ".tmp", "w") as f:
        f.write(render(matrix))
    os.rename(path + ".tmp", path)
