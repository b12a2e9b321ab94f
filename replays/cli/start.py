"""The console script's first step: `woundlog --version` alone is answered here, from the
release constant, before typer, click or any command module is imported (issue 28: it took
8.8 times the start of Python, now about the start of Python itself); everything else goes on
to `run` (run.py), which builds the commands the words name."""

from __future__ import annotations

import sys

from woundlog.replays.release import RELEASE


def main() -> None:
    """The console script: `woundlog ARGS...`."""
    if sys.argv[1:] == ["--version"]:
        # the same line `woundlog --db URL --version` prints through typer (group.py)
        sys.stdout.write(f"woundlog {RELEASE}\n")
        return
    from .run import run

    run()
