"""`woundlog report`: a fight's numbers, the luck of its dice and its chronicle."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

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

    def written(suffix: str) -> str:
        if suffix == ".html":
            from woundlog.replays.report.html import report_html

            return report_html(made)
        return report_markdown(made)

    present(made, as_json, output, written)


def present(made: Any, as_json: bool, output: Path | None, written: Callable[[str], str]) -> None:
    """A report to the file `-o` names (`written` of its suffix), as JSON, or as Markdown."""
    if output is not None:
        output.write_text(written(output.suffix.lower()), encoding="utf-8")
        say(f"wrote {output}")
    elif as_json:
        print_json(made)
    else:
        print_raw(written(".md").rstrip("\n"))
