"""The stage-by-scenario matrix: terminal table and out/matrix.json."""

import json
import os


def passes(result, expected):
    return result["verdict"] in expected


def cell(results, expected):
    """'clean' / 'corrupted 10/10' with a mark: ok, FAIL, or ~ for measured."""
    verdicts = [r["verdict"] for r in results]
    ok = all(v in expected for v in verdicts)
    if len(set(verdicts)) == 1:
        text = verdicts[0]
        if len(verdicts) > 1:
            text += f" {len(verdicts)}/{len(verdicts)}"
    else:
        counts = {v: verdicts.count(v) for v in sorted(set(verdicts))}
        text = " ".join(f"{v} {n}/{len(verdicts)}" for v, n in counts.items())
    if not ok:
        return f"FAIL {text} (want {'|'.join(expected)})"
    mark = "~" if len(expected) > 1 else "ok"
    return f"{mark} {text}"


def print_matrix(stages, scenarios, results):
    by_cell = {}
    for r in results:
        by_cell.setdefault((r["scenario"], r["stage"]), []).append(r)
    names = [s for s in scenarios if any((s, st) in by_cell for st in stages)]
    cells = {(n, st): cell(by_cell[(n, st)], scenarios[n].expected(st))
             for n in names for st in stages if (n, st) in by_cell}
    w0 = max([len("scenario \\ stage")] + [len(n) for n in names])
    widths = [max([len(st)] + [len(cells.get((n, st), "")) for n in names]) for st in stages]
    line = "  ".join(["scenario \\ stage".ljust(w0)] + [st.ljust(w) for st, w in zip(stages, widths)])
    print(line)
    print("-" * len(line))
    for n in names:
        print("  ".join([n.ljust(w0)] + [cells.get((n, st), "-").ljust(w)
                                         for st, w in zip(stages, widths)]))
    print("ok: as expected   ~: measured, either verdict accepted   FAIL: not as expected")


def write_json(path, tree, accel, results, timing):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump({"tree": tree, "accel": accel, "timing": timing, "results": results},
                  f, indent=1, sort_keys=False)
        f.write("\n")
    os.rename(path + ".tmp", path)
