"""A reader that stops reading (`woundlog log FIGHT | head`) is a quiet end, as in other Unix
tools: no message, exit status 141, what the shell reports for a program SIGPIPE ended."""

from __future__ import annotations

import os
import sys

CLOSED_PIPE = 128 + 13
"""128 + SIGPIPE: what `seq 1 100000 | head -1` leaves in `${PIPESTATUS[0]}`. Not 0: the output
was cut short, and a script under `set -o pipefail` should see it as it sees any tool's."""


def quiet_end() -> int:
    """Point standard output at the null device, so the flush at exit finds no closed pipe to
    complain of, and give the exit status of a closed pipe."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return CLOSED_PIPE
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)
    return CLOSED_PIPE
