"""rqpath's blktests export as scenarios: `tests/run --blktests DIR`.

Each test of the overlay (blktests/tests/GROUP/NAME) is a scenario named
blktests:GROUP/NAME, a name that stays the same whatever number the test
gets in the checkout it is installed into (blktests/rqpath-overlay assigns
the checkout's next free number; the guest records it in the details as
blktests_test).  It runs in the guest by blktests' own ./check through
blktests/rqpath-run (tests/guest/blktests.sh).  The layer with the checkout,
the overlay and the tools blktests needs comes from
qemu/build-blktests-image and goes on top of each kernel's image.
"""

import os
import subprocess

from .kernels import TOP, run_tool
from .model import DETECTED
from .scenarios import expected_verdicts

# What each exported test expects, per stage, as a scenario header would say.
TESTS = {
    "block/merge-prepared": {"summary": "a bio must never merge into a request that failed direct issue after "
                             "the driver prepared it (busy scsi_debug disk, scheduler none)",
                  "default": ("clean",), "per_stage": {"6ce3dd6eec": DETECTED},
                  "timeout": 150},
    "dm/mpath-busy-ops": {"summary": "discard, write-zeroes and flush through request-based dm-multipath over "
                          "a busy path complete",
               "default": ("clean",), "per_stage": {"ffe81d45322c": ("livelocked",)},
               "timeout": 180},
}


class BlktestsScenario:
    """What the harness needs of a scenario, for one exported test."""

    def __init__(self, test, spec):
        self.name = f"blktests:{test}"
        self.summary = spec["summary"]
        self.default = spec["default"]
        self.per_stage = spec["per_stage"]
        self.timeout = spec["timeout"]
        self.boot = "shared"
        self.variant = "any"
        self.hardware = []

    def expected(self, stage, tree=None):
        return expected_verdicts(self.per_stage, self.default, stage, tree)


def scenarios():
    return {f"blktests:{t}": BlktestsScenario(t, spec) for t, spec in TESTS.items()}


def overlay_names():
    """The overlay's tests, by their names, as blktests/rqpath-overlay lists them."""
    out = subprocess.run([os.path.join(TOP, "blktests/rqpath-overlay"), "names"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise ValueError(f"blktests/rqpath-overlay names: {out.stderr.strip()}")
    return out.stdout.split()


def check_overlay():
    """Every test of the overlay has an expectation here, and back."""
    found = overlay_names()
    if sorted(found) != sorted(TESTS):
        raise ValueError(f"blktests/tests has {found}, tests/harness/blktests.py expects {sorted(TESTS)}")


def image_layer(blktests_dir):
    """The cpio layer with the checkout and the overlay, built or cached."""
    out = run_tool([os.path.join(TOP, "qemu/build-blktests-image"), blktests_dir],
                   "building the blktests image layer")
    return out[-1]
