"""What the CLI prints: one line per event, state tables, ruleset summaries, JSON and errors.

Tables and coloured text go through rich, which drops colour and cursor tricks when stdout is
not a terminal. Plain lines (an event's line, a message) are written as rich would write them,
without loading it: rich takes longer to import than a `woundlog hit` takes to run.
JSON bypasses rich entirely: rich would wrap long lines and highlight them, and a program
reading the output wants JSON as msgspec wrote it.

Terminal escapes: every text the CLI prints passes through this module, and the control and
invisible characters a name, id, reason or note may hold (ESC, BEL, NUL, DEL, C1,
bidirectional overrides, zero-width ones, a byte order mark; from a log written before the
wire refused them, or a free-text reason or note sent over HTTP) are neutralised here, in one
place, per format:

- what a person reads (lines, tables, messages, errors, help, the Markdown of `report` and
  `rules` printed without `-o`): each such character written as its Python escape (`shown`),
  whether standard output is a terminal or a pipe (`| less -R` obeys escapes too);
- JSON printed by `--json`: each written as JSON's own `\\uXXXX` escape (`json_shown`), so the
  JSON is the same values, still valid, with nothing a terminal obeys;
- a format asked for by `-o FILE`, `-o -` or `export`: the format's exact bytes for a file or a
  pipe (a program reading JSON Lines, Markdown or HTML gets what the format holds), and, when
  standard output is a terminal, JSON Lines escaped as `--json` is and text formats as a
  person's text is (`for_stdout`); a picture (PNG) is bytes nobody reads as text.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import msgspec

from woundlog.core import Changes, Character, FightState, Ruleset, show
from woundlog.events import WoundlogError

if TYPE_CHECKING:  # rich loads when a table or a coloured line is printed, the odds with odds
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..application import FightSummary, LastChange
    from ..fight import Appended
    from ..whatif import CharacterOdds, Odds

UNDO_TYPES = ("retract", "amend")
STATE_STYLES = {
    "upright": "green",
    "knocked_down": "yellow",
    "stunned": "magenta",
    "downed": "red",
    "stabilised": "cyan",
    "out_of_action": "bold red",
    "dead": "bold red",
}


PIPE_WIDTH = 160
"""Width for output that is not a terminal: rich's 80 would squeeze tables into truncated cells."""


def console(*, stderr: bool = False) -> Console:
    # Made per use, not at import: rich would keep the streams of the moment it was built, and a
    # test runner swaps sys.stdout between invocations.
    from rich.console import Console

    made = Console(stderr=stderr, highlight=False, emoji=False)
    if not made.is_terminal and "COLUMNS" not in os.environ:
        made.width = PIPE_WIDTH
    return made


_RICH_STRIPS = dict.fromkeys((0x07, 0x08, 0x0B, 0x0C, 0x0D))
"""The control characters rich removes from text it prints (bell, backspace, vertical tab, form
feed, carriage return): a plain line drops them too, and prints what it printed through rich."""


_LAYOUT = "\n\t"
"""The only control characters a line of woundlog's own may hold."""


def shown(text: str) -> str:
    """`text` safe for a terminal: every control or invisible character (ESC, BEL, NUL, DEL, C1,
    bidirectional overrides, zero-width ones, a byte order mark) written as its Python escape
    (`\\x1b`, `\\u202e`), so an id or name from a log written before the wire refused them
    is shown, never obeyed. Newlines and tabs are the CLI's own layout."""
    if text.isprintable():
        return text
    return "\n".join(map(_shown_line, text.split("\n")))


def _shown_line(line: str) -> str:
    if line.isprintable():  # most lines of a long text: checked in C
        return line
    return "".join(
        char if char.isprintable() or char in _LAYOUT else repr(char)[1:-1] for char in line
    )


