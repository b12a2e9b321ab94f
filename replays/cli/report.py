"""`woundlog report`: a fight's numbers, the luck of its dice and its chronicle, of a fight in
the store or a log file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from .application import reading
from .options import AsJson, Db, FightOrFile
from .output import print_json, print_raw, say
from .written import Format, chosen_format, to_stdout, write_output, write_pieces

FORMATS = ("md", "html")


def report(
    source: FightOrFile,
    as_json: AsJson = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="REPORT.md|REPORT.html|-",
            help="Write the report to a file: Markdown, or one self-contained HTML page with "
            "its charts; `-` is standard output.",
        ),
    ] = None,
    format_: Format = None,
    db: Db = None,
) -> None:
    """After the fight: each character's numbers, how lucky the dice were (exactly), and the
    fight told round by round, as Markdown to paste into a campaign journal."""
    shape = chosen_format(output, format_, FORMATS)
    with reading(source, db) as (app, fight):
        if as_json and output is None:
            print_json(app.report(fight))
            return
        # the chronicle is written aside as the fight is read, and written out from there
        made, spool = app.report_spooled(fight, tracks=shape == "html")

    def render(write: Callable[[str], object]) -> None:
        if shape == "html":
            from ..render.html import html_pieces

            pieces = html_pieces(made, spool.chapters(), tracks=spool.tracks)
        else:
            from ..render.markdown import markdown_pieces

            pieces = markdown_pieces(made, spool.chapters())
        for piece in pieces:
            write(piece)

    with spool:
        write_pieces(output, shape, render)
    if output is not None and not to_stdout(output):
        say(f"wrote {output}")


def write_report(
    made: Any, as_json: bool, output: Path | None, shape: str, written: Callable[[str], str]
) -> None:
    """A report to the file `-o` names (or standard output, `-o -`) as `written` in `shape`,
    as JSON, or printed in `shape` (Markdown unless `--format` says otherwise)."""
    if output is not None:
        write_output(output, written(shape), shape)
        if not to_stdout(output):
            say(f"wrote {output}")
    elif as_json:
        print_json(made)
    else:
        print_raw(written(shape).rstrip("\n"))
