"""The matrix of a run: its verdicts, its results, and the one place where
out/matrix.json is read and written.

A matrix file is a JSON object:

    schema    "rqpath.matrix/1"
    ...       the run's facts (kernels, accel, shard, guest_cpus, jobs,
              mutants, merged_from, error, ...), kept as they are
    timing    the run's seconds (build_seconds, boot_seconds, boots)
    boots     a record per boot (guest.Boot.timing()), kept as they are
    results   a Result per scenario run: see Result

load_matrix() checks the schema and the shape of every result once, so
that a reader can rely on them; only `details` (what the guest recorded)
and the run's facts and boot records are free-form.  A matrix of another
schema, or one written before matrices had one, is refused in one line.

This module imports nothing of the harness: everything else takes the
verdicts from here.  The guest library, which is shell, names them itself
(tests/host/model_test.py holds its words to these).
"""

import dataclasses
import enum
import json
import os

SCHEMA = "rqpath.matrix/1"


class Verdict(enum.StrEnum):
    """What a scenario concluded of a kernel (tests/README.md, "Verdicts")."""
    CLEAN = "clean"            # the trigger fired and nothing broke
    CORRUPTED = "corrupted"    # data was lost or wrong (bad blocks, verify failures, fsck damage)
    VIOLATED = "violated"      # a bio merged into a prepared request, but no data loss was seen
    LIVELOCKED = "livelocked"  # an operation can never complete, and every signal agrees
    WARNED = "warned"          # the kernel reported what the scenario does not expect (WARNING,
    #                            BUG, KASAN, lockdep, kmemleak, a hung task)
    HUNG = "hung"              # no verdict (or no post-cleanup check) before the timeout
    CRASHED = "crashed"        # an oops or panic on the console
    ERROR = "error"            # the scenario or the harness could not do its job, or the
    #                            trigger did not fire
    SKIPPED = "skipped"        # the kernel lacks what the scenario needs (the reason says what)


# What a scenario may expect; the other verdicts never pass.
EXPECTABLE = (Verdict.CLEAN, Verdict.CORRUPTED, Verdict.VIOLATED, Verdict.LIVELOCKED)
# Either one means the corruption bug was detected: expecting the two is an
# assertion, any other choice of several verdicts a measurement.
DETECTED = (Verdict.CORRUPTED, Verdict.VIOLATED)
# The verdicts that say the kernel has one of the bugs (a bisect's "bad").
BUG_FOUND = (Verdict.CORRUPTED, Verdict.VIOLATED, Verdict.LIVELOCKED)
# The verdicts that say the kernel could not be judged at all.
UNDECIDED = (Verdict.ERROR, Verdict.SKIPPED)
# What the kernel did wrong: every verdict but clean and the undecided.
FINDINGS = tuple(v for v in Verdict if v is not Verdict.CLEAN and v not in UNDECIDED)
# The verdicts that already account for a cleanup that could not undo the
# scenario (a stuck operation, a broken kernel, a scenario that failed):
# such a cleanup failure does not make them an error.
EXPLAIN_A_FAILED_CLEANUP = (Verdict.LIVELOCKED, Verdict.HUNG, Verdict.WARNED, Verdict.CRASHED, Verdict.ERROR)


def is_measured(expected):
    """Whether an expectation of a cell is a measurement (either verdict
    accepted, the rate is what counts) rather than an assertion."""
    return len(expected) > 1 and set(expected) != set(DETECTED)


class MatrixError(ValueError):
    """A file that is not a matrix of this schema: one line, naming it."""