def json_shown(text: str) -> str:
    """JSON `text` with every control or invisible character msgspec leaves as it is (DEL, C1,
    bidirectional overrides, zero-width ones, a byte order mark, separators other than the
    space) written as JSON's `\\uXXXX` escape: the same values, nothing a terminal obeys.
    Such characters only occur inside strings, where the escape means the character itself;
    the newlines of indented JSON are its layout."""
    if all(map(str.isprintable, text.split("\n"))):
        return text
    return "".join(
        char if char.isprintable() or char == "\n" else _json_escape(char) for char in text
    )


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # past the basic plane: a surrogate pair, as JSON writes one
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def for_stdout(data: bytes, shape: str) -> bytes:
    """What `-o -` (or `export`) writes to standard output of a format `shape` (a suffix:
    jsonl, md, html, svg, png): its exact bytes, unless standard output is a terminal, where
    text is neutralised (JSON Lines as JSON, the rest as a person's text)."""
    return stdout_filter(shape)(data)


def stdout_filter(shape: str) -> Callable[[bytes], bytes]:
    """`for_stdout` of `shape`, standard output asked once whether it is a terminal: for a
    writer of many pieces (`export`, line by line)."""
    if shape == "png" or not stdout_is_terminal():
        return _as_it_is
    return partial(_neutralised, shape=shape)


def _as_it_is(data: bytes) -> bytes:
    return data


def _neutralised(data: bytes, *, shape: str) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    return (json_shown(text) if shape in ("json", "jsonl") else shown(text)).encode(
        "utf-8", "surrogateescape"
    )


def say(text: str | Text, *, out: Console | None = None) -> None:
    """Print one line as it is: no markup (event text has brackets), never wrapped.

    A plain string to stdout is written directly, exactly as rich would print it (its control
    characters dropped, tabs expanded to 8 columns), so that printing an event never loads rich.
    """
    if isinstance(text, str):
        text = shown(text)
    if out is None and isinstance(text, str):
        sys.stdout.write(text.translate(_RICH_STRIPS).expandtabs(8) + "\n")
        sys.stdout.flush()  # as rich does: a line is out before whatever goes to stderr next
        return
    (out or console()).print(text, markup=False, soft_wrap=True)


def print_raw(text: str) -> None:
    """Text printed whole (Markdown, a diagram, help): to stdout with its control characters
    neutralised (`shown`), unwrapped, one trailing newline."""
    _write_stdout(shown(text))


def _write_stdout(text: str) -> None:
    sys.stdout.write(text.rstrip("\n") + "\n")
    sys.stdout.flush()


def print_json(value: Any, *, indent: int = 0) -> None:
    """`value` as JSON to stdout, control characters as JSON escapes (`json_shown`)."""
    encoded = msgspec.json.encode(value)
    text = (msgspec.json.format(encoded, indent=indent) if indent else encoded).decode()
    _write_stdout(json_shown(text))


def print_error(error: WoundlogError | str, *, hint: str | None = None) -> None:
    """`error: ...` on stderr, then each line of `hint` as `hint: ...`: the one shape of every
    error, woundlog's own and the command line's."""
    err = console(stderr=True)
    err.print(shown(f"error: {error}"), markup=False, soft_wrap=True, style="red")
    for line in (hint or "").splitlines():
        err.print(shown(f"hint: {line}"), markup=False, soft_wrap=True)


def report_voids(voids: Sequence[Any]) -> None:
    """Each void event of a replay on its own line of stderr, then how many: standard output
    stays the state (JSON for a program), and the person still sees what was refused."""
    if not voids:
        return
    err = console(stderr=True)
    for void in voids:
        err.print(shown(f"warning: {void}"), markup=False, soft_wrap=True, style="yellow")
    count = f"{len(voids)} event{'s' if len(voids) > 1 else ''}"
    err.print(
        f"warning: {count} void: the rules refuse them, so they did nothing "
        "(--strict stops at the first)",
        markup=False,
        soft_wrap=True,
        style="yellow",
    )


# --- events -------------------------------------------------------------------------------------


def dice_text(changes: Changes) -> str:
    """`dice: injury d6=3 given, injury d6=5 drawn | unused: injury 6`, or '' if no dice."""
    parts = []
    if changes.dice:
        used = ", ".join(d.label() for d in changes.dice)
        parts.append(f"dice: {used}")
    if changes.unused:
        unused = ", ".join(
            f"{purpose} {','.join(map(str, values))}" for purpose, values in changes.unused.items()
        )
        parts.append(f"unused: {unused}")
    return " | ".join(parts)


