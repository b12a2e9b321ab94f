"""`woundlog demo`: a bundled Mordheim skirmish, recorded event by event as a GM would.

Each event of `data/mordheim_skirmish.jsonl` is appended to a fight in a private in-memory store,
exactly as `woundlog hit` and friends append, and what it did is told as it happens: each die
(given at the table, or drawn from the fight's seed), who fell, and the GM's mistaken hit being
retracted, with its consequences. Nothing is written to disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib.resources import files
from importlib.resources.abc import Traversable

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from woundlog.core import Changes, CharacterChange
from woundlog.events import Event, FightStarted, iter_jsonl
from woundlog.events.stores import SQLiteStore

from ..application import Application
from .output import print_changes, say, state_table

SKIRMISH = "mordheim_skirmish.jsonl"
WORSE = ("upright", "knocked_down", "stunned", "stabilised", "downed", "out_of_action", "dead")
"""The seven states from best to worst, to tell a fall from a recovery."""


def bundled(name: str) -> Traversable:
    """A file shipped in `woundlog/replays/data/`."""
    return files("woundlog.replays") / "data" / name


def bundled_events(name: str) -> Iterator[Event]:
    with bundled(name).open("rb") as f:
        for _, event in iter_jsonl(f):
            yield event


def fell(change: CharacterChange) -> str | None:
    """`Grim Halvard falls: stunned`, when a character goes down (or further down)."""
    if change.before is None or change.after is None:
        return None
    if WORSE.index(change.after) <= WORSE.index(change.before):
        return None
    if change.after in ("out_of_action", "dead"):
        return f"{change.name} is {change.after.replace('_', ' ')}"
    return f"{change.name} falls: {change.after.replace('_', ' ')}"


def tell(out: Console, event: Event, changes: Changes) -> None:
    """One event of the story: the GM's note, what the rules did with it, who fell."""
    if changes.type in ("retract", "amend"):
        out.print(Rule("the GM undoes a mistake", style="yellow"))
    if event.note:
        out.print(Text(event.note, style="italic dim"), soft_wrap=True)
    print_changes(changes, moves=True, out=out)
    for change in changes.characters:
        falls = fell(change)
        if falls:
            out.print(Text(f"    >> {falls}", style="bold red"))


def run_demo(out: Console) -> None:
    events = bundled_events(SKIRMISH)
    started = next(events)
    assert isinstance(started, FightStarted)
    out.print(Rule(f"woundlog demo: {started.name}"))
    say(
        f"Replaying {SKIRMISH} ({started.ruleset}, seed {started.seed}) event by event. Dice are "
        "`given` when rolled at the table and recorded, `drawn` when the rules derive them from "
        "the fight's seed and the event's id.",
        out=out,
    )
    with SQLiteStore(":memory:") as store:
        app = Application.over(store)
        tell(out, started, app.create("demo", started).changes[0])
        for event in events:
            tell(out, event, app.record("demo", [event]).changes[0])
        out.print(Rule("history is never edited"))
        say("The mistaken hit is still in the log, marked as undone:", out=out)
        for changes in app.log("demo"):
            if changes.undone is not None:
                say(f"    {changes.line()}", out=out)
        out.print(state_table(app.state("demo"), "final state"))
