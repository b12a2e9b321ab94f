"""The commands that correct a mistake: `undo` (retract) and `amend`, each printing what it
changed. History is kept: both are events."""

from __future__ import annotations

from typing import Annotated

import typer

from . import inputs as given
from .application import application, one_event, record
from .options import AsJson, Db, FightId, Reason
from .output import print_appended


def undo(
    fight: FightId,
    event: Annotated[
        str | None,
        typer.Argument(
            metavar="EVENT",
            help="The event's id, or its number N (also @N, or '#N' quoted). Default: the "
            "newest still live.",
        ),
    ] = None,
    reason: Reason = "",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Retract an event (history is kept) and print what that changed."""
    name = None if event is None else given.event_name(event)
    with application(db, create=False) as app, one_event():
        print_appended(app.undo(fight, name, reason=reason), as_json=as_json)


def amend(
    fight: FightId,
    event: Annotated[
        str,
        typer.Argument(
            metavar="EVENT", help="The event's id, or its number N (also @N, or '#N' quoted)."
        ),
    ],
    replacement: Annotated[
        str,
        typer.Option(
            "--replacement", "--with", metavar="EVENT_JSON", help="The whole replacement event."
        ),
    ],
    reason: Reason = "",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Replay an event as another one, in its place, and print what that changed."""
    # Recorded as the whole amend event, as typed: a bad field is named where it stands in it
    # (`$.replacement.damage`).
    fields = {
        "type": "amend",
        "event": given.event_name(event),
        "replacement": given.json_object(replacement, "--replacement"),
        "reason": reason,
    }
    record(db, fight, fields, as_json=as_json)