def event_line(changes: Changes) -> str:
    """`Changes.line()` with its dice; consequences are left to their own lines."""
    line = msgspec.structs.replace(changes, consequences=[]).line()
    dice = dice_text(changes)
    return f"{line} | {dice}" if dice else line


def print_changes(changes: Changes, *, moves: bool = False, out: Console | None = None) -> None:
    """One event: its line, then an undo's consequences (or that it had none).

    With `moves`, also each character the event changed, one per line.
    """
    say(event_line(changes), out=out)
    if moves:
        for change in changes.characters:
            say(f"    {change.summary()}", out=out)
    if changes.type in UNDO_TYPES and changes.void is None:
        for change in changes.consequences:
            say(f"    consequence: {change.summary()}", out=out)
        if not changes.consequences:
            say("    no consequences: no character's state or counters changed", out=out)


def print_appended(appended: Appended, *, as_json: bool) -> None:
    if as_json:
        print_json(appended)
        return
    for changes in appended.changes:
        print_changes(changes)
    if appended.skipped:
        say(f"already recorded, nothing appended: {', '.join(appended.skipped)}")
    if appended.warnings:
        err = console(stderr=True)
        for warning in appended.warnings:
            err.print(shown(f"warning: {warning}"), markup=False, soft_wrap=True, style="yellow")


# --- state --------------------------------------------------------------------------------------


def counter_names(characters: Iterable[Character]) -> list[str]:
    """The ruleset's own fields of its characters (`wounds`, `half_rate`, ...), in order."""
    common = set(Character.__struct_fields__)
    names: dict[str, None] = {}
    for character in characters:
        names.update(dict.fromkeys(f for f in character.__struct_fields__ if f not in common))
    return list(names)


def cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "-"
    return shown(show(value))


class StateColumns(msgspec.Struct, frozen=True):
    """The state table's columns and each character's cells, before any layout."""

    heading: str
    columns: list[str]
    rows: list[list[str | Text]]
    composite: set[str]  # columns holding collections (injuries, gear, stats): long, multi-part


def state_columns(state: FightState[Any], title: str) -> StateColumns:
    from rich.text import Text

    characters = list(state.characters.values())
    counters = [  # a counter nobody has (an optional stat never given) is no column
        name
        for name in counter_names(characters)
        if any(getattr(c, name, None) is not None for c in characters)
    ]
    composite = {"stats"} | {
        name
        for name in counters
        if any(isinstance(getattr(c, name, None), list | tuple | dict) for c in characters)
    }
    heading = f"{title}: {state.ruleset}, seq {state.seq}" + (", ended" if state.ended else "")
    rows: list[list[str | Text]] = [
        [
            shown(cid),
            shown(character.name),
            shown(character.side),
            Text(character.state, style=STATE_STYLES.get(character.state, "")),
            *(cell(getattr(character, name)) for name in counters),
            cell(character.stats),  # as joined; what the rules changed is in its own column
        ]
        for cid, character in state.characters.items()
    ]
    return StateColumns(
        shown(heading), ["id", "name", "side", "state", *counters, "stats"], rows, composite
    )


def state_table(
    state: FightState[Any] | StateColumns,
    title: str = "",
    *,
    leave_out: Iterable[str] = (),
    headers: dict[str, str] | None = None,
    compact: bool = False,
) -> Table:
    """The state table: a row per character. A cell too long for its column wraps (a word too
    long is folded), never ends in `…`; `headers` abbreviates column names; `compact` draws no
    lines between columns, which leaves their content two characters more each."""
    from rich import box
    from rich.table import Table

    made = state if isinstance(state, StateColumns) else state_columns(state, title)
    shown = [i for i, column in enumerate(made.columns) if column not in set(leave_out)]
    table = Table(title=made.heading, title_justify="left")
    if compact:
        table.box, table.padding, table.show_edge = box.SIMPLE_HEAD, (0, 1, 0, 0), False
    for i in shown:
        column = made.columns[i]
        table.add_column((headers or {}).get(column, column), overflow="fold")
    for row in made.rows:
        table.add_row(*(row[i] for i in shown))
    return table


