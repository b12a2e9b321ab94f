"""The commands of turns: the next turn, and the turn order. Each one call of the application
(`application/turns.py`); in `woundlog play` they are the session's own (`next`, `order`)."""

from __future__ import annotations

from typing import Annotated

import typer

from woundlog.events import UsageError

from . import inputs as given
from .application import application, one_event
from .options import AsJson, Db, EventId, FightId, Rolls
from .output import print_appended, say


def next_turn(
    fight: FightId,
    roll: Rolls = None,
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """End the current turn and start the next in the turn order (the dead are passed over);
    after the last, the next round. What the rules did at each is printed, as `hit` prints it.

    A die of one character (`death_save@mirabel=14`) goes to his turn's tick; a die of no
    character to the start of the next turn."""
    with application(db, create=False) as app, one_event():
        app.fight(fight)
        appended = app.next_turn(fight, rolls=given.rolls(roll or []), event_id=event_id)
        print_appended(appended, as_json=as_json)
        if as_json:
            return
        now = app.state(fight)
        if now.turn.current is not None:
            name = now.characters[now.turn.current].name or now.turn.current
            say(f"round {now.turn.round}: {name}'s turn")


def order(
    fight: FightId,
    characters: Annotated[
        list[str],
        typer.Argument(
            metavar="CHARACTER",
            help="The characters first to last (ids or names); or each with its initiative "
            "(`grim=15 snik=12`: higher first, ties by join order). Those not named follow.",
            show_default=False,
        ),
    ],
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Set the turn order from here on (a `turn_order` event); whose turn it is stays."""
    valued = ["=" in word for word in characters]
    if any(valued) and not all(valued):
        raise UsageError(
            "give every character an initiative (`grim=15 snik=12`), or none (`grim snik`)"
        )
    with application(db, create=False) as app, one_event():
        app.fight(fight)
        if all(valued):
            initiative = {
                who: _initiative(value) for who, value in given.pairs(characters, "CHARACTER")
            }
            appended = app.turn_order(fight, initiative=initiative, event_id=event_id)
        else:
            appended = app.turn_order(fight, characters, event_id=event_id)
        print_appended(appended, as_json=as_json)


def _initiative(text: str) -> int:
    """An initiative value as typed: a whole number, maybe negative."""
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        raise UsageError(f"initiative {text!r} is not a whole number")
    return int(text)
