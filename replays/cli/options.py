"""The options and arguments several commands share, declared once: `--roll`, `--fact`,
`--json`, `--at`, `--wide`, `--id`, `--note`, `--reason`, the FIGHT argument and the store."""

from __future__ import annotations

from typing import Annotated

import typer

from woundlog.events.fight_ids import BadFightId, check_fight_id

Context = typer.Context

Db = str | None
"""A command's parameter `db: Db = None` is not an option of its own: the registry gives it the
store of the app's `--db`, so `--db` is given once, before the command."""

OldDb = Annotated[str | None, typer.Option("--db", metavar="URL", hidden=True)]
"""`COMMAND --db URL`, where --db went before it moved to the app: kept, hidden, so that scripts
written then keep working; a warning says where it goes now."""


def valid_fight_id(fight: str) -> str:
    """A FIGHT argument, checked by the one rule of fight ids (events/fight_ids.py)."""
    try:
        return check_fight_id(fight)
    except BadFightId as error:
        raise typer.BadParameter(error.message) from None


def whole_number(text: str) -> int:
    """DAMAGE and AMOUNT as written in a log: digits 0-9 only. click's INT is Python's `int`,
    which takes `1_000`, `+5`, ` 7 ` and other scripts' digits as numbers."""
    if not (text.isascii() and text.isdigit()):
        raise typer.BadParameter(f"{text!r} is not a whole number (digits 0-9 only)")
    return int(text)


FightId = Annotated[
    str,
    typer.Argument(metavar="FIGHT", help="The fight's id in the store.", callback=valid_fight_id),
]
FightOrFile = Annotated[
    str,
    typer.Argument(metavar="FIGHT|FILE.jsonl", help="A fight in the store, or a fight log file."),
]
"""A fight read as a stored fight or a `.jsonl` file alike (`cli.application.reading`)."""
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
Wide = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Every column in one table, unabridged, however wide (else it is fitted to the "
        "terminal: names abbreviated with a legend, long values under the table).",
    ),
]
At = Annotated[
    int | None, typer.Option("--at", min=1, metavar="N", help="As the fight stood at event N.")
]
Rolls = Annotated[
    list[str] | None,
    typer.Option(
        "--roll",
        metavar="PURPOSE[@CHARACTER]=V[,V...]",
        help="Dice already rolled, in order (repeatable); `downed@brakk=1` is one character's "
        "die in a turn that rolls for several.",
    ),
]
Facts = Annotated[
    list[str] | None,
    typer.Option("--fact", metavar="KEY=VALUE", help="An optional fact of the ruleset."),
]
EventId = Annotated[
    str | None, typer.Option("--id", help="The event's id (makes a resend harmless).")
]
Note = Annotated[str | None, typer.Option("--note", help="Free text kept with the event.")]
Reason = Annotated[str, typer.Option("--reason", help="Why, kept in the log.")]
