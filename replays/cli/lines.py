"""Where the lines of a `woundlog play` session come from (`played`): typed at a terminal and
read by a line editor, else read one by one from standard input; each handled by session.py.

At a terminal the line editor is the standard library's: `input()` with the `readline` module
(GNU readline on Linux, libedit on macOS), where Python has it (readline_editor.py). It is
already compiled into the Python that runs the session (importing it: 1.9 M instructions), so
a session's first answer costs about what the same command costs alone: with prompt_toolkit a
session at a terminal answered its first line at 3.51x a one-shot `woundlog hit` (importing it
435 M, asyncio 168 M of that; its PromptSession 58 M; about 2.4 M a key typed), with readline
at 1.03x on the default store, 1.13x with `--db` (the history's folder, found by platformdirs,
is the rest: tests/benchmarks/README.md). What the table has is kept: Tab completion
from the session's `candidates`, the history in one file under the user's state directory
(history.py: prompt_toolkit's FileHistory format, so either editor reads what the other wrote),
Ctrl-C cancelling the line, Ctrl-D ending the session.

prompt_toolkit reads the lines where `import readline` fails (Windows, a Python built without
readline), and only there is it imported: maintained, pure Python, the same in the Windows
console; it gives the same history file (`FileHistory`), Tab completion (`Completer`), Ctrl-C
and Ctrl-D. Tests give it a pipe input and a DummyOutput (`interactive`'s `input`, `output`).

Nothing here loads typer: `woundlog play FIGHT` is read as a plain hit is (quick.py), and a
session's commands are made when a line first needs them (ondemand.py), so a session's first
answer costs what the same command costs run alone (issue 42). The typer command is play.py's.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from woundlog.events.bounded import MAX_DOCUMENT, TooLong

from .application import application, kept_open
from .ondemand import OnDemand
from .output import print_error, say
from .session import MAX_LINE, Session, split_typed, status_line
from .words import quoted

SKIP_CHUNK = 1024 * 1024
MAX_SKIPPED = MAX_DOCUMENT
"""Bytes of one line skipped before the session ends: the most the CLI reads of any file."""

HISTORY = "play_history"
"""The history file's name, in the user's state directory (`platformdirs.user_state_path`)."""


def played(fight: str, db: str | None = None) -> int:
    """`woundlog play FIGHT` (play.py): the session, on the store `db`; its exit status. At a
    terminal, 0: a refusal was seen, and leaving is no failure; lines piped in end with the
    status of the last refused line, 0 if none was."""
    with kept_open(db) as app:
        with application(db, create=False) as same:
            same.fight(fight)  # a fight not there is said as every command says it
        session = Session(OnDemand(), app, fight, db)
        if sys.stdin.isatty() and sys.stdout.isatty():
            greet(session)
            interactive(session, history_path())
            return 0
        for line in piped_stdin():
            if line is None:
                session.too_long()
            elif not session.handle(line):
                break
    return session.code


def greet(session: Session) -> None:
    state = session.app.state(session.fight)
    say(
        f"fight `{session.fight}` ({state.ruleset}, {session.seen} events): a command as after "
        "`woundlog`, without the fight; `help` lists them, Tab completes, Ctrl-D leaves"
    )
    say(status_line(state.characters))


def piped_stdin() -> Iterator[str | None]:
    """`piped` lines of standard input (a text stream in its place, a StringIO, line by line)."""
    binary = getattr(sys.stdin, "buffer", None)
    if binary is None:
        return (line.rstrip("\r\n") for line in sys.stdin)
    return piped(binary, sys.stdin.encoding, sys.stdin.errors)


def piped(
    stream: BinaryIO, encoding: str | None = None, errors: str | None = None
) -> Iterator[str | None]:
    """Lines from a pipe or a file, each without its line break, read at most MAX_LINE bytes
    at a time: a longer line is None (refused, the session goes on), its rest skipped unkept.
    Skipping more than MAX_SKIPPED bytes of one line (`play < /dev/zero`) ends the session."""
    while raw := stream.readline(MAX_LINE + 1):
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            _skip_line(stream)
            yield None
            continue
        yield raw.decode(encoding or "utf-8", errors or "strict").rstrip("\r\n")


def _skip_line(stream: BinaryIO) -> None:
    """Read to the end of the line under way, keeping none of it; TooLong past MAX_SKIPPED."""
    skipped = MAX_LINE
    while (chunk := stream.readline(SKIP_CHUNK)) and not chunk.endswith(b"\n"):
        skipped += len(chunk)
        if skipped > MAX_SKIPPED:
            raise TooLong(
                f"standard input: a line of more than {MAX_SKIPPED // (1024 * 1024)} MiB, "
                "not a session's commands: the session ends"
            )


def history_path() -> Path | None:
    """Where the session's history is kept; None when the directory cannot be made (the
    history is then the session's only)."""
    import platformdirs

    folder = platformdirs.user_state_path("woundlog")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        print_error(f"history not kept: {error}")
        return None
    return folder / HISTORY


def interactive(
    session: Session, history: Path | None, *, input: Any = None, output: Any = None
) -> None:
    """Read lines until `quit` or Ctrl-D: with the standard library's readline where Python
    has it, else with prompt_toolkit; `input` and `output` (a pipe input and a DummyOutput in
    tests) are prompt_toolkit's, else the terminal."""
    if input is None and output is None:
        from .readline_editor import read_lines, usable

        readline = usable()
        if readline is not None:
            read_lines(readline, session, history, lambda line: handled(session, line))
            return
    prompted(session, history, input=input, output=output)


def handled(session: Session, line: str) -> bool:
    """`session.handle(line)`; a command Ctrl-C interrupts is dropped and the session goes on."""
    try:
        return session.handle(line)
    except KeyboardInterrupt:  # Ctrl-C while a command runs: that command is dropped
        print_error("interrupted")
        return True


def prompted(
    session: Session, history: Path | None, *, input: Any = None, output: Any = None
) -> None:
    """Read lines with prompt_toolkit until `quit` or Ctrl-D."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(history)) if history is not None else InMemoryHistory(),
        completer=completer(session),
        complete_while_typing=False,  # Tab asks; a list popping up at every key hides the table
        input=input,
        output=output,
    )
    # prompt_toolkit runs its own event loop; where one already runs in this thread (a notebook,
    # a sync Playwright in a test run) it must read in a thread of its own.
    in_thread = loop_running()
    while True:
        try:
            line = prompt.prompt(f"{session.fight}> ", in_thread=in_thread)
        except KeyboardInterrupt:  # Ctrl-C: the line is dropped, the session goes on
            continue
        except EOFError:  # Ctrl-D
            break
        if not handled(session, line):
            break


def loop_running() -> bool:
    """Whether an asyncio event loop is running in this thread."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def completer(session: Session) -> Any:
    """A prompt_toolkit Completer offering the session's `candidates` for the word typed."""
    from prompt_toolkit.completion import Completer, Completion

    class Candidates(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
            done, typing, raw = split_typed(document.text_before_cursor)
            for word in session.candidates(done, typing):
                yield Completion(quoted(word), start_position=-len(raw), display=word)

    return Candidates()
