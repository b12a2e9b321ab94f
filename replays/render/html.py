"""A report as one self-contained HTML page: `woundlog report -o report.html` and the
service's report page. No script, no stylesheet or font from elsewhere; the charts are inline
SVG, the tables and the chronicle the Markdown's own words."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from html import escape

from ..report.spool import SpooledChapter, TrackPoints
from ..report.values import Line, Report
from .charts import damage_chart, health_chart, luck_chart
from .markdown import (
    STATE_WORDS,
    chapters_of,
    length_line,
    luck_row,
    moment_line,
    names,
    withheld_line,
)

STYLE = """
body { font-family: sans-serif; max-width: 62rem; margin: 1rem auto; padding: 0 1rem; color: #111; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #999; padding: .2rem .4rem; text-align: left; }
figure { margin: 1rem 0; }
"""


def _table(head: list[str], rows: list[list[str]]) -> str:
    heads = "".join(f'<th scope="col">{escape(h)}</th>' for h in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>"


def report_html(report: Report) -> str:
    """The whole page, self-contained (`woundlog report -o report.html`)."""
    return "".join(html_pieces(report, chapters_of(report)))


def html_pieces(
    report: Report,
    chapters: Iterable[tuple[int, Iterable[Line]]],
    *,
    tracks: Sequence[TrackPoints] | None = None,
) -> Iterator[str]:
    """`report_html`, piece by piece, the chronicle's `chapters` as they are read
    (`markdown.markdown_pieces`), the health chart's `tracks` where they were spooled."""
    title = report.name or report.fight
    yield (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}: report</title><style>{STYLE}</style></head>"
        "<body><main>"
    )
    yield from fragment_pieces(report, chapters, tracks=tracks)
    yield "</main></body></html>\n"


def report_fragment(report: Report, *, timeline: str | None = None) -> str:
    """The report's content, for a page to hold; `timeline`, when given, is the address of
    the fight's timeline to link to."""
    return "".join(fragment_pieces(report, chapters_of(report), timeline=timeline))


def fragment_pieces(
    report: Report,
    chapters: Iterable[tuple[int, Iterable[Line]]],
    *,
    timeline: str | None = None,
    tracks: Sequence[TrackPoints] | None = None,
) -> Iterator[str]:
    """`report_fragment`, piece by piece, the chronicle's `chapters` as they are read
    (`markdown.markdown_pieces`), the health chart's `tracks` where they were spooled."""
    title = report.name or report.fight
    named = names(report)
    parts = [f"<h1>{escape(title)}</h1>", f"<p>{escape(length_line(report))}</p>"]
    if timeline is not None:
        parts.append(f'<p><a id="timeline-link" href="{escape(timeline)}">The timeline</a></p>')
    rows = []
    for one in report.characters:
        t = one.tally
        out_by = "; ".join(named.get(b.by, b.by) if b.by else "no one" for b in one.put_out_by)
        put = "; ".join(named.get(b.character, b.character) for b in one.put_out)
        rows.append(
            [one.name, one.side, STATE_WORDS.get(one.state, one.state),
             f"{t.hits_dealt} ({t.damage_dealt})", f"{t.hits_taken} ({t.damage_taken})",
             f"{t.heals_given} ({t.healing_given})", f"{t.heals_taken} ({t.healing_taken})",
             str(t.knocked_down), str(t.stunned), str(t.downed), str(t.stabilised),
             str(t.rounds_down), out_by or "-", put or "-"]
        )  # fmt: skip
    parts += [
        "<h2>Characters</h2>",
        _table(
            [
                "Character",
                "Side",
                "Ends",
                "Hits dealt (damage)",
                "Hits taken (damage)",
                "Heals given",
                "Heals taken",
                "Knocked down",
                "Stunned",
                "Downed",
                "Stabilised",
                "Rounds down",
                "Put out by",
                "Put out",
            ],
            rows,
        ),
        f'<figure id="damage">{damage_chart(report)}<figcaption>Damage dealt (dark) and taken '
        "(light)</figcaption></figure>",
        f'<figure id="health">{health_chart(report, tracks)}<figcaption>Health over the fight'
        "</figcaption></figure>",
        f"<p>{escape(withheld_line(report))}</p>" if report.withheld else "",
        "<h2>Sides</h2>",
        _table(
            ["Side", "Standing", "Hits dealt (damage)", "Hits taken (damage)", "Downed"],
            [
                [
                    s.side,
                    f"{s.standing} of {len(s.characters)}",
                    f"{s.tally.hits_dealt} ({s.tally.damage_dealt})",
                    f"{s.tally.hits_taken} ({s.tally.damage_taken})",
                    str(s.tally.downed),
                ]
                for s in report.sides
            ],
        ),
        "<h2>Luck</h2>",
        "<ul>"
        + "".join(
            f"<li>{escape(moment_line(label, moment)[2:])}</li>"
            for label, moment in (
                ("Luckiest moment", report.luck.luckiest),
                ("Unluckiest moment", report.luck.unluckiest),
            )
        )
        + "</ul>",
        *(
            [f"<p>(Not every moment was weighed: {escape(report.luck.why_left_out)}.)</p>"]
            if report.luck.why_left_out
            else []
        ),
        f'<figure id="luck">{luck_chart(report)}<figcaption>{report.luck.dice_read} dice '
        "readings</figcaption></figure>",
    ]
    if report.luck.characters:
        cells = [luck_row(one).strip("| ").split(" | ") for one in report.luck.characters]
        parts.append(
            _table(["Character", "Ends", "At least as bad", "At least as good", "How"], cells)
        )
    if report.luck.why_sampled:
        parts.append(f"<p>({escape(report.luck.why_sampled)}.)</p>")
    parts.append("<h2>Chronicle</h2>")
    yield "".join(parts)
    for round_, lines in chapters:
        yield f"<h3>{f'Round {round_}' if round_ else 'Before the first round'}</h3><p>"
        if isinstance(lines, SpooledChapter):  # its text as written, escaped a block at a time
            yield from map(escape, lines.text())
        else:
            for index, line in enumerate(lines):
                yield escape(line.text) if index == 0 else " " + escape(line.text)
        yield "</p>"