def abbreviations(columns: Iterable[str], *, initials: bool = False) -> dict[str, str]:
    """Short names for long column names: each word cut to its first three letters
    (`max_constitution` -> `max_con`); with `initials`, a name of several words by their
    initials, as games abbreviate (`weapon_skill` -> `ws`). Longer where two would read alike."""
    names = list(columns)
    long = [c for c in names if len(c) > (3 if initials else 6)]
    for letters in range(3, 12):
        short = {c: shorten(c, letters, initials) for c in long}
        taken = list(short.values())
        if len(set(taken)) == len(taken) and not set(taken) & (set(names) - set(long)):
            return {c: s for c, s in short.items() if s != c}
    return {}


def shorten(name: str, letters: int, initials: bool) -> str:
    words = name.split("_")
    if initials and len(words) > 1:
        return "".join(word[: letters - 2] for word in words)  # 3 letters: the initials
    return ("" if initials else "_").join(word[:letters] for word in words)


def print_state(state: FightState[Any], title: str, *, as_json: bool, wide: bool = False) -> None:
    """The state table, fitted to the terminal. Each step is taken only if the table is still
    too wide: long column names are abbreviated (with a legend), the fewest first; collections
    (injuries, gear, stats) move to lines under it; the lines between columns go, and so do
    columns nobody has a value in. Then cells wrap. `wide`: every column, unabridged."""
    if as_json:
        print_json(state)
        return
    if not state.characters:
        say(f"{title}: {state.ruleset}, seq {state.seq}: nobody has joined yet")
        return
    out = console()
    made = state_columns(state, title)
    if wide:
        table = state_table(made)
        out.width = max(out.width, natural_width(out, table))
        out.print(table)
        return
    empty = {
        column
        for i, column in enumerate(made.columns)
        if all(str(row[i]) == "-" for row in made.rows)
    }
    narrow = made.composite | empty
    layouts = [(set(), False, False), (made.composite, False, False), (narrow, True, False)]
    for left_out, compact, initials in [*layouts, (narrow, True, True)]:
        headers = fewest_abbreviations(out, made, left_out, compact, initials)
        table = state_table(made, leave_out=left_out, headers=headers, compact=compact)
        if natural_width(out, table) <= out.width:
            break
    out.print(table)
    legend = [f"{headers[name]} = {name}" for name in made.columns if name in headers]
    if legend:
        out.print(f"legend: {', '.join(legend)}", markup=False, highlight=False)
    below = [c for c in made.columns if c in left_out and c not in empty]
    if below:
        out.print(collections_below(made, below))
    if left_out:
        hidden = sorted(left_out & empty)
        nothing = f"; nobody has a value in {', '.join(hidden)}" if hidden else ""
        say(f"(woundlog state --wide: every column in one table{nothing})", out=out)


def fewest_abbreviations(
    out: Console, made: StateColumns, left_out: set[str], compact: bool, initials: bool
) -> dict[str, str]:
    """Abbreviate column names one at a time, the one that saves most first, until the table
    fits: a name is cut only when the table needs it. All of them, if it never fits."""
    shown = [c for c in made.columns if c not in left_out]
    widest = {
        column: max(len(str(row[made.columns.index(column)])) for row in made.rows)
        for column in shown
    }
    candidates = sorted(
        (
            (len(name) - max(len(short), widest[name]), name, short)
            for name, short in abbreviations(shown, initials=initials).items()
        ),
        reverse=True,
    )
    headers: dict[str, str] = {}
    for saved, name, short in candidates:
        table = state_table(made, leave_out=left_out, headers=headers, compact=compact)
        if natural_width(out, table) <= out.width or saved <= 0:
            break
        headers[name] = short
    return headers


def natural_width(out: Console, table: Table) -> int:
    """The width `table` takes when nothing wraps (rich's own measure stops at the console's)."""
    from rich.measure import Measurement

    return Measurement.get(out, out.options.update_width(100_000), table).maximum


