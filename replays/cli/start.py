"""The console script's first step: `woundlog --version` alone is answered here, from the
release constant, before typer, click or any command module is imported (issue 28: it took
8.8 times the start of Python, now about the start of Python itself); a plain `hit` or `heal`
is read and run without typer (quick.py), and so is `play FIGHT`, a session, whose lines make
typer's commands only as they need them (issue 42); everything else goes on to `run` (run.py),
which builds the commands the words name. Both import msgspec without `typing_extensions` first."""

from __future__ import annotations

import sys
from functools import partial

from woundlog.replays.release import RELEASE


def main() -> None:
    """The console script: `woundlog ARGS...`."""
    if sys.argv[1:] == ["--version"]:
        # the same line `woundlog --db URL --version` prints through typer (group.py)
        sys.stdout.write(f"woundlog {RELEASE}\n")
        return
    _msgspec_without_typing_extensions()
    from .quick import quick

    code = quick(sys.argv[1:])  # a hit or a heal, read without typer
    if code is None:
        code = session(sys.argv[1:])  # `play FIGHT`, read without typer
    if code is not None:
        sys.exit(code)
    from .run import run

    run()


def session(args: list[str]) -> int | None:
    """Run `woundlog [--db URL] play FIGHT` as typer's `play` runs it (lines.py's `played`),
    read without typer (quick.py), and give its exit status; None when typer is to read it."""
    from .quick import PLAY, guarded, read

    found = read(args)
    if found is None or found[0] != PLAY:
        return None
    from .lines import played

    return guarded(partial(played, **found[1]), PLAY, found[1]["db"])


def _msgspec_without_typing_extensions() -> None:
    """Import msgspec with `typing_extensions` out of reach: msgspec tries it first for
    `get_type_hints`, `Required` and `NotRequired` and falls back to `typing`'s, which on Python
    3.11 and later (all woundlog runs on) are the same ones (typing_extensions hands
    `typing.get_type_hints` on when asked for the extras, as msgspec always asks). Importing it
    was about a tenth of a `woundlog hit`'s imports (issue 28). Only msgspec's first import is
    kept from it: anything imported later (litestar under `woundlog serve`) gets it as usual."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # its import fails
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]
