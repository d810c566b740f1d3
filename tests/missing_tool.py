"""What a Python test does when a tool it needs (NumPy, PyTorch) is missing.

Outside CI the check is reported as skipped (exit 77, ctest's
SKIP_RETURN_CODE) or noted; under CI=true a missing tool is a failure:
scripts/setup.sh installs every tool, so its absence means the run checked less
than it claims.
"""
import os
import sys

IN_CI = os.environ.get("CI") == "true"


def skip(test, why):
    """Ends the test: exit 77 (skipped), or exit 1 under CI=true."""
    if IN_CI:
        print(f"{test}: {why}: FAILED (CI=true: a missing tool fails; scripts/setup.sh installs it)")
        sys.exit(1)
    print(f"{test}: {why}, skipped")
    sys.exit(77)


def part_missing(test, why):
    """A part of the test cannot run: True under CI=true (the caller records a
    failure), else prints a note and returns False."""
    print(f"{test}: {why}" + (": FAILED (CI=true)" if IN_CI else ", that part skipped"))
    return IN_CI
