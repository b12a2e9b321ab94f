"""A fight seen over time: a log file replayed into state (`replay`), and its timeline drawn as
a picture (`timeline`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from woundlog.events import UsageError

from ..files import Void, replay_file, replay_file_state
from ..pictures import characters, fight_moments, file_moments, picture, timeline_svg
from .application import application
from .options import AsJson, At, Db, Wide
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
    voids: list[Void] = []
    if trace:
        last = None
        for now, changes in replay_file(file, at=at, strict=strict, on_void=voids.append):
            last = now  # only the final state is kept: memory stays flat however long the file
            if as_json:
                print_json(changes)
            else:
                print_changes(changes)
    else:  # nobody reads the changes: fold to the state alone, which is faster
        last = replay_file_state(file, at=at, strict=strict, on_void=voids.append)
    report_voids(voids)
    if last is None:
        raise UsageError(f"{file} holds no events")
    if at is not None and last.seq < at:
        raise UsageError(f"--at {at}: {file} has events 1 to {last.seq}")
    print_state(last, file.stem, as_json=as_json, wide=wide)


def timeline(
    source: Annotated[
        str, typer.Argument(metavar="FIGHT|FILE.jsonl", help="A fight in the store, or a log file.")
    ],
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
    if source.endswith(".jsonl"):
        moments, title = file_moments(Path(source))
    else:
        with application(db) as app:
            moments = fight_moments(app.store, source)
        title = getattr(moments[0][0].event, "name", "") or source
    drawn = picture(timeline_svg(moments, title), shape)
    write_output(output, drawn)
    if to_stdout(output):
        return
    cast = len(characters(moments))
    say(
        f"wrote {output} ({shape.upper()}, {len(drawn):,} bytes): the "
        f"timeline of `{title}`, {cast} character{'s' * (cast != 1)} over "
        f"{len(moments)} event{'s' * (len(moments) != 1)}"
    )
