"""What if: the exact odds of what might happen next (`odds`), a fight that copies another up to
a point and goes on otherwise (`branch`), and what differs between two fights (`diff`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from woundlog.events import UsageError

from ..application import Application, NothingAsked
from .application import application, reading
from .options import AsJson, At, Db, FightId, FightOrFile
from .output import print_appended, print_changes, print_json, print_odds, say
from .written import PICTURES, chosen_format, to_stdout, write_output


def odds(
    source: FightOrFile,
    then: Annotated[
        list[str] | None,
        typer.Option("--then", metavar="EVENT_JSON", help="An event of the what-if (repeatable)."),
    ] = None,
    then_file: Annotated[
        Path | None,
        typer.Option("--then-file", metavar="WHATIF.jsonl", help="The what-if's events, a file."),
    ] = None,
    hit_: Annotated[
        list[str] | None,
        typer.Option(
            "--hit", metavar="TARGET:DAMAGE[:ATTACKER]", help="A hit of the what-if (repeatable)."
        ),
    ] = None,
    ticks: Annotated[
        int, typer.Option("--ticks", metavar="N", help="Then N rounds of turns, every side's.")
    ] = 0,
    character: Annotated[
        list[str] | None,
        typer.Option("--character", metavar="C", help="Only this character (repeatable)."),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples", metavar="N", help="Estimate from N sampled replays instead of exactly."
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", metavar="FILE.svg|FILE.png", help="Also draw the odds as a bar chart."
        ),
    ] = None,
    at: At = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """The exact chance of every outcome of a what-if: these events, from now (or event N).

    The what-if is `--then` events, a `--then-file`, `--hit` shorthands and `--ticks` rounds,
    in that order. Dice the what-if gives are fixed; every other die is enumerated."""
    if to_stdout(plot):  # the odds themselves are printed there
        raise UsageError("--plot -: the odds go to standard output; draw the chart to a file")
    shape = chosen_format(plot, None, PICTURES, option="--plot") if plot is not None else None
    with reading(source, db) as (app, fight):
        state = app.state(fight, at)
        events = app.whatif_events(then or [], file=then_file)
        try:
            whatif = app.whatif(state, events, hits=hit_ or [], ticks=ticks)
        except NothingAsked:
            raise UsageError("say what happens: --then, --then-file, --hit or --ticks") from None
        answer = app.odds(state, whatif, characters=character or [], samples=samples)
    if plot is not None and shape is not None:
        from ..render.odds import odds_svg  # the picture code loads only when asked
        from ..render.svg import picture

        write_output(plot, picture(odds_svg(answer, Path(source).stem), shape), shape)
    if as_json:
        print_json(answer)
    else:
        print_odds(answer)


def branch_fight(
    fight: FightId,
    new: Annotated[str, typer.Option("--as", metavar="NEW", help="The new fight's id.")],
    then: Annotated[
        list[str] | None,
        typer.Option("--then", metavar="EVENT_JSON", help="An event after the copy (repeatable)."),
    ] = None,
    hit_: Annotated[
        list[str] | None,
        typer.Option("--hit", metavar="TARGET:DAMAGE[:ATTACKER]", help="A hit after the copy."),
    ] = None,
    at: At = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A new fight that copies FIGHT's log up to event N, then what might have happened."""
    events = Application.whatif_events(then or [])  # read before any store is opened
    with application(db) as app:
        made = app.branch(fight, new, at=at, then=events, hits=hit_ or [])
    added = len(events) + len(hit_ or [])
    if as_json:
        print_appended(made, as_json=True)
        return
    say(f"fight `{new}` branches from `{fight}` at #{made.version - added}")
    for changes in made.changes[-added:] if added else []:
        print_changes(changes)


def diff_fights(
    first: Annotated[str, typer.Argument(metavar="FIGHT", help="A fight in the store.")],
    second: Annotated[str, typer.Argument(metavar="OTHER", help="Another, say its branch.")],
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Per character, what differs between two fights as they stand (a fight and its branch)."""
    with application(db, create=False) as app:
        differences = app.diff(first, second)
    if as_json:
        print_json(differences)
    elif not differences:
        say(f"`{first}` and `{second}` stand the same")
    else:
        for change in differences:
            say(change.summary())