def collections_below(made: StateColumns, columns: list[str]) -> Table:
    """The columns too long for the table, as lines: character, column, value (wrapped)."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 1))
    grid.add_column(overflow="fold")
    grid.add_column(style="bold")
    grid.add_column(overflow="fold")
    for row in made.rows:
        named = str(row[0])
        for column in columns:
            value = row[made.columns.index(column)]
            if str(value) != "-":
                grid.add_row(named, column, value)
                named = ""
    return grid


def fights_table(found: Sequence[FightSummary]) -> Table:
    from rich.table import Table

    table = Table(title="fights", title_justify="left")
    for column in ("fight", "ruleset", "name", "events", "last change"):
        table.add_column(column, justify="right" if column == "events" else "left")
    for each in found:
        table.add_row(
            shown(each.fight),
            shown(each.ruleset),
            shown(each.name or "-"),
            str(each.events),
            "-" if each.last_change is None else last_change(each.last_change),
        )
    return table


def last_change(change: LastChange) -> str:
    """`#12 hit`, then when it happened if whoever recorded it said."""
    named = f"#{change.seq} {change.type}"
    return named if change.at is None else f"{named}, {change.at.isoformat()}"


# --- odds ---------------------------------------------------------------------------------------


def print_odds(answer: Odds) -> None:
    """Per character, a table of each outcome (state and the counters that differ between
    outcomes) with its chance as a fraction and a percentage."""
    how = (
        "exact"
        if answer.exact
        else f"estimated from {answer.samples:,} samples (95% interval per state)"
    )
    from rich.table import Table

    say(f"odds {answer.when()} (the what-if), {how}")
    for void in answer.void:
        say(
            f"  the what-if's event {void.event} of {answer.events} is void on "
            f"{void.percent:.2f}% of paths: {void.reason}"
        )
    for cid, character in answer.characters.items():
        varying = _varying(character)
        table = Table(title=shown(f"{character.name} ({cid})"), title_justify="left")
        for column in ("state", *varying, "chance", "%"):
            table.add_column(column, justify="right" if column in ("chance", "%") else "left")
        for outcome in character.outcomes:
            cells = [shown(show(outcome.outcome.get(field))) for field in varying]
            table.add_row(
                outcome.outcome["state"], *cells, outcome.chance, f"{outcome.percent:.2f}"
            )
        console().print(table)
        summary = ", ".join(
            f"{s.state} {s.percent:.2f}%"
            + (f" [{s.low:.2f}-{s.high:.2f}]" if s.low is not None else "")
            for s in character.states
        )
        say(f"  {summary}")


def _varying(character: CharacterOdds) -> list[str]:
    """The counters whose value differs between outcomes: the ones worth a column."""
    fields: dict[str, set[str]] = {}
    for outcome in character.outcomes:
        for field, value in outcome.outcome.items():
            if field != "state":
                fields.setdefault(field, set()).add(repr(value))
    return [field for field, values in fields.items() if len(values) > 1]


# --- rulesets -----------------------------------------------------------------------------------


def rules_list(rulesets: Mapping[str, Ruleset]) -> Table:
    from rich.table import Table

    table = Table(title="rulesets", title_justify="left")
    table.add_column("name")
    table.add_column("about")
    for name, rules in rulesets.items():
        table.add_row(name, rules.documentation().partition("\n")[0])
    return table


def rules_summary(rules: Ruleset) -> Table:
    """What a ruleset declares: the words a log written for it may use."""
    from rich.table import Table

    from ..reference import glance

    table = Table(title=f"{rules.name} at a glance", title_justify="left", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("declared")
    for what, declared in glance(rules).items():
        table.add_row(what, declared or "none")
    return table


def who_may_act_table(rules: Ruleset) -> Table:
    """Per state of the ruleset's machine: may a character in it attack, heal, and why not."""
    from rich.table import Table

    from ..reference import who_may_act_rows

    table = Table(title=f"who may act in {rules.name}", title_justify="left")
    for column in ("state", "attack", "heal", "why not"):
        table.add_column(column)
    for row in who_may_act_rows(rules):
        table.add_row(*row)
    return table
