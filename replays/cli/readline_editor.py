"""A `woundlog play` session's lines typed at a terminal, read by the standard library's line
editor: `input()` with the `readline` module (GNU readline on Linux, libedit on macOS), which
costs a session's start almost nothing (issue 42; lines.py says when prompt_toolkit reads them
instead). What the session gives at the table is prompt_toolkit's, kept:

- Tab completes from `Session.candidates`, the same words, a display name of several words
  quoted as `quoted` writes it; a second Tab lists the words themselves (GNU readline's display
  hook; libedit, which has none, lists what it would insert);
- the history is the same file, in prompt_toolkit's `FileHistory` format (history.py): its last
  entries read back at start (Up arrow), each line entered appended as FileHistory appends it;
- Ctrl-C drops the line being typed and the session goes on, Ctrl-C while a command runs drops
  that command (lines.py), Ctrl-D on an empty line leaves; the prompt is `FIGHT> `.

`readline` is the process's own, shared with anything else that reads lines in it: `editing`
sets it up for the session (completer, word delimiters, Tab, history) and leaves it as it found
it, for a library or a test that runs a session in its process.

Decisions where prompt_toolkit and readline differ:
- Readline completes the word after the last blank (its word delimiters are set to blanks only,
  so `--roll`, `injury=3` and `'Gorbag` are words). When that word is inside a quote opened
  before a blank (`heal "Gorbag t`), readline cannot replace what comes before it: the
  completion keeps what is typed and adds the rest of the name and the closing quote.
- With one candidate, the word is replaced by it as the session writes it (`grim` for `GRI`);
  with several, readline first inserts their common beginning, so each keeps the letters typed
  as typed (names are matched whatever their case, application/names.py): a common beginning
  then never cuts what was typed.
- A line is kept in the history as prompt_toolkit keeps it (not empty, not the entry before it
  again), but a line past `MAX_LINE`, refused unread, is not kept.
- Tab was bound to completion for the session; if readline was first imported here, where Python
  binds Tab to insert a tab, it is bound back; otherwise whoever imported it first (Python's
  own interactive prompt binds Tab to completion) keeps completion on Tab. The display hook has
  no getter: it is removed at the end.
"""

from __future__ import annotations

import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from . import history as kept
from .output import print_error
from .session import MAX_LINE, Session, split_typed
from .words import quoted

BLANKS = " \t\n"
"""Readline's word delimiters during a session: a word ends at a blank only."""
_imported_here = False


def usable() -> ModuleType | None:
    """The `readline` module, or None where Python has none (Windows, a Python built without
    it)."""
    global _imported_here
    first = "readline" not in sys.modules
    try:
        import readline
    except ImportError:
        return None
    _imported_here = _imported_here or first
    return readline


def libedit(readline: ModuleType) -> bool:
    """Whether `readline` is libedit's emulation of GNU readline (macOS), bound its own way."""
    return "libedit" in (readline.__doc__ or "")