def _kind(value):
    """How a message names the JSON type of VALUE."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _field(doc, key, where, want, ok):
    """DOC[KEY] when OK(it) holds; else a MatrixError saying it is not WANT."""
    if key not in doc:
        raise MatrixError(f'{where}: no "{key}"')
    value = doc[key]
    if not ok(value):
        raise MatrixError(f'{where}: "{key}" is {_kind(value)}, not {want}')
    return value


def _verdict(text, where, key):
    try:
        return Verdict(text)
    except ValueError:
        raise MatrixError(f'{where}: "{key}" holds {text!r}, not a verdict ({", ".join(Verdict)})')


@dataclasses.dataclass
class Result:
    """One scenario run once on one kernel.  A cell of the matrix, (tree,
    variant, stage, scenario), holds one per boot (tests/run --boots)."""
    tree: str
    variant: str               # normal, or debug for the debug kernels
    stage: str
    kernel: str | None         # the release the guest ran
    scenario: str
    verdict: Verdict
    seconds: float | None      # guest seconds to the verdict; None when there was none
    timing: dict               # guest seconds per phase, wait and sleep
    details: dict              # what the scenario recorded: free-form, written by the guest
    boot: str                  # the boot's tag: its logs are out/logs/TAG/
    expected: tuple            # the verdicts that pass on this kernel
    passed: bool               # "pass": the verdict is one of them
    extra: dict = dataclasses.field(default_factory=dict)  # keys this schema does not name, kept

    # The keys of a result in the file, in the order they are written.
    KEYS = ("tree", "variant", "stage", "kernel", "scenario", "verdict", "seconds", "timing", "details",
            "boot", "expected", "pass")

    @classmethod
    def from_json(cls, doc, where):
        """The Result of DOC, one result of a matrix file; WHERE names it in
        a MatrixError."""
        if not isinstance(doc, dict):
            raise MatrixError(f"{where}: {_kind(doc)}, not an object")
        if isinstance(doc.get("scenario"), str):
            where += f" ({doc['scenario']})"

        def text(key):
            return _field(doc, key, where, "a string", lambda v: isinstance(v, str))

        def obj(key):
            return _field(doc, key, where, "an object", lambda v: isinstance(v, dict))

        expected = _field(doc, "expected", where, "verdicts joined by '|'", lambda v: isinstance(v, str) and v)
        return cls(
            tree=text("tree"), variant=text("variant"), stage=text("stage"),
            kernel=_field(doc, "kernel", where, "a string or null", lambda v: v is None or isinstance(v, str)),
            scenario=text("scenario"),
            verdict=_verdict(text("verdict"), where, "verdict"),
            seconds=_field(doc, "seconds", where, "a number or null", lambda v: v is None or _is_number(v)),
            timing=obj("timing"), details=obj("details"), boot=text("boot"),
            expected=tuple(_verdict(v, where, "expected") for v in expected.split("|")),
            passed=_field(doc, "pass", where, "a boolean", lambda v: isinstance(v, bool)),
            extra={k: v for k, v in doc.items() if k not in cls.KEYS})

    def to_json(self):
        return {"tree": self.tree, "variant": self.variant, "stage": self.stage, "kernel": self.kernel,
                "scenario": self.scenario, "verdict": self.verdict.value, "seconds": self.seconds,
                "timing": self.timing, "details": self.details, "boot": self.boot,
                "expected": "|".join(v.value for v in self.expected), "pass": self.passed, **self.extra}

    def judge(self, expected):
        """EXPECTED (verdict names) becomes this result's expectation, and
        it passes when its verdict is one of them."""
        self.expected = tuple(Verdict(v) for v in expected)
        self.passed = self.verdict in self.expected

    @property
    def kernel_label(self):
        """How the matrix names its kernel: tree/stage[+debug]."""
        return f"{self.tree}/{self.stage}" + ("+debug" if self.variant == "debug" else "")


@dataclasses.dataclass
class Matrix:
    """A run's results, its boots and its facts."""
    results: list              # [Result]
    boots: list                # [{...}]: a record per boot, free-form
    timing: dict               # the run's seconds
    meta: dict                 # every other key of the file, in its order

    # Written after the run's facts, in this order.
    TAIL = ("timing", "boots", "results")

    @classmethod
    def from_json(cls, doc, where):
        """The Matrix of DOC, a matrix file's JSON; WHERE (its path) names
        it in a MatrixError."""
        if not isinstance(doc, dict):
            raise MatrixError(f"{where}: not a matrix of tests/run ({_kind(doc)}, not an object)")
        if "schema" not in doc:
            raise MatrixError(f"{where}: no schema, so not a matrix of {SCHEMA}: a matrix written before "
                              "matrices had a schema is refused too (rerun tests/run to write it again)")
        if doc["schema"] != SCHEMA:
            raise MatrixError(f"{where}: schema {doc['schema']!r}, not {SCHEMA}: another kind of file, "
                              "or a matrix of another version of rqpath")
        results = _field(doc, "results", where, "a list", lambda v: isinstance(v, list))
        boots = _field(doc, "boots", where, "a list", lambda v: isinstance(v, list))
        for i, b in enumerate(boots):
            if not isinstance(b, dict):
                raise MatrixError(f"{where}: boots[{i}] is {_kind(b)}, not an object")
        timing = _field(doc, "timing", where, "an object", lambda v: isinstance(v, dict))
        return cls(results=[Result.from_json(r, f"{where}: results[{i}]") for i, r in enumerate(results)],
                   boots=boots, timing=timing,
                   meta={k: v for k, v in doc.items() if k != "schema" and k not in cls.TAIL})

    def to_json(self):
        return {"schema": SCHEMA, **self.meta, "timing": self.timing, "boots": self.boots,
                "results": [r.to_json() for r in self.results]}


def load_matrix(path):
    """The Matrix in the file PATH; MatrixError (a ValueError) in one line
    naming PATH when there is no such file or it is not a matrix of this
    schema."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise MatrixError(f"{path}: no such file")
    except OSError as e:
        raise MatrixError(f"{path}: cannot be read ({e.strerror})")
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise MatrixError(f"{path}: not JSON, so not a matrix of tests/run ({e})")
    return Matrix.from_json(doc, path)


def save_matrix(path, matrix):
    """MATRIX into the file PATH, atomically: a reader never sees half of it."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(matrix.to_json(), f, indent=1)
        f.write("\n")
    os.rename(path + ".tmp", path)
