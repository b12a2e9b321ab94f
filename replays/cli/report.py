"""`woundlog report`: a fight's numbers, the luck of its dice and its chronicle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from woundlog.events import UsageError

from .application import application
from .options import AsJson, Db, FightId
from .output import print_json, print_raw, say

WRITERS = (".md", ".html")


def report(
    fight: FightId,
    as_json: AsJson = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="REPORT.md|REPORT.html",
            help="Write the report to a file: Markdown, or one self-contained HTML page with "
            "its charts.",
        ),
    ] = None,
    db: Db = None,
) -> None:
    """After the fight: each character's numbers, how lucky the dice were (exactly), and the
    fight told round by round, as Markdown to paste into a campaign journal."""
    if output is not None and output.suffix.lower() not in WRITERS:
        raise UsageError(f"-o {output}: write a .md or an .html file")
    with application(db, create=False) as app:
        made = app.report(fight)
    from woundlog.replays.report.markdown import report_markdown

    if output is not None:
        if output.suffix.lower() == ".html":
            from woundlog.replays.report.html import report_html

            output.write_text(report_html(made), encoding="utf-8")
        else:
            output.write_text(report_markdown(made), encoding="utf-8")
        say(f"wrote {output}")
    elif as_json:
        print_json(made)
    else:
        print_raw(report_markdown(made).rstrip("\n"))