def read_lines(
    readline: ModuleType,
    session: Session,
    history: Path | None,
    handle: Callable[[str], bool],
) -> None:
    """Read lines with `input()` until `quit` or Ctrl-D, each given to `handle` (False: the
    session ends)."""
    prompt = f"{session.fight}> "
    completion = Completion(readline, session, prompt)
    with interruptible(), editing(readline, completion, history) as remember:
        while True:
            try:
                line = input(prompt)
            except KeyboardInterrupt:  # Ctrl-C: the line is dropped, the session goes on
                print(flush=True)
                continue
            except EOFError:  # Ctrl-D
                print(flush=True)
                break
            remember(line)
            if not handle(line):
                break


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C a KeyboardInterrupt during the session even where the process began with SIGINT
    ignored (started by a program as a background job is: its shell ignores SIGINT for it).
    prompt_toolkit reads Ctrl-C as a key, so it cancelled the line whatever SIGINT's handling;
    under readline the terminal turns it into a SIGINT, which Python leaves ignored if it began
    so. Put back after the session; only Python's main thread may set a handler."""
    if (
        signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def editing(
    readline: ModuleType, completion: Completion, history: Path | None
) -> Iterator[Callable[[str], None]]:
    """Readline set up for a session, as it was again after it; gives `remember`, which keeps
    a line entered in the history as prompt_toolkit's FileHistory keeps it."""
    completer, delimiters = readline.get_completer(), readline.get_completer_delims()
    before = [
        readline.get_history_item(at) for at in range(1, readline.get_current_history_length() + 1)
    ]
    entries = kept.last(history) if history is not None else []
    readline.clear_history()
    for entry in entries:
        if "\n" not in entry:  # an entry of several lines cannot be typed again as one
            readline.add_history(entry)
    readline.set_completer(completion.complete)
    readline.set_completer_delims(BLANKS)
    readline.set_completion_display_matches_hook(completion.display)
    readline.parse_and_bind("bind ^I rl_complete" if libedit(readline) else "tab: complete")
    newest = entries[-1] if entries else None
    unkept = history is None

    def remember(line: str) -> None:
        nonlocal newest, unkept
        if not line or line == newest or len(line.encode(errors="replace")) > MAX_LINE:
            return
        newest = line
        length = readline.get_current_history_length()
        if readline.get_history_item(length) != line:  # Python adds it unless told not to
            readline.add_history(line)
        if unkept or history is None:
            return
        try:
            kept.append(history, line)
        except OSError as error:
            print_error(f"history not kept: {error}")
            unkept = True

    try:
        yield remember
    finally:
        readline.set_completer(completer)
        readline.set_completer_delims(delimiters)
        readline.set_completion_display_matches_hook(None)
        if _imported_here:
            readline.parse_and_bind(
                "bind ^I ed-insert" if libedit(readline) else "tab: self-insert"
            )
        readline.clear_history()
        for entry in before:
            if entry is not None:
                readline.add_history(entry)


class Completion:
    """Readline's completer for a session (`complete`) and the list a second Tab shows
    (`display`)."""

    def __init__(self, readline: ModuleType, session: Session, prompt: str) -> None:
        self.readline = readline
        self.session = session
        self.prompt = prompt
        self.found: list[str] = []  # what readline may insert, for the word before the cursor
        self.words: list[str] = []  # the candidates they stand for, as a second Tab lists them

    def complete(self, text: str, state: int) -> str | None:
        """The `state`-th way to complete `text`, the word before the cursor; None: no more."""
        if state == 0:
            before = self.readline.get_line_buffer()[: self.readline.get_endidx()]
            self.found, self.words = completions(self.session, before, text)
        return self.found[state] if state < len(self.found) else None

    def display(self, substitution: str, matches: Sequence[str], longest: int) -> None:
        """The candidates' words in columns under the line, then the prompt and the line again
        (GNU readline leaves the display to this hook)."""
        words = self.words or list(matches)
        width = max(len(word) for word in words) + 2 if words else 1
        columns = max(1, shutil.get_terminal_size().columns // width)
        print()
        for at in range(0, len(words), columns):
            print("".join(word.ljust(width) for word in words[at : at + columns]).rstrip())
        line, point = self.readline.get_line_buffer(), self.readline.get_endidx()
        back = len(line) - point
        print(self.prompt + line + (f"\x1b[{back}D" if back > 0 else ""), end="", flush=True)


def completions(session: Session, before: str, text: str) -> tuple[list[str], list[str]]:
    """What readline may put in place of `text` (the last word of `before`, the line up to
    the cursor, as readline's blanks part it), and the candidates they stand for."""
    done, typing, raw = split_typed(before)
    words = session.candidates(done, typing)
    quote = raw[:1] if raw[:1] in ("'", '"') else ""
    if len(raw) > len(text):  # a quote opened before a blank: what is typed stays
        cut = len(raw) - len(text)
        pairs = [
            (written[cut:], word)
            for word in words
            if (written := as_typed(word, typing, raw, quote))
        ]
    else:
        prefix = text[: len(text) - len(raw)]
        pairs = [
            (prefix + (as_typed(word, typing, raw, quote) or quoted(word)), word) for word in words
        ]
        if len({written for written, _ in pairs}) == 1:  # one way on: as the session writes it
            pairs = [(prefix + quoted(words[0]), words[0])]
    found = list(dict.fromkeys(written for written, _ in pairs))
    return found, [word for _, word in pairs]


def as_typed(word: str, typing: str, raw: str, quote: str) -> str:
    """`word` as the line must hold it, what is typed of it kept as typed (`raw`, which reads
    as `typing`) and the rest added, closed by the quote `raw` opened (`quote`, else none);
    '' when it cannot be (the rest holds that quote, or a backslash in double quotes)."""
    rest = word[len(typing) :]
    if word[: len(typing)].casefold() != typing.casefold():
        return ""
    if quote:
        if quote in rest or (quote == '"' and "\\" in rest):
            return ""
        return raw + rest + quote
    if quoted(word) == word:  # a plain word
        return raw + rest
    if "'" in word or raw != typing:
        return ""
    return "'" + raw + rest + "'"
