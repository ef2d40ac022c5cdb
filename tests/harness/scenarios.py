"""Scenario files: tests/scenarios/NAME.sh.

A scenario is one file.  Its header declares everything the host needs;
its body (scenario_run) is what the guest runs:

    # rqpath scenario: NAME
    # summary: one line for humans
    # expect: clean; 6ce3dd6eec=corrupted       default verdict; per-stage (or TREE:STAGE) overrides
    # boot: shared | own                          own: gets a boot of its own
    # timeout: 120                                guest seconds under TCG
    # qemu: ahci-disk virtio-paths                extra emulated hardware (optional)
    # variant: debug                              only on the debug kernels (optional)

An expected verdict may list alternatives: "corrupted|violated" (the bug was
detected, either way) is an assertion; any other pair, "corrupted|clean",
is a result that is measured rather than asserted (the rate is what
counts), and such a cell is shown as measured.  An override for one
tree's stage ("6.12:6ce3dd6eec=...") wins over the stage's override for
every tree.
"""

import os
import re

from .model import EXPECTABLE, Verdict

# The verdicts are model.py's; guest.py checks the guest's against VERDICTS.
VERDICTS = tuple(Verdict)
HEADER = re.compile(r"^#\s*([a-z ]+):\s*(.*?)\s*$")


class ScenarioError(Exception):
    pass


def expected_verdicts(per_stage, default, stage, tree=None):
    """The verdicts expected on STAGE of TREE: its "TREE:STAGE" override,
    else its "STAGE" one, else DEFAULT (a scenario file's or a blktests
    export's)."""
    return per_stage.get(f"{tree}:{stage}", per_stage.get(stage, default))


class Scenario:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-3]
        fields = {}
        with open(path) as f:
            for line in f:
                if not line.startswith("#"):
                    if line.strip():
                        break
                    continue
                m = HEADER.match(line)
                if m:
                    fields[m.group(1)] = m.group(2)
        declared = fields.get("rqpath scenario")
        if declared != self.name:
            raise ScenarioError(f"{path}: header names '{declared}', file is '{self.name}'")
        self.summary = fields.get("summary", "")
        self.boot = fields.get("boot", "shared")
        if self.boot not in ("shared", "own"):
            raise ScenarioError(f"{path}: boot must be shared or own, not '{self.boot}'")
        try:
            self.timeout = int(fields.get("timeout", "120"))
        except ValueError:
            raise ScenarioError(f"{path}: timeout is not a number")
        self.hardware = fields.get("qemu", "").split()
        # A scenario about the debug kernels' detectors has nothing to
        # check on a kernel without them: it exists only in --debug runs.
        self.variant = fields.get("variant", "any")
        if self.variant not in ("any", "debug"):
            raise ScenarioError(f"{path}: variant must be debug (or absent), not '{self.variant}'")
        self.default, self.per_stage = self._parse_expect(fields.get("expect", ""))

    def _parse_expect(self, text):
        default = None
        per_stage = {}
        for part in filter(None, (p.strip() for p in text.split(";"))):
            if "=" in part:
                stage, verdicts = (x.strip() for x in part.split("=", 1))
                per_stage[stage] = self._verdicts(verdicts)
            else:
                default = self._verdicts(part)
        if default is None:
            raise ScenarioError(f"{self.path}: 'expect:' needs a default verdict")
        return default, per_stage

    def _verdicts(self, text):
        vs = tuple(v.strip() for v in text.split("|"))
        for v in vs:
            if v not in EXPECTABLE:
                raise ScenarioError(f"{self.path}: '{v}' is not a verdict a scenario can expect "
                                    f"({', '.join(EXPECTABLE)})")
        return vs

    def expected(self, stage, tree=None):
        return expected_verdicts(self.per_stage, self.default, stage, tree)


def load(directory):
    scenarios = {}
    for entry in sorted(os.listdir(directory)):
        if entry.endswith(".sh"):
            s = Scenario(os.path.join(directory, entry))
            scenarios[s.name] = s
    return scenarios
