"""What if: the exact odds of what might happen next (`odds`), a fight that copies another up to
a point and goes on otherwise (`branch`), and what differs between two fights (`diff`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from woundlog.core import FightState
from woundlog.events import UsageError, bounded
from woundlog.events.codec import iter_jsonl

from ..application import Application, NothingAsked
from ..branch import compare
from ..files import replay_file_state
from ..whatif import hit_shorthand, then_events
from .application import application
from .options import AsJson, At, Db, FightId
from .output import print_appended, print_changes, print_json, print_odds, say
from .written import PICTURES, chosen_format, to_stdout, write_output


def odds(
    source: Annotated[
        str,
        typer.Argument(metavar="FIGHT|FILE.jsonl", help="A fight in the store, or a fight log."),
    ],
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
    with source_state(source, at, db) as (app, state):
        events = [*then_events(then or [])]
        if then_file is not None:
            with open(then_file, "rb") as lines:
                events += [event for _, event in iter_jsonl(bounded.lines(lines, then_file))]
        try:
            whatif = app.whatif(state, events, hits=hit_ or [], ticks=ticks)
        except NothingAsked:
            raise UsageError("say what happens: --then, --then-file, --hit or --ticks") from None
        answer = app.odds(state, whatif, characters=character or [], samples=samples)
    if plot is not None and shape is not None:
        from ..odds_plot import odds_svg  # the picture code loads only when asked
        from ..pictures import picture

        write_output(plot, picture(odds_svg(answer, Path(source).stem), shape))
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
    whatif = [*then_events(then or []), *(hit_shorthand(text) for text in hit_ or [])]
    with application(db) as app:
        made = app.branch(fight, new, at=at, then=whatif)
    if as_json:
        print_appended(made, as_json=True)
        return
    say(f"fight `{new}` branches from `{fight}` at #{made.version - len(whatif)}")
    for changes in made.changes[-len(whatif) :] if whatif else []:
        print_changes(changes)


def diff_fights(
    first: Annotated[str, typer.Argument(metavar="FIGHT", help="A fight in the store.")],
    second: Annotated[str, typer.Argument(metavar="OTHER", help="Another, say its branch.")],
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Per character, what differs between two fights as they stand (a fight and its branch)."""
    with application(db, create=False) as app:
        differences = compare(app.state(first), app.state(second))
    if as_json:
        print_json(differences)
    elif not differences:
        say(f"`{first}` and `{second}` stand the same")
    else:
        for change in differences:
            say(change.summary())


@contextmanager
def source_state(
    source: str, at: int | None, db: str | None
) -> Iterator[tuple[Application, FightState[Any]]]:
    """The state of a fight log file (a path ending `.jsonl`), else of a fight in the store,
    with the application to ask about it: a file's needs no store."""
    if source.endswith(".jsonl"):
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"no file {source}")
        state = replay_file_state(path, at=at)
        if state is None:
            raise UsageError(f"{source} holds no events")
        yield Application(no_store), state
        return
    with application(db, create=False) as app:
        # the fight's own `state`, which says an N past its end as `--at N`
        yield app, app.fight(source).state(at)


def no_store() -> Any:
    """The store of the application a fight log file's what-if runs on: none is read."""
    raise AssertionError("a fight log file's what-if reads no store")
