"""A fight seen over time: a log file replayed into state (`replay`), and its timeline drawn as
a picture (`timeline`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from woundlog.events import UsageError

from ..application import Application
from .application import reading
from .options import AsJson, At, Db, FightOrFile, Wide
from .output import print_changes, print_json, print_state, report_voids, say
from .written import PICTURES, Format, chosen_format, to_stdout, write_output


def replay(
    file: Annotated[Path, typer.Argument(metavar="FILE.jsonl", help="A fight log.")],
    at: At = None,
    as_json: AsJson = False,
    trace: Annotated[
        bool,
        typer.Option(
            "--trace",
            help="Print every event's changes as the fight stands (undone events marked); "
            "with --json, one JSON object per line, the state last.",
        ),
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at an event the rules refuse, not void it.")
    ] = False,
    wide: Wide = False,
) -> None:
    """Fold a `.jsonl` fight log into state; no store involved.

    Each event the rules refuse is void (it does nothing) and named on standard error, with
    its line and why, so a typo never silently changes the fight; `--strict` stops there."""
    app = Application.without_store()
    voids: list[object] = []
    if trace:
        last = None
        for now, changes in app.replay(file, at=at, strict=strict, on_void=voids.append):
            last = now  # only the final state is kept: memory stays flat however long the file
            if as_json:
                print_json(changes)
            else:
                print_changes(changes)
    else:  # nobody reads the changes: fold to the state alone, which is faster
        last = app.replay_state(file, at=at, strict=strict, on_void=voids.append)
    report_voids(voids)
    if last is None:
        raise UsageError(f"{file} holds no events")
    if at is not None and last.seq < at:
        raise UsageError(f"--at {at}: {file} has events 1 to {last.seq}")
    print_state(last, file.stem, as_json=as_json, wide=wide)


def timeline(
    source: FightOrFile,
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE.svg|FILE.png|-",
            help="The picture: fight.svg or fight.png; `-` is standard output.",
        ),
    ],
    format_: Format = None,
    db: Db = None,
) -> None:
    """Draw a fight's timeline as a picture: a row per character, a column per event; then
    say what was written (the file, its size, what it shows)."""
    shape = chosen_format(output, format_, PICTURES)
    with reading(source, db) as (app, fight):
        history = app.history(fight)
    from ..render.svg import picture  # the drawing loads only when a picture is drawn
    from ..render.timeline import characters, timeline_svg

    title = history.name or history.fight
    drawn = picture(timeline_svg(history.moments, title), shape)
    write_output(output, drawn, shape)
    if to_stdout(output):
        return
    cast, events = len(characters(history.moments)), len(history.moments)
    say(
        f"wrote {output} ({shape.upper()}, {len(drawn):,} bytes): the "
        f"timeline of `{title}`, {cast} character{'s' * (cast != 1)} over "
        f"{events} event{'s' * (events != 1)}"
    )
